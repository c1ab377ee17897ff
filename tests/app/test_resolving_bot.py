"""A solve that re-solves at play time, through the app that names no game: the bot, the hint
and the coach read the one strategy the re-solving bot computes, and a store whose latest solve
is the blueprint alone keeps playing the blueprint's tables.

The store holds a tiny HULHE blueprint (8 buckets a round, one short epoch) and, as its latest
solve, the same tables marked to re-solve the river (`solver.abstractions.holdem`)."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from app.services.bots.bot import StoredStrategyBot
from app.services.bots.strategy_source import StrategySource
from solver.abstractions import abstraction_for
from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.percentiles import Percentiles
from solver.cli import main
from solver.games import get_game
from solver.games.holdem import HoldemGame, HoldemState
from solver.resolving.kind import Resolving, ResolvingSpec
from solver.resolving.resolving_bot import ResolvingBot
from solver.resolving.store import store_resolving
from strategies import StrategyStore
from tests.app.conftest import AppFactory, new_match
from tests.conftest import copy_store

API = "/api/v1"
ITERATIONS = 40


@pytest.fixture(scope="module")
def resolving_stores(store_path: Path,
                     tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """(blueprint only, blueprint then the re-solving solve)."""
    folder = tmp_path_factory.mktemp("resolving")
    resolving = copy_store(store_path, folder / "resolving.sqlite")
    # The default build's kind of blueprint (histogram buckets, public chance sampling),
    # small: 40 boards.
    assert main(["hulhe", "--buckets", "8,8,8", "--epochs", "1", "--epoch-iterations", "40",
                 "--workers", "0", "--checkpoint", "none", "--self-play-deals", "0",
                 "--resolve-from", "4", "--quiet", "--json", "--store", str(resolving)]) == 0
    blueprint = copy_store(resolving, folder / "blueprint.sqlite")
    with StrategyStore.open(blueprint) as store:
        latest = store.latest_solve("holdem")
        assert latest is not None and latest.abstraction.startswith("resolving=from:4;")
        store.delete_solve(latest.id)
    # Stored again with fewer iterations a re-solve, to keep the test quick.
    store_resolving(str(resolving), "holdem", ResolvingSpec(4, "maxmargin", ITERATIONS))
    return blueprint, resolving


def _river(game: HoldemGame, seed: int) -> HoldemState:
    """A position on the river with the small blind to act, every earlier bet called."""
    rng = random.Random(seed)
    state = game.initial_state()
    while not (state.betting.round == 3 and not state.is_chance()):
        state = state.apply_action(rng.choice(state.legal_actions()) if state.is_chance()
                                   else 1)
    return state


def test_the_bot_and_the_hint_play_the_re_solved_strategy(
        resolving_stores: tuple[Path, Path]) -> None:
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    _, resolving = resolving_stores
    with StrategyStore.open(resolving) as store:
        info = store.latest_solve("holdem")
        table = store.table_strategy("holdem")
    assert info is not None and table is not None
    abstraction = abstraction_for(game, info.abstraction)
    assert isinstance(abstraction, Resolving)
    bot = StoredStrategyBot(StrategySource(resolving))
    assert isinstance(abstraction.blueprint, Percentiles)
    blueprint = HulheBot("blueprint", game.definition, abstraction.blueprint.spec, table)
    resolving_bot = abstraction.bot(table)
    assert isinstance(resolving_bot, ResolvingBot)
    differs = 0
    for seed in range(3):
        state = _river(game, seed)
        policy = bot.policy(game, state)
        player = state.current_player()
        hole = np.array([state.hole(player)])
        # The bot's answer is a re-solve from the blueprint's ranges, not the table's row.
        mine = resolving_bot.action_probabilities(state.betting, state.board(), hole)
        assert policy.probabilities == pytest.approx(
            [mine[0, a] for a in state.legal_actions()])
        assert sum(policy.probabilities) == pytest.approx(1.0)
        table_row = blueprint.action_probabilities(state.betting, state.board(), hole)[0]
        differs += not np.allclose([table_row[a] for a in state.legal_actions()],
                                   policy.probabilities, atol=1e-3)
        # Before the river the bot plays the blueprint's tables as they are.
        preflop = game.initial_state()
        while preflop.is_chance():
            preflop = preflop.apply_action(preflop.legal_actions()[seed])
        early = bot.policy(game, preflop)
        row = blueprint.action_probabilities(preflop.betting, (),
                                             np.array([preflop.hole(1)]))[0]
        assert early.probabilities == pytest.approx([row[a] for a in preflop.legal_actions()],
                                                    abs=1e-9)
    assert differs > 0


@pytest.mark.slow
def test_hands_over_the_api_reach_the_river_with_hints(
        make_app: AppFactory, resolving_stores: tuple[Path, Path]) -> None:
    api = make_app(store=resolving_stores[1], seed=5)
    match_id, headers = new_match(api.client, "holdem")
    rivers = 0
    for _ in range(3):
        view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers,
                               params={"hint": True}).json()
        while view["status"] == "in_progress":
            hint = view.get("hint")
            assert hint and sum(a["probability"] for a in hint) == pytest.approx(1.0)
            rivers += view["public"]["betting"].count("/") == 3
            action = "call" if "call" in view["legal_actions"] else "check"
            view = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                   params={"hint": True},
                                   json={"action": action, "seq": view["seq"]}).json()
        # Analysed after the answer (valued by the blueprint's tables, the bot's range from
        # what it played): the coach and the luck-adjusted result, as against any bot.
        done = api.client.get(f"{API}/hands/{view['hand_id']}", headers=headers).json()
        assert done["outcome"]["analysis"] == "done" and done["outcome"]["coach"]
        assert done["outcome"]["adjusted_payoff"] is not None
    assert rivers > 0
    summary = api.client.get(f"{API}/matches/{match_id}", headers=headers).json()
    assert summary["adjusted_hands"] == 3 and summary["hands_analysing"] == 0


def test_a_store_of_the_blueprint_alone_keeps_playing_its_tables(
        resolving_stores: tuple[Path, Path]) -> None:
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    blueprint, _ = resolving_stores
    with StrategyStore.open(blueprint) as store:
        info = store.latest_solve("holdem")
    assert info is not None and info.abstraction.startswith("hist=")
    state = _river(game, 0)
    policy = StoredStrategyBot(StrategySource(blueprint)).policy(game, state)
    assert sum(policy.probabilities) == pytest.approx(1.0)


def test_the_blueprint_of_a_re_solving_store_is_its_tables(
        resolving_stores: tuple[Path, Path]) -> None:
    """The evaluations read a store whose latest solve is the re-solving bot as its blueprint."""
    blueprint, resolving = resolving_stores
    alone = HulheBot.from_store("holdem", str(blueprint))
    under = HulheBot.from_store("holdem", str(resolving))
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    state = _river(game, 1)
    holes = np.array([state.hole(0), state.hole(1)], np.int64)
    board = tuple(state.board())
    assert under.spec == alone.spec
    np.testing.assert_array_equal(under.action_probabilities(state.betting, board, holes),
                                  alone.action_probabilities(state.betting, board, holes))


@pytest.mark.slow
def test_a_bot_that_re_solves_the_turn_carries_it_to_the_river(
        resolving_stores: tuple[Path, Path], tmp_path: Path) -> None:
    """Stored to re-solve from the turn in the turn's layout (two iterations, to keep the test
    quick): at the turn the bot's probabilities are its re-solve's, and on the river its range
    and the opponent's values come from that turn re-solve (the river's re-solve finds them)."""
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    turned = copy_store(resolving_stores[1], tmp_path / "turn.sqlite")
    store_resolving(str(turned), "holdem", ResolvingSpec(3, "maxmargin", ITERATIONS, turn=2))
    with StrategyStore.open(turned) as store:
        info = store.latest_solve("holdem")
        table = store.table_strategy("holdem")
    assert info is not None and table is not None and ";turn:2;" in info.abstraction
    abstraction = abstraction_for(game, info.abstraction)
    assert isinstance(abstraction, Resolving)
    source = StrategySource(turned)
    bot = StoredStrategyBot(source)
    rng = random.Random(3)
    state = game.initial_state()
    while not (state.betting.round == 2 and not state.is_chance()):
        state = state.apply_action(rng.choice(state.legal_actions()) if state.is_chance()
                                   else 1)
    player = state.current_player()
    turn = bot.policy(game, state)
    resolving = abstraction.bot(source.table_strategy("holdem") or table)
    assert isinstance(resolving, ResolvingBot)
    mine = resolving.action_probabilities(state.betting, state.board(),
                                          np.array([state.hole(player)]))
    assert turn.probabilities == pytest.approx([mine[0, a] for a in state.legal_actions()])
    while not (state.betting.round == 3 and not state.is_chance()
               and state.current_player() == player):
        state = state.apply_action(rng.choice(state.legal_actions()) if state.is_chance()
                                   else 1)
    river = bot.policy(game, state)
    mine = resolving.action_probabilities(state.betting, state.board(),
                                          np.array([state.hole(player)]))
    assert river.probabilities == pytest.approx([mine[0, a] for a in state.legal_actions()])
    kinds = {type(solved).__name__ for _, solved in resolving.kept()}
    assert kinds == {"TurnSolved", "Solved"}  # the turn's re-solve, then the river's from it


def test_the_lobby_and_the_game_page_say_the_bot_re_solves(
        make_app: AppFactory, resolving_stores: tuple[Path, Path]) -> None:
    """The words come from the stored descriptor through the game module's kind: an abstraction
    that re-solves, what was measured of it, and no claim that nobody can beat it."""
    api = make_app(store=resolving_stores[1])
    lobby = api.client.get("/").text
    page = api.client.get("/play/holdem").text
    for text in (lobby, page):
        assert "from the river on it does not read that strategy but re-solves" in text
        assert "cannot be computed exactly" in text and "safe re-solving of the last round" in text
    assert "nobody wins more than that" not in page
    assert "and at play time CFR+ over the rest of the hand" in page  # not "cs-cfr+resolving"
    game = api.client.get(f"{API}/games/holdem").json()
    assert "re-solves the rest of the hand" in game["bot"]["abstraction"]
    assert "holdem-mini" in game["bot"]["measured"]
    # The store of the blueprint alone says so, without a word of re-solving.
    blueprint = make_app(store=resolving_stores[0]).client.get("/play/holdem").text
    assert "re-solves" not in blueprint and "(8 a round)" in blueprint

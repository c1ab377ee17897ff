"""Exploitable opponents (`solver.runs.opponents`): what the store states about each is what an
exact best response finds again, and, on Kuhn, what a brute force over every pure strategy of
the best reply finds."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pyspiel
import pytest

from solver.algorithms.cfr import normalize
from solver.algorithms.exploitability import evaluate_strategy
from solver.cli import main
from solver.evaluation.stored import stored_strategy_array
from solver.games import get_game
from solver.games.base import Game, State
from solver.games.opponents import POKER_STYLES
from solver.runs.export import openspiel_names
from solver.runs.opponents import EARLY_LEVELS, build_opponents
from solver.runs.store_solve import solve_and_store
from strategies import InfosetStrategy, SolveInfo, StrategyStore


@pytest.fixture(scope="module", params=["kuhn", "leduc"])
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> tuple[str, Path, list[SolveInfo]]:
    game = request.param
    path = tmp_path_factory.mktemp(game) / "store.sqlite"
    solve_and_store(game, "auto", store_path=path)
    return game, path, build_opponents(game, path)


def test_every_opponent_is_stored_as_measured(built: tuple[str, Path, list[SolveInfo]]) -> None:
    game_name, path, stored = built
    game = get_game(game_name)
    assert [info.opponent for info in stored] == [
        "early1", "early2", "early3", *(s.name for s in POKER_STYLES)]
    with StrategyStore.open(path) as store:
        equilibrium = store.latest_solve(game_name)
        assert equilibrium is not None and equilibrium.opponent == ""
        assert {info.opponent for info in store.opponents(game_name)} == {
            info.opponent for info in stored}
        for info in stored:
            # The stated exploitability, recomputed from the stored rows by exact best response.
            tree, strategy = stored_strategy_array(store, game, info.id)
            evaluation = evaluate_strategy(tree, strategy)
            assert info.exploitability == pytest.approx(evaluation.exploitability, abs=1e-12)
            assert info.best_reply == pytest.approx(evaluation.best_response_values, abs=1e-12)
            assert info.best_reply is not None
            assert sum(info.best_reply) / 2 == pytest.approx(info.exploitability, abs=1e-12)
            assert info.exploitability > 10 * equilibrium.exploitability


def test_an_exported_opponent_is_judged_by_openspiel_as_stored(
        built: tuple[str, Path, list[SolveInfo]], capsys: pytest.CaptureFixture[str]) -> None:
    game_name, path, stored = built
    openspiel_game = pyspiel.load_game(openspiel_names()[game_name])
    for info in stored[:2]:
        assert main(["export", game_name, "--opponent", info.opponent, "--format", "openspiel",
                     "--store", str(path)]) == 0
        exported = json.loads(capsys.readouterr().out)
        policy = {key: [(int(a), p) for a, p in row.items()] for key, row in exported.items()}
        assert pyspiel.exploitability(openspiel_game, policy) == pytest.approx(
            info.exploitability, rel=1e-9)
    assert main(["export", game_name, "--opponent", "nobody", "--store", str(path)]) == 2
    error = capsys.readouterr().err
    assert "no opponent 'nobody'" in error and "stored: bets, calls, early1" in error


def test_early_solves_are_graded(built: tuple[str, Path, list[SolveInfo]]) -> None:
    game_name, path, stored = built
    game = get_game(game_name)
    early = [info for info in stored if info.opponent.startswith("early")]
    with StrategyStore.open(path) as store:
        tree, _ = stored_strategy_array(store, game)
        uniform = evaluate_strategy(tree, normalize(tree, np.zeros(tree.num_regrets)))
        for info, level in zip(early, EARLY_LEVELS, strict=True):
            assert info.exploitability <= level * uniform.exploitability
            trace = store.trace(info.id)
            assert trace[-1].iteration == info.iterations
            assert trace[-1].exploitability == pytest.approx(info.exploitability, abs=1e-12)
            # The first iteration to reach its level: the one before had not.
            if len(trace) > 1:
                assert trace[-2].exploitability > level * uniform.exploitability
    assert [info.iterations for info in early] == sorted(info.iterations for info in early)
    assert early[0].exploitability > early[1].exploitability > early[2].exploitability


def test_styled_bots_bend_the_equilibrium_as_stated(built: tuple[str, Path, list[SolveInfo]]
                                                    ) -> None:
    game_name, path, stored = built
    ids = {info.opponent: info.id for info in stored}
    with StrategyStore.open(path) as store:
        equilibrium = store.strategy(game_name)
        calls = store.strategy(game_name, ids["calls"])
        bets = store.strategy(game_name, ids["bets"])
    facing = [key for key, row in equilibrium.items() if row.labels == ("fold", "call")]
    assert facing
    for key in facing:
        fold = equilibrium[key].probabilities[0]
        assert calls[key].probabilities == pytest.approx((fold / 2, 1 - fold / 2), abs=1e-12)
    for key, row in equilibrium.items():
        if row.labels == ("check", "bet"):
            check = row.probabilities[0]
            assert bets[key].probabilities == pytest.approx((check / 2, 1 - check / 2),
                                                            abs=1e-12)


def _value(game: Game, state: State, seat: int, reply: dict[str, int],
           bot: dict[str, InfosetStrategy]) -> float:
    """Seat's expected payoff from `state` when it plays the pure strategy `reply` (infoset key
    -> action label index) and the other seat the bot's stored strategy: a walk of every
    history (Kuhn's 30)."""
    if state.is_terminal():
        return float(state.returns()[seat])
    if state.is_chance():
        return sum(p * _value(game, state.apply_action(a), seat, reply, bot)
                   for a, p in state.chance_outcomes())
    key = state.information_state_key(state.current_player())
    actions = state.legal_actions()
    if state.current_player() == seat:
        return _value(game, state.apply_action(actions[reply[key]]), seat, reply, bot)
    row = bot[key]
    return sum(p * _value(game, state.apply_action(actions[i]), seat, reply, bot)
               for i, p in enumerate(row.probabilities) if p > 0)


def test_kuhn_best_reply_value_by_brute_force(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    solve_and_store("kuhn", "auto", store_path=path)
    stored = build_opponents("kuhn", path)
    game = get_game("kuhn")
    with StrategyStore.open(path) as store:
        for info in stored:
            bot = store.strategy("kuhn", info.id)
            assert info.best_reply is not None
            for seat in (0, 1):
                mine = sorted(key for key, row in bot.items() if row.player == seat)
                assert len(mine) == 6
                best = max(  # all 2^6 pure strategies of the seat
                    _value(game, game.initial_state(), seat, dict(zip(mine, choice,
                                                                       strict=True)), bot)
                    for choice in itertools.product((0, 1), repeat=len(mine)))
                assert info.best_reply[seat] == pytest.approx(best, abs=1e-12)
                # And the stored best reply's value at the root information sets agrees.
                roots = [bot[key] for key in mine if key.endswith("|")]
                if seat == 0:
                    assert np.mean([row.value for row in roots]) == pytest.approx(best,
                                                                                 abs=1e-12)

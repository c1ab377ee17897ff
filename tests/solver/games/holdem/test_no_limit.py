"""No-limit betting in the hold'em family, against pyspiel's universal_poker move for move.

Random playouts walk our state and pyspiel's in lockstep, as `test_openspiel` does for limit
betting: legal actions (every raise-to amount, or universal_poker's ids under ``fcpa``), the
information-state strings of both players at every decision, and the returns.  The random
players call and raise more than they fold, and pick raise sizes uniformly, so the playouts go
all-in often (the runouts dealt after an all-in is called) and reach showdowns.
"""

from __future__ import annotations

import doctest
import json
import random
from pathlib import Path

import pyspiel
import pytest

from solver.cli import main
from solver.games import (
    CHANCE,
    ActionGroup,
    action_from_label,
    get_game,
    get_view,
    legal_words,
    offered_labels,
)
from solver.games.holdem import HoldemGame, HoldemState, bet_sizes
from solver.games.holdem.betting import CALL, FOLD
from solver.games.holdem.rules import HUNL, from_game_string, parse
from strategies import StrategyStore

FULL_GAMES = (
    # Heads-up no-limit hold'em's rules, at 20 big blinds so that all-ins come often.
    "holdem(betting=nolimit,stack=2000 2000)",
    # One card each, three rounds, unequal stacks (all-ins for less, side pots).
    "holdem(betting=nolimit,numRanks=5,numSuits=3,numHoleCards=1,numBoardCards=0 1 1,"
    "blind=10 5,stack=100 60,firstPlayer=2 1 1)",
    # A board card before the first round, equal blinds, the big blind first, raises capped.
    "holdem(betting=nolimit,numRanks=4,numSuits=2,numHoleCards=1,numBoardCards=1 1,blind=2 2,"
    "firstPlayer=1 2,stack=30 30,maxRaises=2 1)",
    # Two cards each from eight, the big blind's stack the shorter.
    "holdem(betting=nolimit,numRanks=4,numSuits=2,numBoardCards=0 1,blind=3 1,stack=15 40)",
)
ABSTRACT = (
    "holdem(betting=nolimit,stack=2000 2000,bettingAbstraction=fcpa)",
    "holdem(betting=nolimit,numRanks=5,numSuits=3,numHoleCards=1,numBoardCards=0 1 1,"
    "blind=10 5,stack=100 60,firstPlayer=2 1 1,bettingAbstraction=fcpa)",
    "holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,blind=2 1,"
    "stack=20 20,firstPlayer=2 1,bettingAbstraction=fc)",
)


def holdem(spec: str) -> HoldemGame:
    game = get_game(spec)
    assert isinstance(game, HoldemGame)
    return game


def playouts(spec: str, count: int, seed: int) -> dict[str, int]:
    """`count` lockstep playouts; how many steps, showdowns, all-ins and runouts they saw."""
    game = holdem(spec)
    mapping = game.openspiel
    assert mapping is not None
    theirs_game = pyspiel.load_game(mapping.game_string)
    rng = random.Random(seed)
    seen = {"steps": 0, "showdowns": 0, "all-ins": 0, "runouts": 0}
    for _ in range(count):
        ours, theirs = game.initial_state(), theirs_game.new_initial_state()
        while not ours.is_terminal():
            seen["steps"] += 1
            legal = ours.legal_actions()
            assert ours.is_chance() == theirs.is_chance_node(), ours.history
            if ours.is_chance():
                assert list(legal) == theirs.legal_actions(), ours.history
                action = rng.choice(legal)
            else:
                assert [mapping.action_id(ours, a) for a in legal] == theirs.legal_actions()
                assert ours.current_player() == theirs.current_player(), ours.history
                for p in (0, 1):
                    assert (mapping.information_state_string(ours, p)
                            == theirs.information_state_string(p)), ours.history
                action = _random_action(rng, legal)
            theirs.apply_action(mapping.action_id(ours, action))
            ours = ours.apply_action(action)
        assert theirs.is_terminal(), ours.history
        assert list(ours.returns()) == theirs.returns(), ours.history
        _count(ours, seen)
    return seen


def _random_action(rng: random.Random, legal: tuple[int, ...]) -> int:
    """Fold 1, call 5 and raise 3 parts in 9, the raise's amount uniform among the legal."""
    raises = [a for a in legal if a > CALL]
    kind = rng.choices(["fold", "call", "raise"],
                       [FOLD in legal, 5, 3 if raises else 0])[0]
    return FOLD if kind == "fold" else CALL if kind == "call" else rng.choice(raises)


def _count(state: HoldemState, seen: dict[str, int]) -> None:
    betting = state.betting
    if betting.folded < 0:
        seen["showdowns"] += 1
        stacks = state.game.definition.stacks
        assert stacks is not None
        if any(betting.spent[p] == stacks[p] for p in (0, 1)):
            seen["all-ins"] += 1
            seen["runouts"] += betting.rounds[-1] == ""


@pytest.mark.slow
def test_random_playouts_agree_with_universal_poker_in_the_full_game() -> None:
    """10,000 playouts over four members, every raise size legal."""
    total = {"steps": 0, "showdowns": 0, "all-ins": 0, "runouts": 0}
    for i, spec in enumerate(FULL_GAMES):
        for key, value in playouts(spec, 2_500, seed=20 + i).items():
            total[key] += value
    assert total["showdowns"] > 2_000 and total["all-ins"] > 1_000
    assert total["runouts"] > 500 and total["steps"] > 60_000


def test_random_playouts_agree_with_universal_poker_under_its_abstractions() -> None:
    """``fcpa`` (pot-sized raise and all-in, universal_poker's ids 2 and 3) and ``fc``."""
    for i, spec in enumerate(ABSTRACT):
        seen = playouts(spec, 700, seed=30 + i)
        assert seen["showdowns"] > 100


def test_names_read_back() -> None:
    assert HUNL.spec == "holdem(betting=nolimit)"
    assert HUNL.game_string == (
        "universal_poker(betting=nolimit,numPlayers=2,numRounds=4,stack=20000 20000,"
        "blind=100 50,firstPlayer=2 1 1 1,numSuits=4,numRanks=13,numHoleCards=2,"
        "numBoardCards=0 3 1 1,bettingAbstraction=fullgame)")
    for spec in (*FULL_GAMES, *ABSTRACT):
        rules = parse(spec)
        assert parse(rules.spec) == rules == parse(rules.game_string)
        # pyspiel prints its parameters sorted, and raiseSize, which no-limit ignores.
        assert from_game_string(str(pyspiel.load_game(rules.game_string))) == rules
    custom = parse("holdem(betting=nolimit,bettingAbstraction=0.5p p a;p a/p a)")
    assert custom.bets is not None and custom.bets.text == "0.5p p a;p a/p a"
    assert not custom.openspiel_loadable and holdem(custom.spec).openspiel is None
    assert holdem(HUNL.spec).num_distinct_actions() == 20_001
    assert (holdem(HUNL.spec).name, holdem(HUNL.spec).title) == (
        "hunl", "Heads-up no-limit Texas hold'em")  # the member of that name


def test_raises_go_to_an_amount_from_the_minimum_raise_to_all_in() -> None:
    game = holdem("holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,"
                  "numBoardCards=0 1,blind=2 1,firstPlayer=2 1,stack=20 20)")
    state = game.initial_state().apply_action(0).apply_action(1)
    assert state.legal_actions() == (0, 1, *range(4, 21))
    assert state.action_label(6) == "raise to 6" and state.action_label(1) == "call"
    raised = state.apply_action(6)  # a raise of 4 over the big blind
    assert raised.legal_actions()[2] == 10  # so the next raise is by 4 at least
    with pytest.raises(ValueError, match=r"legal actions: 0 \(fold\), 1 \(call\), "
                                         r"10\.\.20 \(raise to that amount\)"):
        raised.apply_action(9)
    all_in = raised.apply_action(20).apply_action(CALL)
    # Called all-in before the board: the board comes, then the showdown.
    assert all_in.is_chance() and not all_in.is_terminal()
    ended = all_in.apply_action(all_in.legal_actions()[0])
    assert ended.is_terminal() and abs(ended.returns()[0]) in (0.0, 20.0)
    assert ended.public_key() == f"r6r20c|{game.written(ended.board())}|"


def test_an_all_in_for_less_wins_only_what_it_covers() -> None:
    game = holdem("holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,"
                  "numBoardCards=0 1,blind=2 1,firstPlayer=2 1,stack=12 30)")
    # Player 0 (the big blind, 12 chips) holds the 4c, player 1 the 2c; the board the 3c.
    state = game.initial_state().apply_action(4).apply_action(0)
    state = state.apply_action(30).apply_action(CALL).apply_action(2)
    assert state.is_terminal() and state.betting.spent == (12, 30)
    assert state.returns() == (12.0, -12.0)


def test_bet_abstractions_keep_their_sizes() -> None:
    game = holdem("holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,"
                  "numBoardCards=0 1,blind=2 1,firstPlayer=2 1,stack=20 20,"
                  "bettingAbstraction=0.5p p a;p a)")
    state = game.initial_state().apply_action(0).apply_action(1)
    # Facing the big blind: half the pot after calling (4) is a raise to 4, the pot to 6.
    assert state.legal_actions() == (0, 1, 4, 6, 20)
    assert state.apply_action(6).legal_actions() == (0, 1, 18, 20)  # one raise deep: p a
    with pytest.raises(ValueError, match="legal actions: 0 \\(fold\\), 1 \\(call\\), "
                                         "4 \\(raise to 4\\)"):
        state.apply_action(5)


def test_bet_sizes_doctests() -> None:
    assert doctest.testmod(bet_sizes).failed == 0


@pytest.mark.slow
@pytest.mark.parametrize("spec", [
    "holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,"
    "blind=1 1,firstPlayer=1 1,stack=12 12,bettingAbstraction=fcpa)",
    "holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,"
    "blind=1 1,firstPlayer=1 1,stack=6 6)",
    "holdem(betting=nolimit,numRanks=4,numSuits=2,numBoardCards=0 1,firstPlayer=2 1,"
    "stack=12 12,blind=2 1,bettingAbstraction=fcpa)",
], ids=["fcpa-at-12", "every-size-at-6", "mini-fcpa-at-12"])
def test_a_small_member_is_judged_by_openspiel(
        spec: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Solved to 1e-4 as `solve` does it, in its abstraction (fcpa) or with every size,
    exported in OpenSpiel's terms (fcpa's ids, or the amounts), every information set of
    universal_poker's game covered, and measured by pyspiel."""
    store = str(tmp_path / "s.sqlite")
    assert main(["solve", spec, "--store", store, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["export", spec, "--format", "openspiel", "--store", store]) == 0
    exported = json.loads(capsys.readouterr().out)
    mapping = holdem(spec).openspiel
    assert mapping is not None
    policy = {key: [(int(a), p) for a, p in row.items()] for key, row in exported.items()}
    judged = pyspiel.exploitability(pyspiel.load_game(mapping.game_string), policy)
    with StrategyStore.open(store) as opened:
        solved = opened.latest_solve(holdem(spec).name)
    assert solved is not None and solved.exploitability is not None
    assert judged <= 1e-4 and judged == pytest.approx(solved.exploitability, rel=1e-9)


@pytest.mark.slow
def test_the_full_game_at_deep_stacks_is_refused_before_it_is_built() -> None:
    """Every size at 200 big blinds is beyond any tree: refused in seconds, the way out named."""
    with pytest.raises(ValueError, match="give it a bet abstraction"):
        holdem(HUNL.spec).sizes()


def test_the_table_offers_any_amount_with_the_usual_ones_named() -> None:
    """Every size from the smallest raise to all-in, as one choice: the smallest, half the
    pot and all-in named (a pot-sized raise would be more than the stack here), fold and call
    as buttons; a member with a bet abstraction has buttons only."""
    view = get_view("nolimit-leduc")
    state = _dealt(get_game("nolimit-leduc")).apply_action(5)  # the first seat raises to 5
    choice = view.amount_choice(state)
    assert choice is not None
    assert (choice.low, choice.high) == (9, 12)
    assert choice.quick == (("min", 9), ("½ pot", 10), ("all-in", 12))
    raises = [state.action_label(a) for a in state.legal_actions() if a > CALL]
    assert raises == [choice.label(n) for n in range(9, 13)] == [f"raise to {n}" for n in
                                                                 range(9, 13)]
    assert choice.range_words == "raise to any amount from 9 to 12"
    assert view.action_groups(state) == (ActionGroup("Your move", ("fold", "call")),)
    leduc = get_game("nolimit-leduc")
    assert isinstance(leduc, HoldemGame)
    abstract = get_game(leduc.definition.with_bets(bet_sizes.parse("fcpa")).spec)
    assert get_view(abstract.name).amount_choice(_dealt(abstract)) is None


def test_a_deep_stack_lists_its_named_amounts_and_words_the_range() -> None:
    """At 200 big blinds a raise has 19,801 amounts: the list a player gets names fold, call
    and the usual amounts (each legal), the refusal's words the whole range; a short stack's
    list is every legal move."""
    view, state = get_view("hunl"), _dealt(get_game("hunl"))
    assert len(state.legal_actions()) == 19_803
    offered = offered_labels(view, state)
    assert offered == ["fold", "call", "raise to 200", "raise to 300", "raise to 20000"]
    assert all(action_from_label(state, label) >= 0 for label in offered)
    assert legal_words(view, state) == "fold, call, raise to any amount from 200 to 20000"
    short = _dealt(get_game("nolimit-leduc"))
    every = [short.action_label(a) for a in short.legal_actions()]
    assert offered_labels(get_view("nolimit-leduc"), short) == every
    assert legal_words(get_view("nolimit-leduc"), short) == ", ".join(every)


def _dealt(game: object) -> HoldemState:
    assert isinstance(game, HoldemGame)
    state = game.initial_state()
    while state.current_player() == CHANCE:
        state = state.apply_action(state.chance_outcomes()[0][0])
    assert isinstance(state, HoldemState)
    return state

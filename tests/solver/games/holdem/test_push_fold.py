"""Push or fold (`solver.games.holdem.push_fold`): its compiled tree is the game's states, its
terminals pay what the rules say, and each stack solves to at most 1e-6 big blinds for both
seats, with the ranges players know from push/fold charts.

Every test here needs the table of all-in results (`solver.cards.matchups`): a minute or more
of two cores the first time, then read from the cache."""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine.tree import PublicTree
from solver.games import game_names, get_game
from solver.games.holdem import HoldemGame, from_text
from solver.games.holdem.betting import CALL, FOLD
from solver.games.holdem.push_fold import STACKS_BB, PushFoldGame

pytestmark = pytest.mark.slow
HANDS = 1_326
BIG_BLIND = 100


@pytest.fixture(scope="module")
def trees() -> dict[int, PublicTree]:
    games = {bb: get_game(f"pushfold-{bb}bb") for bb in STACKS_BB}
    return {bb: game.compile_public_tree() for bb, game in games.items()
            if isinstance(game, PushFoldGame)}


def _pure(tree: PublicTree, push: float, call: float) -> np.ndarray:
    """Every small blind pushes with probability `push`, every big blind calls with `call`."""
    strategy = np.empty(tree.num_regrets)
    strategy[0:2 * HANDS:2], strategy[1:2 * HANDS:2] = 1 - push, push
    strategy[2 * HANDS::2], strategy[2 * HANDS + 1::2] = 1 - call, call
    return strategy


def test_the_members_are_named_and_read_back() -> None:
    assert {f"pushfold-{bb}bb" for bb in STACKS_BB} <= set(game_names())
    game = get_game("pushfold-10bb")
    assert isinstance(game, PushFoldGame) and game.stack_bb == 10
    assert game.definition.spec == ("holdem(betting=nolimit,stack=1000 1000,"
                                    "bettingAbstraction=pushfold)")
    assert from_text(game.definition.spec).name == "pushfold-10bb"
    other = from_text("holdem(betting=nolimit,stack=1250 1250,bettingAbstraction=pushfold)")
    assert isinstance(other, PushFoldGame) and other.stack_bb == 12.5


def test_the_tree_is_the_states(trees: dict[int, PublicTree]) -> None:
    game = get_game("pushfold-15bb")
    assert isinstance(game, HoldemGame)
    tree = trees[15]
    keys = {key: i for i, key in enumerate(tree.infoset_keys)}
    rng = np.random.default_rng(0)
    for _ in range(200):
        state = game.initial_state()
        for card in rng.choice(52, 4, replace=False):
            state = state.apply_action(int(card))
        for action in (1_500, None):
            i = keys[state.information_state_key()]
            assert tree.infoset_actions[i] == state.legal_actions()
            assert tree.infoset_labels[i] == tuple(state.action_label(a)
                                                  for a in state.legal_actions())
            if action is not None:
                state = state.apply_action(action)
    assert state.legal_actions() == (FOLD, CALL)


def test_the_terminals_pay_what_the_rules_say(trees: dict[int, PublicTree]) -> None:
    tree = trees[10]
    assert evaluate_strategy(tree, _pure(tree, 0, 0)).value == pytest.approx(50, abs=1e-9)
    assert evaluate_strategy(tree, _pure(tree, 1, 0)).value == pytest.approx(-100, abs=1e-9)
    # All-in every hand: the seats' hands are alike, so the big blind's value is zero.
    assert evaluate_strategy(tree, _pure(tree, 1, 1)).value == pytest.approx(0, abs=1e-9)


@pytest.fixture(scope="module")
def solved(trees: dict[int, PublicTree]) -> dict[int, tuple[np.ndarray, tuple[float, float]]]:
    """Each stack solved by discounted CFR until neither seat gains more than a millionth of a
    big blind by a best response: the strategy and the two gains."""
    out = {}
    for bb, tree in trees.items():
        solver = CFRSolver(tree, "dcfr")
        while solver.iterations < 3_000:
            solver.iterate(100)
            strategy = solver.average_strategy()
            result = evaluate_strategy(tree, strategy)
            gains = (result.best_response_values[0] - result.value,
                     result.best_response_values[1] + result.value)
            if max(gains) <= 1e-6 * BIG_BLIND:
                break
        out[bb] = strategy, gains
    return out


@pytest.mark.parametrize("bb", STACKS_BB)
def test_each_stack_solves_to_a_millionth_of_a_big_blind(
        solved: dict[int, tuple[np.ndarray, tuple[float, float]]], bb: int) -> None:
    strategy, gains = solved[bb]
    assert max(gains) <= 1e-6 * BIG_BLIND
    pushes, calls = strategy[1:2 * HANDS:2].mean(), strategy[2 * HANDS + 1::2].mean()
    if bb == 10:  # what push/fold charts say at ten big blinds
        assert 0.57 < pushes < 0.60 and 0.36 < calls < 0.39
    if bb > min(STACKS_BB):  # shorter stacks push and call wider
        wider = solved[bb - 5][0]
        assert wider[1:2 * HANDS:2].mean() > pushes and wider[2 * HANDS + 1::2].mean() > calls

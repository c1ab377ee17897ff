"""The kernels one by one, against the recursive evaluators of `solver.algorithms.reference`, and a
public tree built directly from arrays with `pack_tree`."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from solver.algorithms import reference
from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import policy_from_array, strategy_array
from solver.algorithms.regret_matching import regret_matching_strategy
from solver.engine import kernels
from solver.engine.compile import compile_game
from solver.engine.node_kinds import DECISION_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree, pack_tree
from solver.games import get_game
from solver.games.rps import rps_matrix
from tests.solver.algorithms.test_exploitability import random_policy


def _reaches(tree: PublicTree, strategy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    reach = (np.zeros(tree.num_slots(0)), np.zeros(tree.num_slots(1)))
    for p in (0, 1):
        kernels.reach_probabilities(tree.arrays, p, strategy, reach[p])
    return reach


@pytest.mark.parametrize("game_name", ["kuhn", "leduc"])
@pytest.mark.parametrize("seed", [3, 4])
def test_evaluate_and_best_response_match_the_recursive_ones(game_name: str, seed: int) -> None:
    game = get_game(game_name)
    tree = compile_game(game)
    policy = random_policy(game_name, seed)
    strategy = strategy_array(tree, policy)
    reach = _reaches(tree, strategy)
    value = reference.expected_value(game, policy)
    for p in (0, 1):
        values, action_values = np.zeros(tree.num_slots(p)), np.zeros(tree.num_regrets)
        got = kernels.evaluate(tree.arrays, p, strategy, reach[1 - p], values, action_values)
        assert got == pytest.approx(value if p == 0 else -value, abs=1e-12)
        got = kernels.best_response(tree.arrays, p, reach[1 - p], values, action_values)
        assert got == pytest.approx(reference.best_response_value(game, policy, p), abs=1e-12)


def test_cfr_update_returns_the_value_before_it_and_plays_regret_matching() -> None:
    tree = compile_game(get_game("leduc"))
    solver = CFRSolver(tree, "pcfr+")
    solver.iterate(5)
    before = solver.strategy.copy()
    reach = _reaches(tree, before)
    values, action_values = np.zeros(tree.num_slots(0)), np.zeros(tree.num_regrets)
    expected = kernels.evaluate(tree.arrays, 0, before, reach[1], values, action_values)
    got = kernels.cfr_update(tree.arrays, 0, solver.strategy, reach[0], reach[1], values,
                             action_values, solver.regrets, solver.average, 1.0, 1.0, True,
                             1.0, 1.0, solver.last_regrets)
    assert got == expected
    # Player 0's rows are now regret matching on regret + last instantaneous regret; player
    # 1's are untouched.
    matched = np.empty(tree.num_regrets)
    kernels.current_strategy(tree.arrays, solver.regrets + solver.last_regrets, matched)
    offsets = tree.infoset_regret_offset
    for i, player in enumerate(tree.infoset_player):
        row = slice(offsets[i], offsets[i + 1])
        assert np.array_equal(solver.strategy[row], matched[row] if player == 0 else before[row])


def test_regret_matching_rule() -> None:
    out = np.zeros(7)
    regrets = np.array([9.0, 1.0, -2.0, 3.0, -1.0, -1.0, 0.0])
    kernels.regret_matching(regrets, 1, 3, out, 0)
    assert out[:3].tolist() == [0.25, 0.0, 0.75]
    kernels.regret_matching(regrets, 4, 3, out, 4)
    assert out[4:].tolist() == [1 / 3] * 3
    assert regret_matching_strategy(np.array([1.0, -2.0, 3.0])).tolist() == [0.25, 0.0, 0.75]


def _rps_by_hand() -> PublicTree:
    """Rock-paper-scissors as an engine would lay it out without walking states.

    Node 0: player 0 moves (one private state: none yet).  Node 1: player 1 moves; player 0's
    move is private, so node 1 holds three player-0 slots, one per action.  Node 2: the
    terminal, three slots each, payoff matrix = the game's matrix (no chance)."""
    arrays = pack_tree(
        kind=[DECISION_NODE, DECISION_NODE, TERMINAL_NODE],
        actor=[0, 1, -1],
        parent=[-1, 0, 1],
        num_actions=[3, 3, 0],
        slot_count=[[1, 3, 3], [1, 1, 3]],
        slot_parent=[[-1, 0, 0, 0, 1, 2, 3], [-1, 0, 1, 1, 1]],
        slot_action=[[-1, 0, 1, 2, -1, -1, -1], [-1, -1, 0, 1, 2]],
        payoffs=rps_matrix().ravel(),
    )
    labels = ("rock", "paper", "scissors")
    return PublicTree("rps", arrays, ("P1", "P2"), ((0, 1, 2),) * 2, (labels,) * 2)


def test_a_tree_packed_by_hand_is_the_compiled_one() -> None:
    built, compiled = _rps_by_hand(), compile_game(get_game("rps"))
    for field in compiled.arrays._fields:
        assert np.array_equal(getattr(built.arrays, field), getattr(compiled.arrays, field)), field
    assert built.infoset_keys == compiled.infoset_keys
    assert built.infoset_labels == compiled.infoset_labels
    assert built.infoset_player.tolist() == [0, 1]
    assert built.infoset_regret_offset.tolist() == [0, 3, 6]
    strategy = np.array([0.5, 0.3, 0.2, 1 / 3, 1 / 3, 1 / 3])
    policy = policy_from_array(built, strategy)
    reach = _reaches(built, strategy)
    values, action_values = np.zeros(built.num_slots(1)), np.zeros(built.num_regrets)
    got = kernels.best_response(built.arrays, 1, reach[0], values, action_values)
    assert got == pytest.approx(reference.best_response_value(get_game("rps"), policy, 1))


def test_pack_tree_refuses_inconsistent_layouts() -> None:
    good: dict[str, Any] = {
        "kind": [DECISION_NODE, TERMINAL_NODE], "actor": [0, -1], "parent": [-1, 0],
        "num_actions": [2, 0], "slot_count": [[1, 2], [1, 1]],
        "slot_parent": [[-1, 0, 0], [-1, 0]], "slot_action": [[-1, 0, 1], [-1, -1]],
        "payoffs": [1.0, -1.0]}
    assert pack_tree(**good).slot_edge.tolist() == [[-1, 0, 1], [-1, -1, -1]]
    for change, message in (
        ({"parent": [0, -1]}, "pre-order"),
        ({"slot_action": [[-1, 0, 2], [-1, -1]]}, "action index"),
        ({"slot_action": [[-1, 0, 1], [-1, 0]]}, "action index"),
        ({"slot_parent": [[-1, 0, 1], [-1, 0]]}, "parent slot"),
        ({"payoffs": [1.0]}, "payoffs"),
        ({"slot_count": [[1, 2], [1, 2]]}, "slot arrays"),
    ):
        with pytest.raises(ValueError, match=message):
            pack_tree(**{**good, **change})
    with pytest.raises(ValueError, match="information sets"):
        PublicTree("bad", pack_tree(**good), ("a", "b"), ((0, 1),) * 2, (("x", "y"),) * 2)

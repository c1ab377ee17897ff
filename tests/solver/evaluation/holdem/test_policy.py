from __future__ import annotations

import math

import numpy as np
import pytest

from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.solve import solve
from solver.engine.compile import compile_game
from solver.evaluation.holdem.baselines import AlwaysCall
from solver.evaluation.holdem.policy import (
    TabularPolicy,
    exact_evaluation,
    parse_public,
    public_key,
    strategy_of,
)
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import HoldemPolicy, hole_combos
from solver.runs.store_solve import solve_and_store


def test_hole_combos(mini: HoldemGame, hulhe: HoldemGame) -> None:
    combos = hole_combos(hulhe.definition)
    assert combos.shape == (1326, 2)
    assert (combos[:, 0] < combos[:, 1]).all()
    assert len({tuple(r) for r in combos.tolist()}) == 1326
    assert hole_combos(mini.definition).shape == (math.comb(8, 2), 2)


def test_public_keys_round_trip(mini: HoldemGame) -> None:
    tree = compile_game(mini)
    publics = {key.partition("|")[2] for key in tree.infoset_keys}
    assert len(publics) > 64
    for public in publics:
        betting, board = parse_public(mini, public)
        assert public_key(mini, betting, board) == public
        assert not betting.over


def test_tabular_policy_plays_the_solved_strategy(mini: HoldemGame) -> None:
    result = solve(mini, target_exploitability=1e-3)
    policy: HoldemPolicy = TabularPolicy.from_strategy(mini, result.tree, result.strategy)
    flat = strategy_of(mini, result.tree, [policy])
    np.testing.assert_array_equal(flat, result.strategy)
    evaluation = exact_evaluation(mini, [policy])
    assert evaluation.exploitability == pytest.approx(result.exploitability, abs=1e-12)
    # The shape of the protocol: (n, 3), zero where illegal, rows summing to one.
    start = Betting.start(mini.definition)
    rows = policy.action_probabilities(start, (), hole_combos(mini.definition))
    assert rows.shape == (28, 3)
    np.testing.assert_allclose(rows.sum(axis=1), 1.0)
    checked = start.apply(1).apply(1)  # the small blind completes, the big blind checks
    rows = policy.action_probabilities(checked, (5,), np.array([[0, 1], [6, 7]]))
    assert rows.shape == (2, 3) and (rows[:, 0] == 0).all()


@pytest.mark.slow
def test_tabular_policy_from_the_store(mini: HoldemGame, tmp_path: object) -> None:
    path = f"{tmp_path}/store.sqlite"
    stored = solve_and_store(mini.name, "dcfr", iterations=50, store_path=path)
    policy = TabularPolicy.from_store(mini, path)
    tree = compile_game(mini)
    evaluation = evaluate_strategy(tree, strategy_of(mini, tree, [policy]))
    assert evaluation.exploitability == pytest.approx(stored.result.exploitability, rel=1e-9)


def test_strategy_of_a_profile_seats_each_policy(mini: HoldemGame,
                                                 solved: TabularPolicy) -> None:
    """Seat 0 solved, seat 1 always-call: the value to seat 0 is positive (always-call is
    exploitable and the solved strategy wins against it) and seat 1's best response value
    is the solved strategy's seat-1 exploitability."""
    profile = exact_evaluation(mini, [solved, AlwaysCall()])
    alone = exact_evaluation(mini, [solved])
    assert profile.value > alone.value + 0.1
    assert profile.best_response_values[1] == pytest.approx(alone.best_response_values[1])


def test_exact_tools_refuse_hulhe(hulhe: HoldemGame) -> None:
    for call in (lambda: TabularPolicy.solved(hulhe), lambda: TabularPolicy.from_store(hulhe),
                 lambda: exact_evaluation(hulhe, [AlwaysCall()])):
        with pytest.raises(ValueError, match=r"3.19e\+14 information sets"):
            call()

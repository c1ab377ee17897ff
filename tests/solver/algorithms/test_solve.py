"""The stopping rules of `solve` and where it measures."""

from __future__ import annotations

import numpy as np

from solver.algorithms.cfr import normalize
from solver.algorithms.solve import (
    CHECK_SHARE,
    SLOW_CHECK,
    checkpoint_after,
    next_checkpoint,
    solve,
)
from solver.games import get_game


def test_fast_checks_keep_the_schedule_of_every_iteration_then_four_percent() -> None:
    assert [checkpoint_after(i) for i in (1, 9, 10, 100, 1000)] == [2, 10, 11, 104, 1040]
    for iteration in (1, 10, 500):
        assert next_checkpoint(iteration, 1.0, [0.001] * 5) == checkpoint_after(iteration)
    # One slow check is not enough: it may be the machine's hiccup, or kernels loading.
    assert next_checkpoint(3, 0.01, [2.0]) == 4
    assert next_checkpoint(30, 0.1, [2.0, 0.001]) == checkpoint_after(30)


def test_slow_checks_wait_until_they_are_a_quarter_of_the_time() -> None:
    # dudo-2v1's figures: an iteration 0.035 s, a check 0.33 s.
    rate, check = 0.035, 0.33
    iteration, checks = 20, [check, check]
    following = next_checkpoint(iteration, iteration * rate, checks)
    assert following > checkpoint_after(iteration)
    solver_seconds = following * rate
    assert sum(checks) / (sum(checks) + solver_seconds) <= CHECK_SHARE + 1e-9
    assert sum(checks) / (sum(checks) + solver_seconds - rate) > CHECK_SHARE  # not later
    # Late in a solve the four-percent schedule is the sparser one again.
    assert next_checkpoint(2000, 2000 * rate, [check] * 40) == checkpoint_after(2000)
    assert SLOW_CHECK > 0.05  # far above the small games' checks (about a millisecond)


def test_a_small_games_solve_checks_on_the_usual_schedule() -> None:
    result = solve(get_game("leduc"), "dcfr", iterations=60)
    iterations = [point.iteration for point in result.trace]
    expected = [1]
    while expected[-1] < 60:
        expected.append(min(checkpoint_after(expected[-1]), 60))
    assert iterations == expected


def test_normalize_divides_each_information_set_by_its_total() -> None:
    tree = solve(get_game("kuhn"), "cfr", iterations=1).tree
    rng = np.random.default_rng(1)
    weights = rng.random(tree.num_regrets)
    offsets = tree.infoset_regret_offset
    weights[offsets[0]:offsets[1]] = 0.0  # an information set never reached: uniform
    strategy = normalize(tree, weights)
    for i in range(len(offsets) - 1):
        row, got = weights[offsets[i]:offsets[i + 1]], strategy[offsets[i]:offsets[i + 1]]
        expected = row / row.sum() if row.sum() > 0 else np.full(len(row), 1 / len(row))
        np.testing.assert_allclose(got, expected, rtol=1e-15, atol=0)

"""Regret matching in self-play on rock-paper-scissors."""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms import reference
from solver.algorithms.regret_matching import regret_matching, regret_matching_strategy
from solver.games import get_game
from solver.games.rps import rps_matrix, rps_policy

ROW_START = np.array([0.7, 0.2, 0.1])
COL_START = np.array([0.1, 0.1, 0.8])


def test_rps_matrix_is_zero_sum_and_matches_the_game() -> None:
    m = rps_matrix()
    assert np.allclose(m, -m.T)
    game = get_game("rps")
    for a in range(3):
        for b in range(3):
            state = game.initial_state().apply_action(a).apply_action(b)
            assert state.returns()[0] == m[a, b]


def test_strategy_from_regrets() -> None:
    assert regret_matching_strategy(np.array([1.0, -2.0, 3.0])) == pytest.approx([0.25, 0, 0.75])
    assert regret_matching_strategy(np.array([-1.0, 0.0, -3.0])) == pytest.approx([1 / 3] * 3)


def test_converges_to_uniform() -> None:
    row, col = regret_matching(rps_matrix(), 20_000, row_start=ROW_START, col_start=COL_START)
    assert row == pytest.approx([1 / 3] * 3, abs=1e-2)
    assert col == pytest.approx([1 / 3] * 3, abs=1e-2)
    assert row.sum() == pytest.approx(1.0)


def test_exploitability_decreases() -> None:
    game = get_game("rps")
    start = reference.exploitability(game, rps_policy(ROW_START, COL_START))
    values = []
    for iterations in (10, 100, 1_000, 10_000, 40_000):
        row, col = regret_matching(
            rps_matrix(), iterations, row_start=ROW_START, col_start=COL_START
        )
        values.append(reference.exploitability(game, rps_policy(row, col)))
    assert start > 0.3
    assert values[-1] < 1e-2
    assert values == sorted(values, reverse=True)
    assert values[0] < start


def test_bad_start_rejected() -> None:
    with pytest.raises(ValueError, match="distribution"):
        regret_matching(rps_matrix(), 10, row_start=np.array([0.5, 0.5, 0.5]))

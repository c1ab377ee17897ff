"""Regret matching (Hart & Mas-Colell 2000) in self-play on a two-player zero-sum matrix game.

Each iteration both players play their current strategies at once; each adds to its cumulative
regret of every pure action the gain it would have had by playing that action instead, and next
plays the positive part of its cumulative regrets, normalised (uniform if none is positive).
In a zero-sum game the *average* strategies converge to a Nash equilibrium at rate O(1/√T).
"""

from __future__ import annotations

import numpy as np

ROCK, PAPER, SCISSORS = 0, 1, 2


def rps_matrix() -> np.ndarray:
    """Rock-paper-scissors payoffs of the row player (actions rock, paper, scissors)."""
    return np.array(
        [
            [0.0, -1.0, 1.0],  # rock: loses to paper, beats scissors
            [1.0, 0.0, -1.0],  # paper: beats rock, loses to scissors
            [-1.0, 1.0, 0.0],  # scissors: loses to rock, beats paper
        ]
    )


def regret_matching_strategy(regrets: np.ndarray) -> np.ndarray:
    """Positive regrets normalised; uniform when no regret is positive."""
    positive = np.maximum(regrets, 0.0)
    total = positive.sum()
    if total > 0.0:
        return positive / total
    return np.full(len(regrets), 1.0 / len(regrets))


def regret_matching(
    payoff_matrix: np.ndarray,
    iterations: int,
    *,
    row_start: np.ndarray | None = None,
    col_start: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Average strategies (row, column) after `iterations` of simultaneous regret matching.

    `payoff_matrix[i, j]` is the row player's payoff (the column player gets its negative).
    The first iteration plays `row_start` / `col_start` (default: uniform), later ones the
    regret-matching strategies; the averages weight every iteration equally.
    """
    m = np.asarray(payoff_matrix, dtype=float)
    if m.ndim != 2:
        raise ValueError("payoff_matrix must be two-dimensional")
    if iterations < 1:
        raise ValueError("iterations must be positive")
    rows, cols = m.shape
    row = _start(row_start, rows)
    col = _start(col_start, cols)
    row_regret = np.zeros(rows)
    col_regret = np.zeros(cols)
    row_sum = np.zeros(rows)
    col_sum = np.zeros(cols)
    for _ in range(iterations):
        row_sum += row
        col_sum += col
        row_action_values = m @ col  # row player's payoff of each pure action
        col_action_values = -(row @ m)  # column player's payoff of each pure action
        row_regret += row_action_values - row @ row_action_values
        col_regret += col_action_values - col @ col_action_values
        row = regret_matching_strategy(row_regret)
        col = regret_matching_strategy(col_regret)
    return row_sum / iterations, col_sum / iterations


def _start(start: np.ndarray | None, n: int) -> np.ndarray:
    if start is None:
        return np.full(n, 1.0 / n)
    s = np.asarray(start, dtype=float)
    if s.shape != (n,) or s.min() < 0.0 or abs(s.sum() - 1.0) > 1e-9:
        raise ValueError(f"start strategy must be a distribution over {n} actions, got {start}")
    return s


def rps_policy(row: np.ndarray, col: np.ndarray) -> dict[str, dict[int, float]]:
    """A `Policy` for the "rps" game: infoset "P1" for the first player, "P2" for the second."""
    return {
        "P1": {a: float(p) for a, p in enumerate(row)},
        "P2": {a: float(p) for a, p in enumerate(col)},
    }

"""Regret matching (Hart & Mas-Colell 2000) in self-play on a two-player zero-sum matrix game.

Each iteration both players play their current strategies at once; each adds to its cumulative
regret of every pure action the gain it would have had by playing that action instead, and next
plays the positive part of its cumulative regrets, normalised (uniform if none is positive).
In a zero-sum game the *average* strategies converge to a Nash equilibrium at rate O(1/√T).
"""

from __future__ import annotations

import numpy as np

from solver.engine import kernels


def regret_matching_strategy(regrets: np.ndarray) -> np.ndarray:
    """Positive regrets normalised; uniform when no regret is positive (the CFR kernels' rule,
    `solver.engine.kernels.regret_matching`, on one row)."""
    regrets = np.asarray(regrets, dtype=np.float64)
    strategy = np.empty(len(regrets))
    kernels.regret_matching(regrets, 0, len(regrets), strategy, 0)
    return strategy


class RegretMatchingSolver:
    """Simultaneous regret matching on a matrix game, one iteration at a time.

    The first iteration plays `row_start` / `col_start` (default: uniform), later ones the
    regret-matching strategies; the averages weight every iteration equally.

    Example::

        from solver.algorithms.regret_matching import RegretMatchingSolver
        from solver.games.rps import rps_matrix

        solver = RegretMatchingSolver(rps_matrix())
        solver.iterate(20_000)
        row, column = solver.averages()      # both near (1/3, 1/3, 1/3)
    """

    def __init__(self, payoff_matrix: np.ndarray, row_start: np.ndarray | None = None,
                 col_start: np.ndarray | None = None) -> None:
        self.matrix = np.asarray(payoff_matrix, dtype=float)
        if self.matrix.ndim != 2:
            raise ValueError("payoff_matrix must be two-dimensional")
        rows, cols = self.matrix.shape
        self.row, self.col = _start(row_start, rows), _start(col_start, cols)
        self.row_regret, self.col_regret = np.zeros(rows), np.zeros(cols)
        self.row_sum, self.col_sum = np.zeros(rows), np.zeros(cols)
        self.iterations = 0

    def iterate(self, iterations: int = 1) -> None:
        m = self.matrix
        for _ in range(iterations):
            self.iterations += 1
            self.row_sum += self.row
            self.col_sum += self.col
            row_action_values = m @ self.col  # row player's payoff of each pure action
            col_action_values = -(self.row @ m)  # column player's payoff of each pure action
            self.row_regret += row_action_values - self.row @ row_action_values
            self.col_regret += col_action_values - self.col @ col_action_values
            self.row = regret_matching_strategy(self.row_regret)
            self.col = regret_matching_strategy(self.col_regret)

    def averages(self) -> tuple[np.ndarray, np.ndarray]:
        return self.row_sum / self.iterations, self.col_sum / self.iterations

    def average_strategy(self) -> np.ndarray:
        """Both averages concatenated: the flat layout of the compiled tree of a game that is
        one simultaneous move (`solver.games.base.MatrixGame`): the first player's information
        set, then the second's."""
        return np.concatenate(self.averages())


def regret_matching(
    payoff_matrix: np.ndarray,
    iterations: int,
    *,
    row_start: np.ndarray | None = None,
    col_start: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Average strategies (row, column) after `iterations` of simultaneous regret matching.

    `payoff_matrix[i, j]` is the row player's payoff (the column player gets its negative).
    """
    if iterations < 1:
        raise ValueError("iterations must be positive")
    solver = RegretMatchingSolver(payoff_matrix, row_start, col_start)
    solver.iterate(iterations)
    return solver.averages()


def _start(start: np.ndarray | None, n: int) -> np.ndarray:
    if start is None:
        return np.full(n, 1.0 / n)
    s = np.asarray(start, dtype=float)
    if s.shape != (n,) or s.min() < 0.0 or abs(s.sum() - 1.0) > 1e-9:
        raise ValueError(f"start strategy must be a distribution over {n} actions, got {start}")
    return s

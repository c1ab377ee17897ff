"""The full-width CFR family on a compiled public tree.

Every member is the same loop — a top-down reach pass, then a bottom-up pass that updates one
player's regrets and its next strategy by regret matching, players alternating (Burch et al.
showed alternation converges faster; OpenSpiel does the same) — and differs only in how it
weighs the past.  A `Schedule` says how:

* vanilla CFR (Zinkevich et al. 2007): plain sums;
* CFR+ (Tammelin 2014): regrets floored at zero, average weighted by t;
* Linear CFR (Brown & Sandholm 2019): regrets and average both weighted by t;
* Discounted CFR (Brown & Sandholm 2019), alpha = 1.5, beta = 0, gamma = 2: positive regrets
  scaled by t^a / (t^a + 1), negative ones by t^b / (t^b + 1), the average by (t / (t + 1))^g;
* predictive CFR+ (Farina, Kroer & Sandholm 2021): CFR+ that matches on regret plus the last
  instantaneous regret (an optimistic guess of the next one), average weighted by t^2.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from solver.engine import kernels
from solver.engine.compile import compile_game
from solver.engine.pruning import (
    PruneState,
    prune_state,
    pruned_iterations_for,
    settle,
    settled_average,
    uniform_width,
)
from solver.engine.tree import PublicTree
from solver.games.base import Game


@dataclass(frozen=True, slots=True)
class Schedule:
    """How one CFR variant weighs iteration `t` (1-based)."""

    name: str
    title: str
    floor: bool = False
    predictive: bool = False
    linear: bool = False  # Linear CFR
    alpha: float | None = None  # Discounted CFR's exponents
    beta: float = 0.0
    gamma: float = 2.0
    average_power: float = 0.0  # average weight t**average_power (CFR+ 1, predictive CFR+ 2)

    def discounts(self, t: int) -> tuple[float, float, float, float]:
        """(positive regret discount, negative regret discount, average discount, weight),
        applied to what was accumulated before iteration `t` and to iteration `t`'s terms."""
        if self.linear and t > 1:
            keep = (t - 1) / t
            return keep, keep, keep, 1.0
        if self.alpha is not None and t > 1:
            pos = (t - 1) ** self.alpha / ((t - 1) ** self.alpha + 1)
            neg = (t - 1) ** self.beta / ((t - 1) ** self.beta + 1)
            return pos, neg, ((t - 1) / t) ** self.gamma, 1.0
        return 1.0, 1.0, 1.0, float(t) ** self.average_power

    def summed(self, t: int) -> tuple[float, float, float, float]:
        """`discounts`, with the average kept as a plain sum of growing weights (average
        discount 1): the same average once normalised, since discounting everything before `t`
        by d(t) equals weighing `t` by 1 / (d(2) ... d(t)) (Discounted CFR's (t-1)/t to the
        gamma: weight t^gamma; Linear CFR's (t-1)/t: weight t).  The kernels then leave an
        average entry alone where the traverser's reach is zero."""
        positive, negative, _, weight = self.discounts(t)
        if self.linear:
            return positive, negative, 1.0, float(t)
        if self.alpha is not None:
            return positive, negative, 1.0, float(t) ** self.gamma
        return positive, negative, 1.0, weight


SCHEDULES = {
    s.name: s
    for s in (
        Schedule("cfr", "vanilla CFR"),
        Schedule("cfr+", "CFR+", floor=True, average_power=1.0),
        Schedule("lcfr", "Linear CFR", linear=True),
        Schedule("dcfr", "Discounted CFR (1.5, 0, 2)", alpha=1.5),
        Schedule("pcfr+", "predictive CFR+", floor=True, predictive=True,
                 average_power=2.0),
        Schedule("pdcfr+", "predictive discounted CFR+ (2.3, -, 5)",
                 floor=True, predictive=True, alpha=2.3, gamma=5.0),
    )
}


_BLOCK = 64
"""Iterations per kernel call: enough to make the call's cost vanish, few enough that Ctrl-C
(seen between calls) stops a Dudo solve within a tenth of a second."""


def normalize(tree: PublicTree, weights: np.ndarray) -> np.ndarray:
    """Behaviour strategy from per-(infoset, action) weights; uniform where all are zero."""
    out = np.empty(len(weights), np.float64)
    kernels.normalized(tree.infoset_regret_offset, weights, out)
    return out


def check_pruning(schedule: Schedule, pruning: bool) -> None:
    """Pruning (`solver.engine.pruning`) keeps a schedule's iterates unless it is predictive."""
    if pruning and schedule.predictive:
        raise ValueError(f"{schedule.name} matches on the last instantaneous regret, which "
                         f"pruning would zero: prune cfr, cfr+, lcfr or dcfr")


def pruning_state(tree: PublicTree, pruning: bool) -> PruneState:
    """A fresh `solver.engine.pruning.PruneState` for `tree` (empty arrays without pruning)."""
    if pruning:
        return prune_state(tree.arrays)
    none = np.zeros(0, np.int64)
    return PruneState(none, none, none, np.zeros((2, 0), np.int64), np.zeros((2, 0, 3)),
                      np.zeros((2, 0)), np.zeros((2, 0), np.int64), none, none)


def average_of(tree: PublicTree, pruning: bool, state: PruneState, strategy: np.ndarray,
               average: np.ndarray) -> np.ndarray:
    """A solver's average strategy; with pruning, from `solver.engine.pruning.settled_average`,
    which leaves the solver owing what it owed: reading the average settles nothing."""
    if pruning:
        average = settled_average(tree.arrays, state, strategy, average)
    return normalize(tree, average)


class CFRSolver:
    """Runs one schedule of the CFR family on a game's public tree (a `Game` is compiled).

    Example::

        from solver.algorithms.cfr import CFRSolver
        from solver.algorithms.exploitability import evaluate_strategy
        from solver.games import get_game

        solver = CFRSolver(get_game("kuhn"), "dcfr")
        solver.iterate(1000)
        evaluate_strategy(solver.tree, solver.average_strategy()).exploitability  # about 1.5e-4
    """

    def __init__(self, game: PublicTree | Game, algorithm: str = "dcfr", *,
                 pruning: bool = False) -> None:
        if algorithm not in SCHEDULES:
            raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(SCHEDULES)}")
        self.tree = game if isinstance(game, PublicTree) else compile_game(game)
        self.schedule = SCHEDULES[algorithm]
        check_pruning(self.schedule, pruning)
        self.pruning = pruning
        self._prune = pruning_state(self.tree, pruning)
        self._order = np.zeros(self.tree.num_nodes if pruning else 0, np.int64)
        self._pruned_iterations = (
            pruned_iterations_for(uniform_width(self.tree.arrays),
                                  bool((self._prune.folded >= 0).any()))
            if pruning else None)
        self.iterations = 0
        size = self.tree.num_regrets
        self.regrets = np.zeros(size)
        self.average = np.zeros(size)
        self.strategy = np.zeros(size)
        self.last_regrets = np.zeros(size) if self.schedule.predictive else kernels.empty()
        self._action_values = np.zeros(size)
        kernels.current_strategy(self.tree.arrays, self.regrets, self.strategy)
        self._reach = (np.zeros(self.tree.num_slots(0)), np.zeros(self.tree.num_slots(1)))
        self._values = (np.zeros(self.tree.num_slots(0)), np.zeros(self.tree.num_slots(1)))
        kernels.reach_probabilities(self.tree.arrays, 0, self.strategy, self._reach[0])

    def iterate(self, iterations: int = 1, callback: Callable[[int], None] | None = None) -> None:
        """Run `iterations` more iterations; `callback(i)` after each."""
        done = 0
        while done < iterations:
            block = 1 if callback is not None else min(iterations - done, _BLOCK)
            self._run(np.array([self.schedule.summed(self.iterations + 1 + i)
                                for i in range(block)]))
            self.iterations += block
            done += block
            if callback is not None:
                callback(done - 1)

    def warm_up(self) -> None:
        """Compile this solver's kernel (or load it from numba's disk cache) without iterating:
        the pruned one is compiled per tree shape (`pruned_iterations_for`), which a warm-up on
        another tree does not reach."""
        self._run(np.zeros((0, 4)))

    def _run(self, discounts: np.ndarray) -> None:
        """One iteration per row of `discounts` in one kernel call."""
        if self._pruned_iterations is not None:
            self._pruned_iterations(self.tree.arrays, self._prune, self.strategy, self._reach,
                                    self._values, self._action_values, self.regrets,
                                    self.average, self.schedule.floor, discounts, self._order)
        else:
            kernels.cfr_iterations(self.tree.arrays, self.strategy, self._reach, self._values,
                                   self._action_values, self.regrets, self.average,
                                   self.schedule.floor, discounts, self.last_regrets)

    def settle(self) -> None:
        """Bring the regrets and the average up to date where pruning left them owing (the
        strategy is always current)."""
        if self.pruning:
            settle(self.tree.arrays, self._prune, self.strategy, self.regrets, self.average)

    def average_strategy(self) -> np.ndarray:
        """The average strategy as a flat (infoset, action) array (see `average_of`)."""
        return average_of(self.tree, self.pruning, self._prune, self.strategy, self.average)

    def current_strategy(self) -> np.ndarray:
        return normalize(self.tree, self.strategy)

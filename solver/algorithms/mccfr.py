"""Monte Carlo CFR (Lanctot, Waugh, Zinkevich & Bowling 2009) on a compiled history tree.

Both algorithms keep their regrets and average strategy in the flat (infoset, action) layout of
the public tree, exactly like `CFRSolver`, so `average_strategy()` can be handed straight to
`evaluate_strategy`.  The iterations are numba kernels over `HistoryTree`'s arrays with an
explicit stack and their own random number generator (splitmix64, seeded from `seed` and kept
in the solver, so a run is reproducible and ``iterate(a); iterate(b)`` equals ``iterate(a + b)``).

One *iteration* updates both players, one after the other (alternating updates):

* **External sampling** (``"es-mccfr"``).  For each traverser in turn, one walk samples every
  chance outcome and every opponent action (from the opponent's current strategy) and explores
  all of the traverser's actions; the traverser's regrets get the sampled counterfactual
  regrets, and its next strategy is regret matching.  The average strategy is accumulated at the
  *opponent's* nodes, adding the opponent's current strategy with weight 1 ("stochastically
  weighted averaging", OpenSpiel's default): such a node is reached with probability chance
  reach x the opponent's own reach, since the traverser explores everything, so in expectation
  each information set gets its owner's reach-weighted strategy (times a per-information-set
  constant that normalisation removes) — the same average full-width CFR would keep.
* **Outcome sampling** (``"os-mccfr"``).  For each traverser in turn one trajectory is sampled:
  chance and the opponent follow their distributions, the traverser an epsilon-greedy mix
  ``epsilon x uniform + (1 - epsilon) x current strategy`` (epsilon 0.6).  Walking back up, the
  terminal payoff is importance-weighted by the *tail* ratio ``pi(h, z) / q(h, z)`` of the
  trajectory below each traverser node h, and the regret estimate there is ``W x (v(a) - v)``
  with ``W = 1 / q_traverser(h)`` (the opponent's and chance's reach cancel with their sampling
  probabilities), ``v(a) = tail value / q(a)`` for the sampled action and 0 for the others,
  ``v = sum_a strategy(a) v(a)``.  The average strategy is accumulated, as in external
  sampling, at the *opponent's* nodes of the trajectory (which it samples on-policy): the
  opponent's current strategy times ``1 / q_traverser(h)``.  Such a node is sampled with
  probability chance reach x opponent's reach x ``q_traverser(h)``, so the increment is an
  unbiased estimate of the opponent's reach-weighted strategy up to a per-information-set
  constant.  OpenSpiel instead updates at the traverser's own nodes with ``own reach / whole
  sampling reach of h``; dividing by the opponent's and chance's reach makes that much noisier,
  and in 6-10 s runs it ended about twice as exploitable on both Leduc and Dudo.

Averaging weights: plain sums (every iteration weighs 1), as in the paper.  ``linear_average``
multiplies iteration ``t``'s average-strategy increments by ``t`` (Linear CFR's averaging).  With
sampled, noisy current strategies the later iterations then dominate and less of the sampling
noise averages out: over 10 s it left Leduc 2-6x and Dudo ES 2x more exploitable (Dudo OS about
the same), so it is off by default.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit

from solver.algorithms.cfr import normalize
from solver.engine import kernels
from solver.engine.compile import compile_game
from solver.engine.history_tree import HistoryTree, compile_history_tree
from solver.engine.node_kinds import CHANCE_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree
from solver.games.base import Game

ALGORITHMS: dict[str, str] = {
    "es-mccfr": "external-sampling MCCFR",
    "os-mccfr": "outcome-sampling MCCFR",
}

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_S11, _S27, _S30, _S31 = np.uint64(11), np.uint64(27), np.uint64(30), np.uint64(31)
_TO_UNIT = 1.0 / 9007199254740992.0  # 2**-53


@njit(cache=True)
def _uniform(rng):
    """A uniform double in [0, 1) from the splitmix64 generator whose state is ``rng[0]``."""
    z = rng[0] + _GOLDEN
    rng[0] = z
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    z = z ^ (z >> _S31)
    return float(z >> _S11) * _TO_UNIT


@njit(cache=True)
def _sample(probabilities, first, count, u):
    """Index k < count with probability ``probabilities[first + k]`` (they sum to 1) for the
    uniform draw `u`; rounding never returns a zero-probability index."""
    acc = 0.0
    last = 0
    for k in range(count):
        p = probabilities[first + k]
        if p > 0.0:
            acc += p
            last = k
            if u < acc:
                return k
    return last


@njit(cache=True)
def external_sampling(kind, player, first_child, num_children, probability, payoff, node_base,
                      regrets, average, rng, iterations, start, linear_average, max_depth,
                      max_children):
    """`iterations` ES-MCCFR iterations after `start` earlier ones (see the module docstring).

    ``node_base[n]`` is the first flat (infoset, action) index of decision node `n`."""
    stack_node = np.empty(max_depth + 1, np.int64)
    stack_pos = np.empty(max_depth + 1, np.int64)
    sigma = np.empty((max_depth + 1, max_children))
    values = np.empty((max_depth + 1, max_children))
    for it in range(iterations):
        weight = float(start + it + 1) if linear_average else 1.0
        for traverser in range(2):
            sign = 1.0 if traverser == 0 else -1.0
            d = 0
            stack_node[0] = 0
            stack_pos[0] = -1
            ret = 0.0
            while d >= 0:
                n = stack_node[d]
                pos = stack_pos[d]
                first = first_child[n]
                count = num_children[n]
                if pos < 0:  # entering node n
                    k = kind[n]
                    if k == TERMINAL_NODE:
                        ret = sign * payoff[n]
                        d -= 1
                        continue
                    if k == CHANCE_NODE:  # sampled: the frame becomes the child's
                        stack_node[d] = first + _sample(probability, first, count, _uniform(rng))
                        continue
                    base = node_base[n]
                    row = sigma[d]
                    kernels.regret_matching(regrets, base, count, row, 0)
                    if player[n] != traverser:  # opponent: average, then sample one action
                        for a in range(count):
                            average[base + a] += weight * row[a]
                        stack_node[d] = first + _sample(row, 0, count, _uniform(rng))
                        continue
                    pos = 0  # the traverser explores every action
                else:  # back from child `pos`, whose value is `ret`
                    values[d, pos] = ret
                    pos += 1
                while pos < count and kind[first + pos] == TERMINAL_NODE:  # no frame needed
                    values[d, pos] = sign * payoff[first + pos]
                    pos += 1
                if pos < count:
                    stack_pos[d] = pos
                    d += 1
                    stack_node[d] = first + pos
                    stack_pos[d] = -1
                    continue
                base = node_base[n]
                v = 0.0
                for a in range(count):
                    v += sigma[d, a] * values[d, a]
                for a in range(count):
                    regrets[base + a] += values[d, a] - v
                ret = v
                d -= 1


@njit(cache=True)
def outcome_sampling(kind, player, first_child, num_children, probability, payoff, node_base,
                     regrets, average, rng, iterations, start, linear_average, epsilon, max_depth,
                     max_children):
    """`iterations` OS-MCCFR iterations after `start` earlier ones (see the module docstring)."""
    path_node = np.empty(max_depth + 1, np.int64)  # the traverser's nodes on the trajectory
    path_action = np.empty(max_depth + 1, np.int64)
    path_q = np.empty(max_depth + 1)  # sampling probability of the action taken
    path_w = np.empty(max_depth + 1)  # 1 / traverser's sampling reach of the node
    sigma = np.empty((max_depth + 1, max_children))
    row = np.empty(max_children)
    for it in range(iterations):
        weight = float(start + it + 1) if linear_average else 1.0
        for traverser in range(2):
            n = 0
            length = 0
            own_q = 1.0  # the traverser's sampling reach
            while kind[n] != TERMINAL_NODE:
                first = first_child[n]
                count = num_children[n]
                u = _uniform(rng)
                if kind[n] == CHANCE_NODE:
                    n = first + _sample(probability, first, count, u)
                    continue
                base = node_base[n]
                if player[n] != traverser:  # on-policy; the average lives here
                    kernels.regret_matching(regrets, base, count, row, 0)
                    g = weight / own_q
                    for a in range(count):
                        average[base + a] += g * row[a]
                    n = first + _sample(row, 0, count, u)
                    continue
                current = sigma[length]
                kernels.regret_matching(regrets, base, count, current, 0)
                explore = epsilon / count
                acc = 0.0
                c = count - 1
                for a in range(count):
                    acc += explore + (1.0 - epsilon) * current[a]
                    if u < acc:
                        c = a
                        break
                q = explore + (1.0 - epsilon) * current[c]
                path_node[length] = n
                path_action[length] = c
                path_q[length] = q
                path_w[length] = 1.0 / own_q
                length += 1
                own_q *= q
                n = first + c
            # Walk back up the traverser's nodes; `value` is the terminal payoff times the
            # importance ratio pi / q of the tail below the node being updated.
            value = payoff[n] if traverser == 0 else -payoff[n]
            for i in range(length - 1, -1, -1):
                n = path_node[i]
                base = node_base[n]
                c = path_action[i]
                child = value / path_q[i]
                value = sigma[i, c] * child
                w = path_w[i]
                for a in range(num_children[n]):
                    regrets[base + a] -= w * value
                regrets[base + c] += w * child


class MCCFRSolver:
    """Runs ES-MCCFR or OS-MCCFR on a game; the same interface as `CFRSolver`.

    Example::

        from solver.algorithms.exploitability import evaluate_strategy
        from solver.algorithms.mccfr import MCCFRSolver
        from solver.games import get_game

        solver = MCCFRSolver(get_game("leduc"), "es-mccfr", seed=0)
        solver.iterate(10_000)
        evaluate_strategy(solver.tree, solver.average_strategy()).exploitability
    """

    def __init__(self, game: Game, algorithm: str = "es-mccfr", seed: int = 0,
                 *, epsilon: float = 0.6, linear_average: bool = False) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; known: {', '.join(ALGORITHMS)}")
        self.tree: PublicTree = compile_game(game)
        self.history: HistoryTree = compile_history_tree(game)
        if self.history.num_infosets != self.tree.num_infosets:
            raise ValueError(f"{self.tree.game}: history tree and public tree disagree")
        self.algorithm = algorithm
        self.seed = seed
        self.epsilon = epsilon
        self.linear_average = linear_average
        self.iterations = 0
        size = self.tree.num_regrets
        self.regrets = np.zeros(size)
        self.average = np.zeros(size)
        offsets = self.tree.infoset_regret_offset
        h = self.history
        self._node_base = np.where(h.infoset >= 0, offsets[np.maximum(h.infoset, 0)], -1)
        self._rng = np.array([seed % 2**64], dtype=np.uint64)  # splitmix64 state

    def iterate(self, iterations: int = 1, callback: Callable[[int], None] | None = None) -> None:
        """Run `iterations` more iterations; `callback(i)` after each."""
        if callback is None:
            self._run(iterations)
            return
        for i in range(iterations):
            self._run(1)
            callback(i)

    def _run(self, iterations: int) -> None:
        if iterations <= 0:
            return
        h = self.history
        arrays = (h.kind, h.player, h.first_child, h.num_children, h.probability, h.payoff,
                  self._node_base, self.regrets, self.average, self._rng, iterations,
                  self.iterations, self.linear_average)
        if self.algorithm == "es-mccfr":
            external_sampling(*arrays, h.max_depth, h.max_children)
        else:
            outcome_sampling(*arrays, self.epsilon, h.max_depth, h.max_children)
        self.iterations += iterations

    def average_strategy(self) -> np.ndarray:
        """The average strategy as a flat (infoset, action) array."""
        return normalize(self.tree, self.average)

    def current_strategy(self) -> np.ndarray:
        """Regret matching on the cumulative regrets (uniform where none is positive)."""
        strategy = np.empty_like(self.regrets)
        kernels.current_strategy(self.tree.arrays, self.regrets, strategy)
        return strategy

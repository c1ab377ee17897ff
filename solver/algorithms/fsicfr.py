"""Fixed-strategy iteration CFR (Neller & Hnath 2011) over the graph of an imperfect-recall
abstraction, full width over both players' private states.

Forgetting all but the last few moves merges histories: the abstract game is a directed acyclic
graph whose node is "who moves, and what they remember".  Recursive CFR visits a merged node
once per path into it, exponentially often; FSICFR holds every strategy fixed for an iteration
and visits each node once, in topological order: a forward pass sums each player's reach over
all paths into a node, a backward pass computes each node's values from its children's and
updates the regrets of every information set.

Both passes are exact for the abstract game: the future below a node depends on the node only
(the same bids stay legal, the same calls pay the same), so a node's value is a function of the
two players' private states alone, the *utility matrix* ``U[node, s0, s1]`` (player 0's payoff
when the players hold private states s0 and s1, chance left out).  A player's counterfactual
value at a node is that matrix against the other's reach summed over every path in (times the
chance of the private states): the sum of CFR's per-history terms, which is what CFR with
imperfect recall adds up at an abstract information set.  The average strategy weighs by the
player's own reach, summed the same way.  Memory is one matrix per node, time one matrix
operation per edge: small rounds and short memories only, which is what this is for.

The graph comes as a `Graph` of arrays (`solver.abstractions.dudo_recall` builds Dudo's);
information sets are *rows*, contiguous (private state, action) blocks of the regret arrays, and two
nodes may share a block (a position both players reach with the same memory).  Regret matching is
`solver.engine.kernels`'s; the schedules are `solver.algorithms.cfr`'s (not the predictive ones),
applied to the players in turn (alternating updates converge far faster here, as in the tree
kernels).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.algorithms.cfr import SCHEDULES, Schedule
from solver.engine.kernels import regret_matching

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


class Graph(NamedTuple):
    """An abstract game's graph in topological order (root 0, every edge to a later node)."""

    actor: IntArray  # per node: the player to move (0 or 1)
    num_actions: IntArray  # per node
    row: IntArray  # per node: regret index of its (private state 0, action 0)
    edge_start: IntArray  # per node: its first edge; its edges follow in action order
    child: IntArray  # per edge: the node it leads to, -1 if it ends the game
    payoff: IntArray  # per edge ending the game: its matrix in `payoffs`, else -1
    payoffs: FloatArray  # (matrices, states of player 0, of player 1): player 0's payoff
    chance0: FloatArray  # per private state of player 0: its probability
    chance1: FloatArray
    blocks: IntArray  # (rows, 4): the regret blocks (first index, private states, actions,
    # the players whose nodes use it: 1 player 0, 2 player 1, 3 both)


@njit(cache=True)
def forward(graph, strategy, reach0, reach1):
    """Each player's reach at every node, summed over every path into it."""
    reach0[:] = 0.0
    reach1[:] = 0.0
    reach0[0, :] = 1.0
    reach1[0, :] = 1.0
    n0 = reach0.shape[1]
    n1 = reach1.shape[1]
    for k in range(graph.actor.shape[0]):
        count = graph.num_actions[k]
        base = graph.row[k]
        for a in range(count):
            c = graph.child[graph.edge_start[k] + a]
            if c < 0:
                continue
            if graph.actor[k] == 0:
                for s in range(n0):
                    reach0[c, s] += reach0[k, s] * strategy[base + s * count + a]
                for t in range(n1):
                    reach1[c, t] += reach1[k, t]
            else:
                for s in range(n0):
                    reach0[c, s] += reach0[k, s]
                for t in range(n1):
                    reach1[c, t] += reach1[k, t] * strategy[base + t * count + a]


@njit(cache=True)
def backward(graph, player, strategy, reach0, reach1, utility, regret_delta, average_delta,
             action_values, weights, column):
    """Utility matrices bottom-up, and at every node where `player` moves its instantaneous
    regrets and reach-weighted strategy added to its block's `regret_delta` and
    `average_delta`.  Returns player 0's expected payoff.  `action_values`, `weights` and
    `column` are scratch."""
    regret_delta[:] = 0.0
    average_delta[:] = 0.0
    n0 = reach0.shape[1]
    n1 = reach1.shape[1]
    for k in range(graph.actor.shape[0] - 1, -1, -1):
        count = graph.num_actions[k]
        base = graph.row[k]
        u = utility[k]
        u[:, :] = 0.0
        mover = graph.actor[k]
        if mover == 0:
            for t in range(n1):
                weights[t] = graph.chance1[t] * reach1[k, t]
        else:
            for s in range(n0):
                weights[s] = graph.chance0[s] * reach0[k, s]
        for a in range(count):
            e = graph.edge_start[k] + a
            c = graph.child[e]
            m = utility[c] if c >= 0 else graph.payoffs[graph.payoff[e]]
            if mover == 0:
                for s in range(n0):
                    p = strategy[base + s * count + a]
                    total = 0.0
                    for t in range(n1):
                        x = m[s, t]
                        total += x * weights[t]
                        u[s, t] += p * x
                    action_values[s * count + a] = graph.chance0[s] * total
            else:
                for t in range(n1):
                    column[t] = 0.0
                for s in range(n0):
                    w = weights[s]
                    for t in range(n1):
                        x = m[s, t]
                        column[t] += x * w
                        u[s, t] += strategy[base + t * count + a] * x
                for t in range(n1):
                    action_values[t * count + a] = -graph.chance1[t] * column[t]
        if mover != player:
            continue
        states = n0 if mover == 0 else n1
        for j in range(states):
            own = reach0[k, j] if mover == 0 else reach1[k, j]
            v = 0.0
            for a in range(count):
                v += strategy[base + j * count + a] * action_values[j * count + a]
            for a in range(count):
                i = base + j * count + a
                regret_delta[i] += action_values[j * count + a] - v
                average_delta[i] += own * strategy[i]
    value = 0.0
    for s in range(n0):
        for t in range(n1):
            value += graph.chance0[s] * graph.chance1[t] * utility[0][s, t]
    return value


@njit(cache=True)
def apply_update(graph, player, strategy, regrets, average, regret_delta, average_delta,
                 positive_discount, negative_discount, floor, average_discount, average_weight):
    """`player`'s half of an iteration on its blocks: discount (a block both players use, once
    an iteration: in player 0's half), add the half's terms, match the regrets."""
    for b in range(graph.blocks.shape[0]):
        first, states, count, users = (graph.blocks[b, 0], graph.blocks[b, 1],
                                       graph.blocks[b, 2], graph.blocks[b, 3])
        if not users & (1 << player):
            continue
        discount = player == 0 or users == 2
        for i in range(first, first + states * count):
            r = regrets[i]
            if discount:
                r = r * positive_discount if r > 0.0 else r * negative_discount
                average[i] *= average_discount
            r += regret_delta[i]
            if floor and r < 0.0:
                r = 0.0
            regrets[i] = r
            average[i] += average_weight * average_delta[i]
        for j in range(states):
            regret_matching(regrets, first + j * count, count, strategy, first + j * count)


class FSICFRSolver:
    """FSICFR on a `Graph` under one of `solver.algorithms.cfr`'s schedules (default: discounted
    CFR).

    Example::

        from solver.abstractions.dudo_recall.graph import recall_graph
        from solver.algorithms.fsicfr import FSICFRSolver
        from solver.games.dudo.rules import DudoRules

        solver = FSICFRSolver(recall_graph(DudoRules(), memory=3).graph, "dcfr")
        solver.iterate(1000)
        solver.evaluate(solver.average_strategy())   # player 0's value in the abstract game
    """

    def __init__(self, graph: Graph, algorithm: str = "dcfr") -> None:
        schedule = SCHEDULES.get(algorithm)
        if schedule is None or schedule.predictive:
            raise ValueError(f"FSICFR runs cfr, cfr+, lcfr or dcfr, not {algorithm!r}")
        self.graph = graph
        self.schedule: Schedule = schedule
        self.iterations = 0
        blocks = graph.blocks
        size = int((blocks[:, 1] * blocks[:, 2]).sum())
        self.regrets = np.zeros(size)
        self.average = np.zeros(size)
        self.strategy = np.zeros(size)
        self._deltas = (np.zeros(size), np.zeros(size))
        nodes = len(graph.actor)
        n0, n1 = len(graph.chance0), len(graph.chance1)
        self._reach = (np.zeros((nodes, n0)), np.zeros((nodes, n1)))
        self._utility = np.zeros((nodes, n0, n1))
        widest = int(graph.num_actions.max()) * max(n0, n1)
        self._scratch = (np.zeros(widest), np.zeros(max(n0, n1)), np.zeros(n1))
        self.value = 0.0
        for player in (0, 1):  # uniform to start
            apply_update(graph, player, self.strategy, self.regrets, self.average,
                         *self._deltas, 1.0, 1.0, False, 1.0, 0.0)

    def iterate(self, iterations: int = 1, callback: Callable[[int], None] | None = None) -> None:
        g = self.graph
        for i in range(iterations):
            pos, neg, avg, weight = self.schedule.discounts(self.iterations + 1)
            for player in (0, 1):  # alternating, as the array kernels do
                forward(g, self.strategy, *self._reach)
                self.value = float(backward(g, player, self.strategy, *self._reach,
                                            self._utility, *self._deltas, *self._scratch))
                apply_update(g, player, self.strategy, self.regrets, self.average,
                             *self._deltas, pos, neg, self.schedule.floor, avg, weight)
            self.iterations += 1
            if callback is not None:
                callback(i)

    def evaluate(self, strategy: np.ndarray) -> float:
        """Player 0's expected payoff when both play `strategy` (laid out as the blocks)."""
        g = self.graph
        forward(g, strategy, *self._reach)
        return float(backward(g, -1, strategy, *self._reach, self._utility, *self._deltas,
                              *self._scratch))

    def average_strategy(self) -> np.ndarray:
        """The average strategy, block by block (uniform where a state was never reached)."""
        out = np.zeros_like(self.average)
        for first, states, count, _ in self.graph.blocks.tolist():
            rows = self.average[first:first + states * count].reshape(states, count)
            totals = rows.sum(axis=1, keepdims=True)
            out[first:first + states * count] = np.where(
                totals > 0, rows / np.where(totals > 0, totals, 1.0), 1.0 / count).ravel()
        return out

"""The CFR family streamed over a public tree whose every node holds every private state.

`solver.engine.kernels` keeps every slot's reach and value in tree-wide arrays; on Dudo with one
die against two (524,287 nodes, 21 private states at each) those arrays and the slot links
between them are most of what an iteration reads and writes.  When every node holds all of both
players' private states (`uniform_slots`: Dudo's trees, `solver.games.dudo.tree`), a slot's
parent is the same slot of the parent node and no link needs storing: one pass over the nodes in
pre-order, keeping the reach and value vectors of the current node's ancestors on a short stack
(at most one frame per level), computes the other player's reach on the way down and the
traverser's values on the way up.  Only the (information set, action) arrays remain tree-wide.

The update is `solver.engine.kernels.cfr_update`'s, term for term (same schedules, same regret
matching through `positive_regret` and `matched_probability`), on the same regret layout, so
`average_strategy` is laid out like the tree's information sets and a test checks the iterates
against `solver.algorithms.cfr.CFRSolver`.  Predictive schedules are left to the array kernels.
The root's subtrees are split in two halves of the tree, one per thread (at most two).
"""

from __future__ import annotations

from collections.abc import Callable

import numba
import numpy as np
from numba import njit, prange

from solver.algorithms.cfr import SCHEDULES, average_of, normalize, pruning_state
from solver.engine.kernels import matched_probability, positive_regret
from solver.engine.node_kinds import DECISION_NODE
from solver.engine.pruning import flush, settle, skip
from solver.engine.tree import PublicTree, smallest_tree


@njit(cache=True, inline="always")
def _finish(tree, via, player, node, top, strategy, regrets, average, own, values, action_values,
            positive_discount, negative_discount, floor, average_discount, average_weight):
    """Complete frame `top` (node `node`, all children seen): the traverser's update there if
    it acts, then its values added to the parent frame."""
    count = tree.num_actions[node]
    slots = tree.slot_count[player, node]
    if tree.actor[node] == player:
        forced = count == 1  # a forced move: only its value (see `kernels.cfr_update`)
        if forced:
            for j in range(slots):
                values[top, j] = action_values[top, j]
        for j in range(0 if forced else slots):
            base = tree.regret_offset[node] + j * count
            v = 0.0
            for a in range(count):
                v += strategy[base + a] * action_values[top, j * count + a]
            values[top, j] = v
            w = average_weight * own[top, j]
            total = 0.0
            for a in range(count):
                r = regrets[base + a]
                r = r * positive_discount if r > 0.0 else r * negative_discount
                r += action_values[top, j * count + a] - v
                if floor and r < 0.0:
                    r = 0.0
                regrets[base + a] = r
                average[base + a] = average[base + a] * average_discount + w * strategy[base + a]
                total += positive_regret(r)
            for a in range(count):
                strategy[base + a] = matched_probability(regrets[base + a], total, count)
    if top == 0:
        return
    up = tree.parent[node]
    if tree.actor[up] == player:
        up_count = tree.num_actions[up]
        for j in range(slots):
            action_values[top - 1, j * up_count + via[node]] += values[top, j]
    else:
        for j in range(slots):
            values[top - 1, j] += values[top, j]


@njit(cache=True, inline="always")
def _spread(tree, node, top, player, strategy, own, opponent, moved):
    """The actor's reach after each of its actions at decision `node`, action-major in
    ``moved[top]``: the node's strategy is read once, in order, rather than a strided column
    per child (which cost more than all the rest of an iteration)."""
    count = tree.num_actions[node]
    actor = tree.actor[node]
    slots = tree.slot_count[actor, node]
    base = tree.regret_offset[node]
    for j in range(slots):
        r = own[top, j] if actor == player else opponent[top, j]
        for a in range(count):
            moved[top, a * slots + j] = r * strategy[base + j * count + a]


@njit(cache=True)
def _stream(tree, via, player, first, last, strategy, regrets, average, own, opponent, moved,
            values, action_values, positive_discount, negative_discount, floor,
            average_discount, average_weight, prune, state):
    """The update over nodes ``first .. last - 1`` (whole subtrees of the root's children), in
    pre-order (see the module's doc); the root's frame (row 0 of `own`, `opponent`, `moved`,
    `values`, `action_values`, one row per tree level) collects their values, unfinished.
    With `prune`, a subtree the other player does not reach is skipped and caught up later
    (`solver.engine.pruning`, whose `state` it keeps)."""
    other = 1 - player
    n_own = tree.slot_count[player, 0]
    n_other = tree.slot_count[other, 0]
    frame_node = np.empty(own.shape[0], np.int64)
    top = 0
    frame_node[0] = 0
    own[0, :n_own] = 1.0
    opponent[0, :n_other] = 1.0
    values[0, :n_own] = 0.0
    action_values[0, :] = 0.0
    _spread(tree, 0, 0, player, strategy, own, opponent, moved)
    n = first
    while n <= last:
        # Finish the frames that are not ancestors of n (all but the root's at the end).
        up = tree.parent[n] if n < last else 0
        while top > 0 and frame_node[top] != up:
            _finish(tree, via, player, frame_node[top], top, strategy, regrets, average, own,
                    values, action_values, positive_discount, negative_discount, floor,
                    average_discount, average_weight)
            top -= 1
        if n == last:
            break
        a = via[n]
        count = tree.num_actions[up]
        child = top + 1
        if tree.actor[up] == player:
            for j in range(n_own):
                own[child, j] = moved[top, a * n_own + j]
            for k in range(n_other):
                opponent[child, k] = opponent[top, k]
        else:
            for j in range(n_own):
                own[child, j] = own[top, j]
            for k in range(n_other):
                opponent[child, k] = moved[top, a * n_other + k]
        if prune:
            reached = False
            for k in range(n_other):
                if opponent[child, k] != 0.0:
                    reached = True
                    break
            if not reached:
                if tree.kind[n] == DECISION_NODE:
                    skip(tree, state, player, n, own[child], 0, positive_discount,
                         negative_discount, average_discount, average_weight, 0)
                n += state.size[n]
                continue
            if state.pruned[player, n] == 1:
                flush(tree, state, player, n, strategy, regrets, average)
        if tree.kind[n] == DECISION_NODE:
            top = child
            frame_node[top] = n
            values[top, :n_own] = 0.0
            action_values[top, :n_own * tree.num_actions[n]] = 0.0
            _spread(tree, n, top, player, strategy, own, opponent, moved)
            n += 1
            continue
        # A terminal: the traverser's values from its matrix (player 0's payoffs, rows its
        # slots), straight into the parent frame.
        # The other player's states it does not hold (most of them, near an equilibrium) are
        # left out.
        m = tree.payoff_offset[n]
        payoffs = tree.payoffs
        for j in range(n_own):
            values[child, j] = 0.0
        for k in range(n_other):
            r = opponent[child, k]
            if r == 0.0:
                continue
            if player == 0:
                for j in range(n_own):
                    values[child, j] += payoffs[m + j * n_other + k] * r
            else:
                row = m + k * n_own
                for j in range(n_own):
                    values[child, j] -= payoffs[row + j] * r
        if tree.actor[up] == player:
            for j in range(n_own):
                action_values[top, j * count + a] += values[child, j]
        else:
            for j in range(n_own):
                values[top, j] += values[child, j]
        n += 1


@njit(cache=True, parallel=True)
def streaming_update(tree, via, player, split, strategy, regrets, average, own, opponent, moved,
                     values, action_values, positive_discount, negative_discount, floor,
                     average_discount, average_weight, prune, state):
    """One CFR update of `player` against the other's reach under `strategy`; returns its
    expected payoff.  The root's children's subtrees are cut at node `split` into two runs of
    `_stream`, one per thread (the frames have a first axis of 2), joined at the root."""
    n_nodes = tree.kind.shape[0]
    for half in prange(2):
        first = 1 if half == 0 else split
        last = split if half == 0 else n_nodes
        _stream(tree, via, player, first, last, strategy, regrets, average, own[half],
                opponent[half], moved[half], values[half], action_values[half],
                positive_discount, negative_discount, floor, average_discount, average_weight,
                prune, state)
    n_own = tree.slot_count[player, 0]
    for j in range(n_own):
        values[0, 0, j] += values[1, 0, j]
    for i in range(action_values.shape[2]):
        action_values[0, 0, i] += action_values[1, 0, i]
    _finish(tree, via, player, 0, 0, strategy, regrets, average, own[0], values[0],
            action_values[0], positive_discount, negative_discount, floor, average_discount,
            average_weight)
    total = 0.0
    for j in range(n_own):
        total += values[0, 0, j]
    return total


class StreamingCFRSolver:
    """`solver.algorithms.cfr.CFRSolver`'s schedules (not the predictive ones) on a tree whose
    every node holds every private state (`uniform_slots`), by `streaming_update`.

    Example::

        from solver.algorithms.streaming_cfr import StreamingCFRSolver
        from solver.engine.compile import compile_game
        from solver.games import get_game

        solver = StreamingCFRSolver(compile_game(get_game("dudo-1v2")), "dcfr")
        solver.iterate(100)                       # two threads, 0.1 to 0.2 s an iteration
        strategy = solver.average_strategy()      # laid out as the tree's information sets
    """

    def __init__(self, tree: PublicTree, algorithm: str = "dcfr", *,
                 pruning: bool = False) -> None:
        schedule = SCHEDULES.get(algorithm)
        if schedule is None or schedule.predictive:
            raise ValueError(f"the streaming solver runs cfr, cfr+, lcfr or dcfr, not "
                             f"{algorithm!r}")
        if not uniform_slots(tree):
            raise ValueError(f"{tree.game}: not a tree whose every node holds every private "
                             f"state (as solver.games.dudo.tree builds Dudo's)")
        numba.set_num_threads(min(2, numba.get_num_threads()))  # two threads at most
        self.tree = tree
        self.schedule = schedule
        self.iterations = 0
        a = tree.arrays
        size = tree.num_regrets
        self.regrets = np.zeros(size)
        self.average = np.zeros(size)
        self.strategy = np.zeros(size)
        counts = np.diff(tree.infoset_regret_offset)
        self.strategy[:] = np.repeat(1.0 / counts, counts)
        self.via = _via(a)
        levels = int(_depths(a).max()) + 2
        width = int(a.slot_count[:, 0].max())
        widest = int((a.num_actions * a.slot_count.max(axis=0)).max())
        self._frames = (np.zeros((2, levels, width)), np.zeros((2, levels, width)),
                        np.zeros((2, levels, widest)), np.zeros((2, levels, width)),
                        np.zeros((2, levels, widest)))
        children = np.flatnonzero(a.parent == 0)
        # Cut the root's children where the node count is halved (in a Dudo tree the first
        # bid's subtree is half of it).
        half = int(np.searchsorted(children, len(a.kind) // 2))
        self.split = (int(children[min(max(half, 1), len(children) - 1)]) if len(children) > 1
                      else len(a.kind))
        self.pruning = pruning
        self._prune = pruning_state(tree, pruning)
        if pruning and not np.array_equal(self._prune.walk, np.arange(len(a.kind))):
            raise ValueError(f"{tree.game}: the streaming kernel needs nodes in depth-first "
                             f"pre-order")

    def iterate(self, iterations: int = 1, callback: Callable[[int], None] | None = None) -> None:
        a = self.tree.arrays
        own, opponent, moved, values, action_values = self._frames
        for i in range(iterations):
            pos, neg, avg, weight = self.schedule.discounts(self.iterations + 1)
            for player in (0, 1):
                streaming_update(a, self.via, player, self.split, self.strategy, self.regrets,
                                 self.average, own, opponent, moved, values, action_values,
                                 pos, neg, self.schedule.floor, avg, weight, self.pruning,
                                 self._prune)
            self.iterations += 1
            if callback is not None:
                callback(i)

    def settle(self) -> None:
        """Bring the regrets and the average up to date where pruning left them owing."""
        if self.pruning:
            settle(self.tree.arrays, self._prune, self.strategy, self.regrets, self.average)

    def average_strategy(self) -> np.ndarray:
        return average_of(self.tree, self.pruning, self._prune, self.strategy, self.average)

    def current_strategy(self) -> np.ndarray:
        return normalize(self.tree, self.strategy)


def uniform_slots(tree: PublicTree) -> bool:
    """Whether every node holds all of each player's private states, each slot coming from the
    same slot of the parent node (so the streaming update applies)."""
    a = tree.arrays
    n = len(a.kind)
    for p in (0, 1):
        count = int(a.slot_count[p, 0])
        if not (a.slot_count[p] == count).all():
            return False
        expected = np.where(a.parent[:, None] >= 0,
                            a.parent[:, None] * count + np.arange(count)[None, :], -1).ravel()
        if not np.array_equal(a.slot_parent[p, :n * count], expected):
            return False
    return True


def _via(a) -> np.ndarray:
    """Per node, the index of the action that led to it at its parent (-1 at the root), read
    off the slot edges (the acting player's first slot)."""
    via = np.full(len(a.kind), -1, np.int64)
    nodes = np.arange(1, len(a.kind))
    up = a.parent[nodes]
    actor = a.actor[up]
    first = a.slot_offset[actor, nodes]
    edge = a.slot_edge[actor, first]
    via[nodes] = edge - a.regret_offset[up]
    return via


def _depths(a) -> np.ndarray:
    depth = np.zeros(len(a.kind), np.int64)
    for n in range(1, len(a.kind)):
        depth[n] = depth[a.parent[n]] + 1
    return depth


def warm_up(algorithm: str = "dcfr", pruning: bool = False) -> None:
    """Compile (or load from numba's cache) the streaming kernel, on the smallest tree."""
    StreamingCFRSolver(smallest_tree(), algorithm, pruning=pruning).iterate(1)

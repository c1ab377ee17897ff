"""Pruning for the full-width CFR kernels: skip what the other player does not reach, and catch
it up when it is reached again, so that the iterates stay those of the unpruned kernels.

In the traverser's update, a public node where the other player's reach is zero at every one of
its private states contributes nothing: every counterfactual value below it is a payoff times
that zero reach.  Zero reach is what regret matching gives an action whose regret is not positive
(Brown & Sandholm 2015, "Regret-based pruning in extensive-form games": the paths of play with
negative regret), and it is common: near an equilibrium of Dudo with one die against two the
second player reaches 93% of the public nodes with probability zero.  So the update skips such a
subtree (`pruned_update`), and the only work it owes there is bookkeeping that can wait:

* every regret of the traverser below is multiplied by the schedule's discount (its value adds
  zero), which leaves regret matching, and so the strategy below, unchanged: positive regrets all
  scale by one factor, negative ones stay negative;
* every average below is discounted and gains ``weight x own reach x strategy``, where the own
  reach is the skipped root's reach times the (frozen) strategy on the path below it.

Per skipped root the kernels keep the products of the three discounts over the skipped iterations
and, per private state of the root, the discounted sum of ``weight x own reach`` (`PruneState`);
when the root is reached again, `flush` walks its subtree once and applies them.  A root skipped
inside a skipped root stays a root of its own: the outer flush merges its products and sums
into it.  `settle` flushes everything; `settled_average` reads the average as it would
leave it.  Predictive schedules match on the last instantaneous regret, which skipping would
zero: they are not pruned.

The traverser's own zero reach is not pruned: its counterfactual values there are still needed
for its regrets (Brown & Sandholm's pruning of the traverser's own negative-regret actions needs a
bound that keeps the regret negative for some iterations, and discounted CFR halves negative
regrets every iteration, so the bound rarely lasts one).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import numpy as np
from numba import njit

from solver.engine.kernels import (
    card_terminals_of,
    expected_action_value,
    matched_probability,
    pass_up,
    positive_regret,
    root_value,
)
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE
from solver.engine.tree import FloatArray, IntArray, TreeArrays


def uniform_width(tree: TreeArrays) -> int:
    """The slot count every public node has for both players (Kuhn's 3, Dudo's 6), laid out
    node after node (node n's first slot is n x width), or 0 when either fails (a board dealt,
    dice of different counts)."""
    counts = np.unique(tree.slot_count)
    if len(counts) != 1:
        return 0
    width = int(counts[0])
    regular = np.arange(len(tree.kind)) * width
    return width if all(np.array_equal(row, regular) for row in tree.slot_offset) else 0


@njit(cache=True, inline="always")
def slots_at(tree, player, node, width):
    """`player`'s slot count at `node`: `width` when it is not 0 (`uniform_width`).  In a kernel
    compiled with a constant width (`pruned_iterations_for`) the loops over a node's slots have
    a length LLVM knows and unrolls: pruned Dudo's iteration about 1.2 times faster."""
    return width if width > 0 else tree.slot_count[player, node]


@njit(cache=True, inline="always")
def first_slot(tree, player, node, width):
    """`player`'s first slot at `node`: ``node x width`` when `width` is not 0 (a product
    instead of a load: pruned Dudo about 5% faster)."""
    return node * width if width > 0 else tree.slot_offset[player, node]


class PruneState(NamedTuple):
    """What pruning keeps per player (first axis) about the subtrees its updates skip."""

    walk: IntArray  # the nodes in depth-first pre-order, where every subtree is contiguous (a
    # compiled tree only promises parents before children: the generic compiler numbers nodes
    # breadth-first)
    position: IntArray  # per node: its index in `walk`
    size: IntArray  # per node: the nodes of its subtree, itself included (in `walk`, from the
    # node's position on)
    pruned: IntArray  # (2, nodes): 1 where the node is the root of a subtree the player's update
    # skips and has not caught up with
    keep: FloatArray  # (2, nodes, 3): at a skipped root, the products over the skipped
    # iterations of the positive and negative regret discounts and the average discount
    held: FloatArray  # (2, slots): at a skipped root's slots, the discounted sum of weight x own
    # reach over the skipped iterations; scratch elsewhere (`flush` carries it down)
    stamp: IntArray  # (2, nodes): the update that last wrote the player's reach at the node
    updates: IntArray  # one entry: the updates run so far
    folded: IntArray  # per node: the terminal below it when it is a forced move onto a terminal
    # with the same slots (Dudo after the highest bid, a quarter of its nodes), else -1: the
    # updates value that terminal at the node and never visit it (`folded_terminals`)


@njit(cache=True)
def depth_first(parent):
    """(walk, position, size) of `PruneState` from the parents of a tree numbered parents first:
    children are visited in the order of their numbers."""
    n_nodes = parent.shape[0]
    size = np.ones(n_nodes, np.int64)
    for n in range(n_nodes - 1, 0, -1):
        size[parent[n]] += size[n]
    # A child starts right after its parent, or right after its previous sibling's subtree.
    position = np.zeros(n_nodes, np.int64)
    next_free = np.zeros(n_nodes, np.int64)  # per node: where its next child starts
    next_free[0] = 1
    for n in range(1, n_nodes):
        up = parent[n]
        position[n] = next_free[up]
        next_free[up] += size[n]
        next_free[n] = position[n] + 1
    walk = np.empty(n_nodes, np.int64)
    walk[position] = np.arange(n_nodes)
    return walk, position, size


@njit(cache=True)
def folded_terminals(tree):
    """`PruneState.folded`.  A forced move's probability is 1 and its value is its child's, so
    a terminal below one is valued at the move's node, with the move's slots (the same private
    states in the same order, checked for both players) and the terminal's payoffs: the values
    are those the visit would give, bit for bit, and the walks skip a node and its slots."""
    folded = np.full(tree.kind.shape[0], -1, np.int64)
    for child in range(1, tree.kind.shape[0]):
        node = tree.parent[child]
        same = (tree.kind[child] == TERMINAL_NODE and tree.kind[node] == DECISION_NODE
                and tree.num_actions[node] == 1)
        for p in range(2):
            if not same or tree.slot_count[p, child] != tree.slot_count[p, node]:
                same = False
                break
            for j in range(tree.slot_count[p, child]):
                if tree.slot_parent[p, tree.slot_offset[p, child] + j] != (
                        tree.slot_offset[p, node] + j):
                    same = False
                    break
        if same:
            folded[node] = child
    return folded


def prune_state(tree: TreeArrays) -> PruneState:
    """An empty `PruneState` for `tree` (nothing skipped yet)."""
    nodes = len(tree.kind)
    walk, position, size = depth_first(tree.parent)
    return PruneState(walk=walk, position=position, size=size,
                      pruned=np.zeros((2, nodes), np.int64),
                      keep=np.ones((2, nodes, 3)),
                      held=np.zeros(tree.slot_parent.shape),
                      stamp=np.zeros((2, nodes), np.int64), updates=np.zeros(1, np.int64),
                      folded=folded_terminals(tree))


@njit(cache=True, inline="always")
def skip(tree, state, player, node, own_reach, own_first, positive_discount, negative_discount,
         average_discount, average_weight, width):
    """Record that `player`'s update skips `node`'s subtree this iteration; the player's reach at
    the node's slots is ``own_reach[own_first:]``."""
    first = first_slot(tree, player, node, width)
    count = slots_at(tree, player, node, width)
    if state.pruned[player, node] == 0:
        state.pruned[player, node] = 1
        state.keep[player, node, 0] = positive_discount
        state.keep[player, node, 1] = negative_discount
        state.keep[player, node, 2] = average_discount
        for j in range(count):
            state.held[player, first + j] = average_weight * own_reach[own_first + j]
        return
    state.keep[player, node, 0] *= positive_discount
    state.keep[player, node, 1] *= negative_discount
    state.keep[player, node, 2] *= average_discount
    for j in range(count):
        state.held[player, first + j] = (state.held[player, first + j] * average_discount
                                         + average_weight * own_reach[own_first + j])


@njit(cache=True)
def flush(tree, state, player, node, strategy, regrets, average):
    """Apply to `node`'s subtree what `player`'s skipped updates owed it (see the module's doc)
    and mark it reached.  The own-reach sums are carried down in ``state.held`` itself: only a
    skipped root's entries mean anything, and nested roots are merged, never overwritten."""
    keep_positive = state.keep[player, node, 0]
    keep_negative = state.keep[player, node, 1]
    keep_average = state.keep[player, node, 2]
    with_regrets = regrets.shape[0] > 0  # empty: the average alone (`settled_average`)
    held = state.held[player]
    slot_parent = tree.slot_parent[player]
    slot_edge = tree.slot_edge[player]
    walk = state.walk
    at = state.position[node]
    end = at + state.size[node]
    while at < end:
        m = walk[at]
        first = tree.slot_offset[player, m]
        last = first + tree.slot_count[player, m]
        if m > node:
            nested = state.pruned[player, m] == 1
            for s in range(first, last):
                e = slot_edge[s]
                carried = held[slot_parent[s]] * (strategy[e] if e >= 0 else 1.0)
                held[s] = held[s] * keep_average + carried if nested else carried
            if nested:
                state.keep[player, m, 0] *= keep_positive
                state.keep[player, m, 1] *= keep_negative
                state.keep[player, m, 2] *= keep_average
                at += state.size[m]
                continue
        if tree.kind[m] == DECISION_NODE and tree.actor[m] == player and tree.num_actions[m] > 1:
            count = tree.num_actions[m]
            for j in range(last - first):
                base = tree.regret_offset[m] + j * count
                w = held[first + j]
                for a in range(count):
                    if with_regrets:
                        r = regrets[base + a]
                        regrets[base + a] = r * keep_positive if r > 0.0 else r * keep_negative
                    average[base + a] = average[base + a] * keep_average + w * strategy[base + a]
        at += 1
    state.pruned[player, node] = 0


@njit(cache=True)
def settle(tree, state, strategy, regrets, average):
    """Flush every skipped subtree of both players (outer roots first, which merge the nested
    ones, flushed in their turn)."""
    for player in range(2):
        for at in range(tree.kind.shape[0]):
            n = state.walk[at]
            if state.pruned[player, n] == 1:
                flush(tree, state, player, n, strategy, regrets, average)


def settled_average(tree: TreeArrays, state: PruneState, strategy: FloatArray,
                    average: FloatArray) -> FloatArray:
    """The average's weights as `settle` would leave them, without settling: `state` and the
    solver's arrays are left as they are, owing what they owed.  An exact check reads this, so
    that checking moves none of the iterations' owed work off their clock (settled at every
    check, pruned Dudo flushed its never-reached subtrees 131 times on the way to 1e-4)."""
    copy = state._replace(pruned=state.pruned.copy(), keep=state.keep.copy(),
                          held=state.held.copy())
    out = average.copy()
    settle(tree, copy, strategy, np.zeros(0), out)
    return out


@njit(cache=True, inline="always")
def pruned_update(tree, state, player, strategy, reach, values, action_values, regrets, average,
                  positive_discount, negative_discount, floor, average_discount, average_weight,
                  order, width, folds):
    """`solver.engine.kernels.cfr_update` of `player`, skipping the subtrees the other player
    does not reach.  The top-down pass computes the other player's reach (``reach[other]``) at
    the nodes it visits, lists them in `order` (scratch of the node count) and skips the rest;
    the bottom-up pass updates the listed nodes in reverse.  Returns the traverser's expected
    payoff, as `cfr_update` does.

    The traverser's own reach is the one the other player's update computed (its opponent's),
    as in `solver.engine.kernels.cfr_iterations`: the traverser's strategy has not changed
    since.  That update wrote it only where the traverser's reach is not all zero (elsewhere it
    skipped), so ``state.stamp`` says where it is current; elsewhere it is zero."""
    listed = _descend(tree, state, player, strategy, reach, values, action_values, regrets,
                      average, positive_discount, negative_discount, average_discount,
                      average_weight, order, width, folds)
    return _ascend(tree, player, strategy, reach[player], reach[1 - player], values,
                   action_values, regrets, average, positive_discount, negative_discount, floor,
                   average_discount, average_weight, order, listed, state.folded, width, folds)


@njit(cache=True, inline="always")
def _descend(tree, state, player, strategy, reach, values, action_values, regrets, average,
             positive_discount, negative_discount, average_discount, average_weight, order,
             width, folds):
    """The top-down half of `pruned_update`: reach, skipped subtrees, the list of visited
    nodes (returns their count)."""
    other = 1 - player
    own = reach[player]
    opponent = reach[other]
    other_parent = tree.slot_parent[other]
    other_edge = tree.slot_edge[other]
    walk = state.walk
    pruned = state.pruned[player]
    folded = state.folded
    current = state.updates[0]  # the other player's update: own reach written then is current
    state.updates[0] = current + 1
    written = state.stamp[other]
    own_written = state.stamp[player]
    n_nodes = tree.kind.shape[0]
    listed = 0
    at = 0
    while at < n_nodes:
        n = walk[at]
        first = first_slot(tree, player, n, width)
        last = first + slots_at(tree, player, n, width)
        o_first = first_slot(tree, other, n, width)
        o_last = o_first + slots_at(tree, other, n, width)
        if own_written[n] != current:
            for s in range(first, last):
                own[s] = 0.0
            own_written[n] = current
        if n == 0:
            opponent[o_first:o_last] = 1.0
        else:
            reached = False
            for s in range(o_first, o_last):
                e = other_edge[s]
                r = opponent[other_parent[s]] * (strategy[e] if e >= 0 else 1.0)
                opponent[s] = r
                reached = reached or r != 0.0
            if not reached:
                if tree.kind[n] == DECISION_NODE or tree.kind[n] == CHANCE_NODE:
                    skip(tree, state, player, n, own, first, positive_discount,
                         negative_discount, average_discount, average_weight, width)
                at += state.size[n]
                continue
        written[n] = current + 1
        if pruned[n] == 1:
            flush(tree, state, player, n, strategy, regrets, average)
        order[listed] = n
        listed += 1
        if folds and folded[n] >= 0:  # `_ascend` sets its values from its terminal's payoffs,
            at += 2  # so neither their sums nor the terminal (next in the walk) are visited
            continue
        if tree.kind[n] != TERMINAL_NODE:
            for s in range(first, last):  # a loop: a slice costs more than these few entries
                values[s] = 0.0
        if tree.kind[n] == DECISION_NODE and tree.actor[n] == player:
            base = tree.regret_offset[n]
            for i in range(base, base + (last - first) * tree.num_actions[n]):
                action_values[i] = 0.0
        at += 1
    return listed


@njit(cache=True, inline="always")
def _ascend(tree, player, strategy, own, opponent, values, action_values, regrets, average,
            positive_discount, negative_discount, floor, average_discount, average_weight, order,
            listed, folded, width, folds):
    """The bottom-up half of `pruned_update`, over the first `listed` nodes of `order` in
    reverse: `solver.engine.kernels.cfr_update`'s work at each.

    Its regret update is `cfr_update`'s, written again on purpose: one helper for both, even
    inlined and called once per node, made leduc's and Dudo's iterations 5-7% slower, pruned
    and plain (the arrays handed to it are reference-counted at every call)."""
    card_terminals_of(tree, player, opponent, values, order, listed, True)
    for i in range(listed - 1, -1, -1):
        n = order[i]
        kind = tree.kind[n]
        if folds and folded[n] >= 0:
            sparse_terminal_values(tree, folded[n], n, player, opponent, values, width)
        elif kind == DECISION_NODE:
            if tree.actor[n] == player:
                first = first_slot(tree, player, n, width)
                count = tree.num_actions[n]
                forced = count == 1  # a forced move: only its value (see `kernels.cfr_update`)
                if forced:
                    base = tree.regret_offset[n]
                    for j in range(slots_at(tree, player, n, width)):
                        values[first + j] = action_values[base + j]
                for j in range(0 if forced else slots_at(tree, player, n, width)):
                    base = tree.regret_offset[n] + j * count
                    v = expected_action_value(strategy, action_values, base, count)
                    values[first + j] = v
                    w = average_weight * own[first + j]
                    averaging = w != 0.0 or average_discount != 1.0
                    total = 0.0
                    for a in range(count):
                        r = regrets[base + a]
                        r = r * positive_discount if r > 0.0 else r * negative_discount
                        r += action_values[base + a] - v
                        if floor and r < 0.0:
                            r = 0.0
                        regrets[base + a] = r
                        if averaging:
                            average[base + a] = (average[base + a] * average_discount
                                                 + w * strategy[base + a])
                        total += positive_regret(r)
                    for a in range(count):
                        strategy[base + a] = matched_probability(regrets[base + a], total, count)
        elif kind == TERMINAL_NODE:
            sparse_terminal_values(tree, n, n, player, opponent, values, width)
        pass_up(tree, n, player, values, action_values, slots_at(tree, player, n, width))
    return root_value(tree, player, values)


@njit(cache=True, inline="always")
def sparse_terminal_values(tree, node, at, player, opponent_reach, values, width):
    """`solver.engine.kernels.terminal_values` of terminal `node` at the slots of node `at`
    (`node` itself, or the forced move above it: `folded_terminals`), column by column of the
    payoff matrix so that the other player's private states it does not hold (most of them,
    near an equilibrium) are left out; it zeroes `values` at the slots first (`_descend` does
    not)."""
    first = first_slot(tree, player, at, width)
    count = slots_at(tree, player, at, width)
    o_first = first_slot(tree, 1 - player, at, width)
    o_count = slots_at(tree, 1 - player, at, width)
    base = tree.payoff_offset[node]
    payoffs = tree.payoffs
    for j in range(count):
        values[first + j] = 0.0
    for k in range(o_count):
        r = opponent_reach[o_first + k]
        if r == 0.0:
            continue
        if player == 0:
            for j in range(count):
                values[first + j] += payoffs[base + j * o_count + k] * r
        else:
            row = base + k * count
            for j in range(count):
                values[first + j] -= payoffs[row + j] * r


@functools.cache
def pruned_iterations_for(width: int, folds: bool) -> Callable[..., None]:
    """`solver.engine.kernels.cfr_iterations` with `pruned_update`, compiled for trees of
    `uniform_width` `width` (0: any tree): one iteration per row of `discounts`, players
    alternating.  `width` and `folds` (whether the tree has `folded_terminals`) are the
    closure's constants, so numba compiles (and caches on disk) one kernel per pair, in which
    `slots_at` is that width and, without folds, the checks for them are gone (they made
    Leduc's pruned iterations a quarter slower)."""

    @njit(cache=True)
    def pruned_iterations(tree, state, strategy, reach, values, action_values, regrets, average,
                          floor, discounts, order):
        for t in range(discounts.shape[0]):
            for player in range(2):
                pruned_update(tree, state, player, strategy, reach, values[player],
                              action_values, regrets, average, discounts[t, 0], discounts[t, 1],
                              floor, discounts[t, 2], discounts[t, 3], order, width, folds)

    return pruned_iterations

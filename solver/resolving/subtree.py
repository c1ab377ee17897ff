"""A subtree of a compiled public tree as a tree of its own, without copying the game.

Nodes are numbered in pre-order, so the subtree under node n is the contiguous run of nodes
``n .. end[n] - 1``; each player's slots are numbered node by node and the (information set,
action) entries decision node by decision node, so its slots and its entries are contiguous
runs too.  `subtree` cuts those runs out and shifts their indices: the result is a
`solver.engine.tree.TreeArrays` whose root is node 0, on which every kernel of
`solver.engine.kernels` runs unchanged.  What a terminal pays stays as the whole tree weighs it
(chance included), so values computed in a subtree are in the whole tree's units, and a
strategy or a value vector moves between the two by the offsets (`Cut`).

This is what re-solving needs on a member whose whole tree compiles: the subgame at a public
state is the subtree under its node (`solver.resolving.resolve`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.engine.node_kinds import DECISION_NODE
from solver.engine.tree import TreeArrays

IntArray = NDArray[np.int64]


@njit(cache=True)
def subtree_ends(parent: IntArray) -> IntArray:
    """Per node, one past the last node of its subtree (pre-order: a subtree is contiguous)."""
    n = parent.shape[0]
    end = np.arange(1, n + 1)
    for node in range(n - 1, 0, -1):
        p = parent[node]
        if end[node] > end[p]:
            end[p] = end[node]
    return end


@dataclass(frozen=True, slots=True)
class Cut:
    """Where a subtree sits in the whole tree: its nodes ``first .. stop - 1``, each player's
    slots from ``slots[p]`` (``slot_stop[p]`` one past), and its (information set, action)
    entries ``regrets .. regret_stop - 1``."""

    first: int
    stop: int
    slots: tuple[int, int]
    slot_stop: tuple[int, int]
    regrets: int
    regret_stop: int


def cut_of(tree: TreeArrays, node: int, ends: IntArray) -> Cut:
    """Where the subtree under `node` lies, given `subtree_ends` of `tree`."""
    stop = int(ends[node])
    total = tree.kind.shape[0]

    def slot_end(p: int) -> int:
        if stop < total:
            return int(tree.slot_offset[p, stop])
        return int(tree.slot_offset[p, total - 1] + tree.slot_count[p, total - 1])

    last_decisions = tree.kind[node:stop] == DECISION_NODE
    if stop < total:
        regret_stop = int(tree.regret_offset[stop])
    else:
        sizes = np.where(last_decisions, tree.num_actions[node:stop]
                         * tree.slot_count[np.maximum(tree.actor[node:stop], 0),
                                           np.arange(node, stop)], 0)
        regret_stop = int(tree.regret_offset[node] + sizes.sum())
    return Cut(node, stop, (int(tree.slot_offset[0, node]), int(tree.slot_offset[1, node])),
               (slot_end(0), slot_end(1)), int(tree.regret_offset[node]), regret_stop)


def subtree(tree: TreeArrays, cut: Cut) -> TreeArrays:
    """The subtree `cut` as a tree rooted at node 0 (see the module docstring)."""
    a, b = cut.first, cut.stop
    width = max(cut.slot_stop[0] - cut.slots[0], cut.slot_stop[1] - cut.slots[1])
    slot_parent = np.full((2, width), -1, np.int64)
    slot_edge = np.full((2, width), -1, np.int64)
    slot_hand = np.full((2, width), -1, np.int64)
    root_slots = tree.slot_count[:, a]
    for p in (0, 1):
        lo, hi = cut.slots[p], cut.slot_stop[p]
        parents = tree.slot_parent[p, lo:hi] - lo
        parents[:root_slots[p]] = -1
        slot_parent[p, :hi - lo] = parents
        edges = tree.slot_edge[p, lo:hi]
        edges = np.where(edges >= 0, edges - cut.regrets, -1)
        edges[:root_slots[p]] = -1
        slot_edge[p, :hi - lo] = edges
        slot_hand[p, :hi - lo] = tree.slot_hand[p, lo:hi]
    parent = tree.parent[a:b] - a
    parent[0] = -1
    slot_offset = tree.slot_offset[:, a:b] - np.array(cut.slots)[:, None]
    return TreeArrays(
        kind=tree.kind[a:b], actor=tree.actor[a:b], parent=parent,
        num_actions=tree.num_actions[a:b], regret_offset=tree.regret_offset[a:b] - cut.regrets,
        slot_offset=np.ascontiguousarray(slot_offset), slot_count=tree.slot_count[:, a:b].copy(),
        slot_parent=slot_parent, slot_edge=slot_edge, payoff_offset=tree.payoff_offset[a:b],
        payoffs=tree.payoffs, terminal_value=tree.terminal_value[a:b],
        showdown_offset=tree.showdown_offset[a:b], showdown_order=tree.showdown_order,
        showdown_strength=tree.showdown_strength, slot_hand=slot_hand,
        hand_cards=tree.hand_cards, card_scratch=np.zeros_like(tree.card_scratch))

"""Continual re-solving over a whole compiled tree: the strategy a re-solving bot plays, put
together public state by public state, so that an exact best response can judge it.

A bot that re-solves (`solver.resolving.resolve`) plays its blueprint until the round it
starts re-solving in, and from there on re-solves at each of its decisions, DeepStack-style:
its range is its reach under what it actually played (the blueprint, then its own earlier
re-solves), and the opponent's alternatives are the opponent's best-response counterfactual
values from its previous re-solve (from the blueprint at the first one).  Its strategy at a
public state is then a function of the public history alone, so the strategy of a seat is
assembled by visiting the tree's decision nodes of that seat in pre-order (every ancestor
first) and re-solving the subtree below each one, as the bot would on reaching it.

A round is counted by public chance nodes (a card game's board deals): node n is in round
``chance_depth[n]``.  This is what the proof on small members needs: the assembled profile,
both seats played by their own re-solving bots, has an exploitability that
`solver.algorithms.exploitability.evaluate_strategy` computes exactly.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.engine import kernels
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE
from solver.engine.tree import TreeArrays
from solver.resolving.resolve import reach_from, resolve
from solver.resolving.subtree import cut_of, subtree, subtree_ends

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@njit(cache=True)
def chance_depth(kind: IntArray, parent: IntArray) -> IntArray:
    """Per node, the public chance nodes strictly above it (its round in a card game)."""
    out = np.zeros(kind.shape[0], np.int64)
    for n in range(1, kind.shape[0]):
        p = parent[n]
        out[n] = out[p] + (1 if kind[p] == CHANCE_NODE else 0)
    return out


@njit(cache=True)
def path_reach(tree, player, strategy, node, out):
    """`player`'s reach at the slots of `node` under `strategy`, up the slots' ancestry."""
    first = tree.slot_offset[player, node]
    for j in range(tree.slot_count[player, node]):
        s = first + j
        r = 1.0
        while s >= 0:
            e = tree.slot_edge[player, s]
            if e >= 0:
                r *= strategy[e]
            s = tree.slot_parent[player, s]
        out[j] = r


@dataclass(frozen=True, slots=True)
class Assembly:
    """One seat's assembled strategy (the whole tree's flat entries, the other seat's left as
    the blueprint), with what it took: re-solves, their seconds, and the smallest margin seen
    (safe modes: below zero only by the solves' error)."""

    strategy: FloatArray
    resolves: int
    seconds: float
    smallest_margin: float


def assemble(tree: TreeArrays, blueprint: FloatArray, player: int, *, mode: str,
             from_round: int, iterations: int, algorithm: str = "cfr+") -> Assembly:
    """`player`'s strategy when it plays `blueprint` before round `from_round` and re-solves
    (`mode`) at every one of its decision nodes from there on (see the module docstring)."""
    started = time.perf_counter()
    other = 1 - player
    strategy = np.array(blueprint, np.float64)
    depth = chance_depth(tree.kind, tree.parent)
    ends = subtree_ends(tree.parent)
    slots = (int(tree.slot_count[0].sum()), int(tree.slot_count[1].sum()))
    blueprint_reach = (np.zeros(slots[0]), np.zeros(slots[1]))
    for p in (0, 1):
        kernels.reach_probabilities(tree, p, strategy, blueprint_reach[p])
    alternatives = np.zeros(slots[other])
    kernels.best_response(tree, other, blueprint_reach[player], alternatives,
                          np.zeros(len(strategy)))
    resolves, smallest = 0, np.inf
    nodes = np.flatnonzero((tree.kind == DECISION_NODE) & (tree.actor == player)
                           & (depth >= from_round))
    for node in nodes.tolist():
        cut = cut_of(tree, node, ends)
        game = subtree(tree, cut)
        own = np.zeros(int(tree.slot_count[player, node]))
        path_reach(tree, player, strategy, node, own)
        lo, hi = cut.slots[other], cut.slot_stop[other]
        roots = int(tree.slot_count[other, node])
        solved = resolve(game, player, own, mode=mode, iterations=iterations,
                         opponent_range=blueprint_reach[other][lo:lo + roots],
                         alternatives=alternatives[lo:lo + roots], algorithm=algorithm)
        first = cut.regrets
        width = int(tree.num_actions[node] * tree.slot_count[player, node])
        strategy[first:first + width] = solved.strategy[:width]
        alternatives[lo:hi] = solved.opponent_values
        if solved.margins is not None and len(solved.margins):
            smallest = min(smallest, float(solved.margins.min()))
        resolves += 1
    return Assembly(strategy, resolves, time.perf_counter() - started, float(smallest))


def reach_under(tree: TreeArrays, player: int, strategy: FloatArray,
                root: FloatArray) -> FloatArray:
    """`player`'s reach at every slot, from root reach `root` (for tests and reports)."""
    out = np.zeros(int(tree.slot_count[player].sum()))
    reach_from(tree, player, strategy, root, out)
    return out

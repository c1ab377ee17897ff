"""Subgame re-solving: a player's strategy below a public state, solved again with the real
information of the moment, safely or not.

A subgame is a compiled tree rooted at a public state (`solver.resolving.subtree` cuts one out
of a whole tree; a game too big to compile builds its subgames itself).  The re-solving player
P knows its own *range* there: the reach of each of its private states under the strategy it
actually played to get here.  What it does not know is the opponent O's strategy, so there are
two ways to re-solve:

* **unsafe**: assume O's range is what the blueprint gives (the reach of O's hands under the
  blueprint along the hand's actions) and solve the subgame with both ranges fixed.  It plays
  well against the blueprint's O and can be exploited by an O who arrives with other hands
  (Brown & Sandholm 2017 show it can be far *more* exploitable than the blueprint);
* **safe**: for each of O's private states h at the root, the *alternative* a(h) is O's
  counterfactual value there when it best-responds to P's blueprint (or, continually, to P's
  previous re-solve).  A gadget at the root lets O decline the subgame and take a(h):
  ``resolve`` is CFR-D's re-solve gadget (Burch, Johanson & Bowling 2014: per hand, follow or
  terminate), ``maxmargin`` Moravčík et al.'s (2016: O picks the hand whose margin a(h) − v(h)
  is smallest, so P maximises the smallest margin).  At the gadget's equilibrium O's
  best-response value with every root hand is at most a(h), so the re-solved subgame, put in
  place of the old one, cannot make P more exploitable; the margins measure how much less.

Values are counterfactual (`solver.engine.kernels`): O's values at the root are weighted by P's
range and chance, and so must the alternatives be; P's range enters as its reach at the root
slots.  The kernels are `solver.engine.kernels`' own passes (`cfr_update`, `best_response`)
started from the range vectors instead of ones, and the gadget's regrets live beside them, per
root slot of O.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.algorithms.cfr import SCHEDULES
from solver.engine import kernels
from solver.engine.node_kinds import DECISION_NODE
from solver.engine.tree import TreeArrays
from solver.resolving.leaves import Leaves, leaf_payoffs, no_leaves

FloatArray = NDArray[np.float64]
MODES = ("unsafe", "resolve", "maxmargin")
UNSAFE, RESOLVE, MAXMARGIN = range(3)


@njit(cache=True)
def reach_from(tree, player, strategy, root, out):
    """`player`'s reach at every one of its slots, its root slots starting at `root` (its range)
    instead of one: `solver.engine.kernels.reach_probabilities` from a range."""
    slot_parent = tree.slot_parent[player]
    slot_edge = tree.slot_edge[player]
    roots = tree.slot_count[player, 0]
    last = tree.slot_count.shape[1] - 1
    out[0:roots] = root
    for s in range(roots, tree.slot_offset[player, last] + tree.slot_count[player, last]):
        e = slot_edge[s]
        out[s] = out[slot_parent[s]] * (strategy[e] if e >= 0 else 1.0)


@njit(cache=True)
def normalize_average(tree, average, out):
    """The behaviour strategy of summed average weights: each information set's row divided by
    its sum (uniform where the sum is zero)."""
    for n in range(tree.kind.shape[0]):
        if tree.kind[n] != DECISION_NODE:
            continue
        count = tree.num_actions[n]
        for j in range(tree.slot_count[tree.actor[n], n]):
            base = tree.regret_offset[n] + j * count
            total = 0.0
            for a in range(count):
                total += average[base + a]
            for a in range(count):
                out[base + a] = average[base + a] / total if total > 0.0 else 1.0 / count


@njit(cache=True)
def gadget_step(mode, follow, alternatives, weight, gadget, root, positive, negative, floor):
    """One update of the gadget at O's root slots from O's follow values `follow`, leaving O's
    root reach for the next pass in `root`.  `gadget` holds per slot the regrets of following
    and of terminating (``resolve``) or of choosing the slot (``maxmargin``, row 0)."""
    roots = follow.shape[0]
    if mode == RESOLVE:
        for h in range(roots):
            f = gadget[0, h] if gadget[0, h] > 0.0 else 0.0
            t = gadget[1, h] if gadget[1, h] > 0.0 else 0.0
            g = f / (f + t) if f + t > 0.0 else 0.5
            u = g * follow[h] + (1.0 - g) * alternatives[h]
            for row in range(2):
                r = gadget[row, h]
                r = r * positive if r > 0.0 else r * negative
                r += (follow[h] if row == 0 else alternatives[h]) - u
                if floor and r < 0.0:
                    r = 0.0
                gadget[row, h] = r
            f = gadget[0, h] if gadget[0, h] > 0.0 else 0.0
            t = gadget[1, h] if gadget[1, h] > 0.0 else 0.0
            root[h] = weight[h] * (f / (f + t) if f + t > 0.0 else 0.5)
        return
    total = 0.0
    for h in range(roots):
        total += root[h] * (follow[h] - alternatives[h])
    mass = 0.0
    for h in range(roots):
        r = gadget[0, h]
        r = r * positive if r > 0.0 else r * negative
        r += follow[h] - alternatives[h] - total
        if floor and r < 0.0:
            r = 0.0
        gadget[0, h] = r
        mass += r if r > 0.0 else 0.0
    for h in range(roots):
        r = gadget[0, h]
        root[h] = (r if r > 0.0 else 0.0) / mass if mass > 0.0 else 1.0 / roots


@njit(cache=True)
def resolve_iterations(tree, player, mode, own_range, opponent_range, alternatives, strategy,
                       reach, values, action_values, regrets, average, gadget, root, floor,
                       discounts, leaves, chips, stack, weights, biases):
    """One iteration per row of `discounts` (`solver.algorithms.cfr.Schedule.discounts`): O updates
    against P's reach, the gadget (unless ``unsafe``) sets O's root reach, then P updates
    against O's reach.  `root` holds O's root reach (its fixed range when unsafe).  Before each
    update the network values the `leaves` of a depth-limited subgame for the traverser
    (`solver.resolving.leaves.leaf_payoffs`; none in a whole subgame)."""
    other = 1 - player
    empty = np.zeros(0)
    for t in range(discounts.shape[0]):
        positive, negative = discounts[t, 0], discounts[t, 1]
        reach_from(tree, player, strategy, own_range, reach[player])
        reach_from(tree, other, strategy, root, reach[other])
        leaf_payoffs(tree, other, reach[0], reach[1], leaves, chips, stack, weights, biases)
        kernels.cfr_update(tree, other, strategy, reach[other], reach[player], values[other],
                           action_values, regrets, average, positive, negative, floor,
                           discounts[t, 2], discounts[t, 3], empty)
        if mode != UNSAFE:
            roots = tree.slot_count[other, 0]
            gadget_step(mode, values[other][:roots], alternatives, opponent_range, gadget, root,
                        positive, negative, floor)
        reach_from(tree, other, strategy, root, reach[other])  # O's strategy has moved
        leaf_payoffs(tree, player, reach[0], reach[1], leaves, chips, stack, weights, biases)
        kernels.cfr_update(tree, player, strategy, reach[player], reach[other], values[player],
                           action_values, regrets, average, positive, negative, floor,
                           discounts[t, 2], discounts[t, 3], empty)


@dataclass(frozen=True, slots=True, eq=False)
class Resolved:
    """A re-solved subgame: the average `strategy` over the subtree's (information set,
    action) entries (P's is the one to play; O's is what P expects of O), P's reach under it
    at every P slot, and O's best-response counterfactual values at every O slot against it
    (the alternatives of the next re-solve below, in continual re-solving).  `margins`: per O
    root slot, the alternative less O's best-response value (safe modes; ≥ 0 up to the
    solve's error means P is no more exploitable there than before)."""

    strategy: FloatArray
    own_reach: FloatArray
    opponent_values: FloatArray
    margins: FloatArray | None


def resolve(tree: TreeArrays, player: int, own_range: FloatArray, *, mode: str,
            iterations: int, opponent_range: FloatArray | None = None,
            alternatives: FloatArray | None = None, algorithm: str = "cfr+",
            leaves: Leaves | None = None,
            refresh: Callable[[FloatArray, FloatArray], None] | None = None) -> Resolved:
    """Re-solve `tree` (a subgame, root node 0) for `player` from its root range `own_range`;
    a depth-limited subgame with its `leaves` valued by a network at every pass
    (`solver.resolving.leaves`), or by `refresh` once an iteration: called with both players'
    reaches, it writes the leaves' payoffs itself (`solver.resolving.leaves.write_both`; an
    iteration a call from Python, for value functions that are not a network).

    ``unsafe`` needs `opponent_range`; ``resolve`` and ``maxmargin`` need `alternatives` (O's
    counterfactual values at its root slots, in the units of this tree); they ignore
    `opponent_range`, since a hand the blueprint's O never brings here must be guarded all
    the same."""
    if mode not in MODES:
        raise ValueError(f"re-solving modes are {', '.join(MODES)}, not {mode!r}")
    other = 1 - player
    roots = int(tree.slot_count[other, 0])
    if mode == "unsafe":
        if opponent_range is None:
            raise ValueError("unsafe re-solving needs the opponent's range")
        root = np.array(opponent_range, np.float64)
        alt = np.zeros(roots)
        weight = np.ones(roots)
    else:
        if alternatives is None:
            raise ValueError(f"{mode} re-solving needs the opponent's alternative values")
        alt = np.asarray(alternatives, np.float64)
        weight = np.ones(roots)
        root = weight * 0.5 if mode == "resolve" else np.full(roots, 1.0 / max(roots, 1))
    if root.shape != (roots,) or alt.shape != (roots,):
        raise ValueError(f"the opponent has {roots} root slots")
    own = np.asarray(own_range, np.float64)
    if own.shape != (int(tree.slot_count[player, 0]),):
        raise ValueError(f"the player has {int(tree.slot_count[player, 0])} root slots")
    size = int(tree.regret_offset[-1] + _last_entries(tree))
    strategy = np.zeros(size)
    kernels.current_strategy(tree, np.zeros(size), strategy)
    slots = (int(tree.slot_count[0].sum()), int(tree.slot_count[1].sum()))
    reach = (np.zeros(slots[0]), np.zeros(slots[1]))
    values = (np.zeros(slots[0]), np.zeros(slots[1]))
    action_values = np.zeros(size)
    regrets = np.zeros(size)
    average = np.zeros(size)
    gadget = np.zeros((2, roots))
    schedule = SCHEDULES[algorithm]
    discounts = np.array([schedule.discounts(t) for t in range(1, iterations + 1)])
    cut = no_leaves() if leaves is None or refresh is not None else leaves
    network = (cut.nodes, cut.chips, cut.stack, cut.weights, cut.biases)
    code = ["unsafe", "resolve", "maxmargin"].index(mode)
    blocks = [discounts] if refresh is None else [discounts[t:t + 1] for t in range(iterations)]
    for block in blocks:
        if refresh is not None:
            reach_from(tree, player, strategy, own, reach[player])
            reach_from(tree, other, strategy, root, reach[other])
            refresh(reach[0], reach[1])
        resolve_iterations(tree, player, code, own, weight, alt, strategy, reach, values,
                           action_values, regrets, average, gadget, root, schedule.floor,
                           block, *network)
    played = np.zeros(size)
    normalize_average(tree, average, played)
    reach_from(tree, player, played, own, reach[player])
    reach_from(tree, other, played, root, reach[other])
    if refresh is not None:
        refresh(reach[0], reach[1])
    leaf_payoffs(tree, other, reach[0], reach[1], *network)
    kernels.best_response(tree, other, reach[player], values[other], action_values)
    margins = None if mode == "unsafe" else alt - values[other][:roots]
    return Resolved(played, reach[player].copy(), values[other].copy(), margins)


def _last_entries(tree: TreeArrays) -> int:
    """The (information set, action) entries of the tree's last node."""
    n = tree.kind.shape[0] - 1
    if tree.kind[n] != DECISION_NODE:
        return 0
    return int(tree.num_actions[n] * tree.slot_count[tree.actor[n], n])

"""What each action is worth, and how likely each position is, under one strategy profile.

For an information set I of player i and a legal action a, Q(I, a) is i's expected payoff given
that I is reached, i plays a and from then on both players follow the profile; V(I) is
``sum_a profile(a | I) Q(I, a)``. The bottom-up kernels give *counterfactual* values, weighted by
the chance and opponent reach of the histories in I; dividing by that weight,
``sum_{h in I} chance(h) x opponent reach(h)``, conditions on I. The weight itself is the same
pass run with each terminal paying its chance probability instead of its payoff (the player's
own continuation probabilities sum to one), which is why a tree carries `chance_mass`.

The same two passes give the reach probability of every information set (own reach times that
weight), from which the explorer draws a player's range at a public node, and every slot's
conditional value at every public node.

This is what the coach and the luck-adjusted results read: with the stored equilibrium as the
profile, Q(I, a) - V(I) is what a deviation to a costs against the bot in expectation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.engine import kernels
from solver.engine.tree import PublicTree


@dataclass(frozen=True, slots=True)
class ActionValues:
    q: np.ndarray
    """Per (information set, action), laid out like the solvers' flat arrays: Q(I, a), NaN at
    an information set the profile never reaches for the opponent (nothing to condition on)."""
    v: np.ndarray
    """Per information set: V(I) (NaN where Q is)."""
    reach: np.ndarray
    """Per information set: the probability that the profile reaches it, chance included."""
    weight: np.ndarray
    """Per information set: ``sum_{h in I} chance(h) x opponent reach(h)``."""
    value: float
    """Player 0's expected payoff under the profile."""


def action_values(tree: PublicTree, strategy: np.ndarray) -> ActionValues:
    """Q, V, reach and weight at every information set of `tree` under the flat `strategy`."""
    unit = tree.unit_arrays()
    if unit is None:
        raise ValueError(f"{tree.game}: the compiled tree has no chance probabilities, so "
                         "values cannot be conditioned on positions")
    a = tree.arrays
    q = np.full(tree.num_regrets, np.nan)
    weight = np.zeros(tree.num_infosets)
    reach = np.zeros(tree.num_infosets)
    own = [np.zeros(tree.num_slots(p)) for p in (0, 1)]
    for p in (0, 1):
        kernels.reach_probabilities(a, p, strategy, own[p])
    value = 0.0
    offsets = tree.infoset_regret_offset
    for p in (0, 1):
        values = np.zeros(tree.num_slots(p))
        counterfactual = np.zeros(tree.num_regrets)
        root = kernels.evaluate(a, p, strategy, own[1 - p], values, counterfactual)
        if p == 0:
            value = float(root)
        masses = np.zeros(tree.num_slots(p))
        kernels.evaluate(unit, p, strategy, own[1 - p], masses, np.zeros(tree.num_regrets))
        if p == 1:
            masses = -masses  # the kernels pay player 1 the negated matrix
        mine = np.flatnonzero(tree.infoset_player == p)
        slots = _infoset_slots(tree, mine)
        weight[mine] = masses[slots]
        reach[mine] = masses[slots] * own[p][slots]
        for i, w in zip(mine, masses[slots], strict=True):
            if w > 0.0:
                lo, hi = offsets[i], offsets[i + 1]
                q[lo:hi] = counterfactual[lo:hi] / w
    v = np.add.reduceat(np.nan_to_num(q) * strategy, offsets[:-1]) if len(q) else q
    v = np.where(weight > 0.0, v, np.nan)
    return ActionValues(q=q, v=v, reach=reach, weight=weight, value=value)


def _infoset_slots(tree: PublicTree, infosets: np.ndarray) -> np.ndarray:
    """The actor's slot (in its numbering) of each information set in `infosets`."""
    a = tree.arrays
    nodes = tree.infoset_node[infosets]
    player = tree.infoset_player[infosets]
    # Information sets of a node are its actor's slots in order, so the rank of an information
    # set among those of its node is the slot's rank at the node.
    first_of_node = np.searchsorted(tree.infoset_node, nodes, side="left")
    rank = infosets - first_of_node
    slots: np.ndarray = a.slot_offset[player, nodes] + rank
    return slots

"""The leaves of a depth-limited re-solve valued by a counterfactual value network, as DeepStack
values them: at every iteration, from both players' ranges at each leaf.

A depth-limited subgame (`solver.resolving.subgame.compile_subgame` with ``depth_limited``) ends
at the end of the round; what the rest of the hand is worth there depends on both ranges, which
change from iteration to iteration.  Before each CFR pass the ranges at every leaf go through
the network (`network_values`: both ranges normalised, and the pot; each hand's value per chip
in out, for both players), and the traverser's values are written into the leaf's payoff
matrix as a rank-one matrix whose product with the opponent's reach gives them back, so that
`solver.engine.kernels` reads a leaf like any stored terminal and nothing else changes.  A
counterfactual value is linear in the opponent's reach, so the network's value for a range of
mass one is scaled by the opponent's mass at the leaf.

The network is a stack of fully connected layers with rectified linear units between them and
DeepStack's zero-sum correction after the last: whatever it gets wrong, the two players' values
weighted by their ranges add up to zero, the error taken off half from each player.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

__all__ = ["Leaves", "leaf_payoffs", "network_values", "no_leaves", "write_both"]


@dataclass(frozen=True, slots=True, eq=False)
class Leaves:
    """A depth-limited subgame's leaves and the network that values them: per leaf its `nodes`
    entry and the `chips` each player has in there; the network's pot input is chips over
    `stack`; `weights` and `biases` its layers (inputs: player 0's range, player 1's, the pot;
    outputs: both players' values per hand, per chip in)."""

    nodes: IntArray
    chips: FloatArray
    stack: float
    weights: tuple[FloatArray, ...]
    biases: tuple[FloatArray, ...]


def no_leaves() -> Leaves:
    """What a whole subgame passes: no leaf, and a network that is never evaluated."""
    return Leaves(np.zeros(0, np.int64), np.zeros(0), 1.0, (np.zeros((1, 1)),), (np.zeros(1),))


@njit(cache=True)
def network_values(weights, biases, inputs, hands):
    """The network's outputs for rows of inputs (both ranges over `hands` hands, then the pot),
    with the zero-sum correction (see the module docstring)."""
    x = inputs
    last = len(weights) - 1
    for i in range(last):
        x = np.maximum(x @ weights[i] + biases[i], 0.0)
    out = x @ weights[last] + biases[last]
    for row in range(out.shape[0]):
        error = 0.0
        for k in range(2 * hands):
            error += inputs[row, k] * out[row, k]
        for p in range(2):
            mass = 0.0
            for k in range(hands):
                mass += inputs[row, p * hands + k]
            if mass > 0.0:
                for k in range(hands):
                    out[row, p * hands + k] -= error / (2.0 * mass)
    return out


@njit(cache=True)
def leaf_payoffs(tree, traverser, reach0, reach1, nodes, chips, stack, weights, biases):
    """Write the `traverser`'s values at every leaf, from the network on the ranges of the
    moment (`reach0`, `reach1`: the players' reach at every slot), into the leaves' payoff
    matrices."""
    if nodes.shape[0] == 0:
        return
    hands = tree.slot_count[0, nodes[0]]
    inputs = np.zeros((nodes.shape[0], 2 * hands + 1))
    masses = np.zeros((nodes.shape[0], 2))
    for i in range(nodes.shape[0]):
        n = nodes[i]
        for p in range(2):
            reach = reach0 if p == 0 else reach1
            first = tree.slot_offset[p, n]
            mass = 0.0
            for k in range(hands):
                mass += reach[first + k]
            masses[i, p] = mass
            for k in range(hands):
                inputs[i, p * hands + k] = reach[first + k] / mass if mass > 0.0 else 1.0 / hands
        inputs[i, 2 * hands] = chips[i] / stack
    out = network_values(weights, biases, inputs, hands)
    for i in range(nodes.shape[0]):
        n = nodes[i]
        base = tree.payoff_offset[n]
        other = 1 - traverser
        reach = reach1 if traverser == 0 else reach0
        first = tree.slot_offset[other, n]
        norm = 0.0
        for k in range(hands):
            norm += reach[first + k] * reach[first + k]
        for j in range(hands):
            for k in range(hands):
                cell = base + j * hands + k
                if norm == 0.0:
                    tree.payoffs[cell] = 0.0
                elif traverser == 0:  # row j, player 0's hand: value(j) x reach1(k) / |reach1|²
                    tree.payoffs[cell] = (chips[i] * out[i, j] * masses[i, 1]
                                          * reach[first + k] / norm)
                else:  # column k, player 1's hand, paid as minus player 0's payoff
                    tree.payoffs[cell] = -(chips[i] * out[i, hands + k] * masses[i, 0]
                                           * reach[first + j] / norm)


@njit(cache=True)
def write_both(tree, nodes, reach0, reach1, values):
    """Write values for both players at once into the leaves' payoff matrices: ``values[i]``
    (2 x hands) are both players' counterfactual values at leaf ``nodes[i]`` against the
    reaches given, adding up to zero over them.  The matrix M = v0 r1ᵀ/|r1|² − r0 v1ᵀ/|r0|² −
    (r0·v0) r0 r1ᵀ/(|r0|²|r1|²) gives M r1 = v0 to player 0 and −Mᵀ r0 = v1 to player 1."""
    for i in range(nodes.shape[0]):
        n = nodes[i]
        hands = tree.slot_count[0, n]
        f0, f1 = tree.slot_offset[0, n], tree.slot_offset[1, n]
        n0, n1, dot = 0.0, 0.0, 0.0
        for k in range(hands):
            n0 += reach0[f0 + k] * reach0[f0 + k]
            n1 += reach1[f1 + k] * reach1[f1 + k]
            dot += reach0[f0 + k] * values[i, 0, k]
        base = tree.payoff_offset[n]
        for j in range(hands):
            for k in range(hands):
                cell = 0.0
                if n1 > 0.0:
                    cell += values[i, 0, j] * reach1[f1 + k] / n1
                if n0 > 0.0:
                    cell -= reach0[f0 + j] * values[i, 1, k] / n0
                if n0 > 0.0 and n1 > 0.0:
                    cell -= dot * reach0[f0 + j] * reach1[f1 + k] / (n0 * n1)
                tree.payoffs[base + j * hands + k] = cell

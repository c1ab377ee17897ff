"""Numba kernels over a compiled `PublicTree`: reach probabilities, counterfactual values,
regret updates and best responses.

Every function takes the tree's arrays explicitly (numba compiles plain arrays, not dataclasses)
and loops over public nodes in pre-order (top-down) or reverse pre-order (bottom-up).  Values are
*counterfactual*: chance and the opponent's reach are folded in, the traverser's own reach is not,
so summing the traverser's root values gives its expected payoff.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.node_kinds import DECISION_NODE, TERMINAL_NODE

UPDATE, BEST_RESPONSE, EVALUATE = 0, 1, 2


@njit(cache=True, inline="always")
def match_row(regrets, plus, predictive, base, a_count, out):
    """Regret matching for one information set's row: positive regrets normalised (plus the
    last instantaneous regrets when `predictive`), uniform where none is positive."""
    total = 0.0
    for a in range(a_count):
        r = regrets[base + a] + (plus[base + a] if predictive else 0.0)
        if r > 0.0:
            total += r
    for a in range(a_count):
        if total > 0.0:
            r = regrets[base + a] + (plus[base + a] if predictive else 0.0)
            out[base + a] = r / total if r > 0.0 else 0.0
        else:
            out[base + a] = 1.0 / a_count


@njit(cache=True)
def regret_matching(regret_offset, num_actions, kind, actor, slot_count, regrets, plus, out):
    """Current strategy from cumulative regrets at every information set.

    The predictive variant adds the last instantaneous regrets kept in `plus`; pass an empty
    array otherwise.
    """
    predictive = plus.shape[0] > 0
    for n in range(kind.shape[0]):
        if kind[n] != DECISION_NODE:
            continue
        for j in range(slot_count[actor[n], n]):
            match_row(regrets, plus, predictive, regret_offset[n] + j * num_actions[n],
                      num_actions[n], out)


@njit(cache=True)
def reach_probabilities(player, parent, slot_offset, slot_count, slot_parent, slot_edge,
                        strategy, reach):
    """`player`'s own reach at every one of its slots under `strategy` (top-down)."""
    reach[0 : slot_count[player, 0]] = 1.0
    for n in range(1, parent.shape[0]):
        first = slot_offset[player, n]
        for s in range(first, first + slot_count[player, n]):
            e = slot_edge[s]
            reach[s] = reach[slot_parent[s]] * (strategy[e] if e >= 0 else 1.0)


@njit(cache=True)
def counterfactual_update(player, kind, actor, parent, slot_offset, slot_count, slot_parent,
                          slot_edge, num_actions, regret_offset, payoff_offset, payoffs,
                          strategy, own_reach, opponent_reach, values, action_values,
                          regrets, average, positive_discount, negative_discount, floor,
                          average_discount, average_weight, last_regrets, mode):
    """One bottom-up pass for `player` (the traverser).

    With `mode` UPDATE it updates the traverser's regrets and average strategy:
    ``regret = discounted(regret) + instantaneous``, floored at 0 with `floor` (CFR+),
    ``average = average * average_discount + average_weight * own reach * strategy``; the
    instantaneous regrets are also written to `last_regrets` when it is non-empty (predictive
    CFR+), and the traverser's `strategy` is replaced by regret matching on the new regrets
    (plus the last instantaneous ones when predictive).  `mode` BEST_RESPONSE takes the max
    over actions instead, EVALUATE follows `strategy`; both change only `values` and
    `action_values`.
    Returns the traverser's expected payoff (sum of root counterfactual values).
    """
    opponent = 1 - player
    keep_last = last_regrets.shape[0] > 0
    values[:] = 0.0
    action_values[:] = 0.0
    for n in range(kind.shape[0] - 1, -1, -1):
        first = slot_offset[player, n]
        count = slot_count[player, n]
        if kind[n] == TERMINAL_NODE:
            o_first = slot_offset[opponent, n]
            o_count = slot_count[opponent, n]
            base = payoff_offset[n]
            if player == 0:
                for j in range(count):
                    total = 0.0
                    row = base + j * o_count
                    for k in range(o_count):
                        total += payoffs[row + k] * opponent_reach[o_first + k]
                    values[first + j] = total
            else:
                for k in range(o_count):
                    r = opponent_reach[o_first + k]
                    row = base + k * count
                    for j in range(count):
                        values[first + j] -= payoffs[row + j] * r
        elif kind[n] == DECISION_NODE and actor[n] == player:
            a_count = num_actions[n]
            for j in range(count):
                base = regret_offset[n] + j * a_count
                if mode == BEST_RESPONSE:
                    v = action_values[base]
                    for a in range(1, a_count):
                        if action_values[base + a] > v:
                            v = action_values[base + a]
                    values[first + j] = v
                    continue
                v = 0.0
                for a in range(a_count):
                    v += strategy[base + a] * action_values[base + a]
                values[first + j] = v
                if mode == EVALUATE:
                    continue
                w = average_weight * own_reach[first + j]
                positive = 0.0
                for a in range(a_count):
                    instant = action_values[base + a] - v
                    r = regrets[base + a]
                    r = r * positive_discount if r > 0.0 else r * negative_discount
                    r += instant
                    if floor and r < 0.0:
                        r = 0.0
                    regrets[base + a] = r
                    average[base + a] = (average[base + a] * average_discount
                                         + w * strategy[base + a])
                    if keep_last:
                        last_regrets[base + a] = instant
                        r += instant
                    if r > 0.0:
                        positive += r
                # Regret matching for the next iteration, while the row is in cache (written
                # out rather than calling `match_row`: the fused loop is much faster here).
                for a in range(a_count):
                    if positive > 0.0:
                        r = regrets[base + a]
                        if keep_last:
                            r += last_regrets[base + a]
                        strategy[base + a] = r / positive if r > 0.0 else 0.0
                    else:
                        strategy[base + a] = 1.0 / a_count
        if parent[n] >= 0:
            for s in range(first, first + count):
                e = slot_edge[s]
                if e >= 0:
                    action_values[e] += values[s]
                else:
                    values[slot_parent[s]] += values[s]
    total = 0.0
    for s in range(slot_count[player, 0]):
        total += values[s]
    return total


def empty() -> np.ndarray:
    return np.zeros(0, np.float64)

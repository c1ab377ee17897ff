"""Numba passes over a turn subgame (`solver.resolving.turn_subgame.TurnArrays`).

One pass (`turn_pass`) serves a CFR update of one player, that player's best response, or its
value under a fixed strategy: top-down the reach of both players at the turn's nodes, then each
(leaf, river card) block in turn — its reach gathered into that card's order of strength, top
down through the river's betting, the folds and showdowns valued by sums over the opponent's
reach with card removal (as `solver.engine.kernels.card_terminal_values` does, but over a
vector already in order), bottom up with the regret updates — its values scattered back to the
leaf, and last the turn's nodes bottom up.  Every inner loop runs over a contiguous vector of
hands; no per-slot index is read.  A block's work is done before the next one's starts, so the
scratch is one block's, one per thread (`Lanes`): the river cards are shared among the threads
(numba's ``prange``), each card's values kept apart and summed in the cards' order afterwards,
so a pass gives the same numbers, to the bit, on any number of threads.

The strategy, regret and average arrays are float32 (a HULHE turn subgame has 12 million
entries); sums are float64.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from solver.engine.node_kinds import DECISION_NODE, FOLD_NODE

FloatArray = NDArray[np.float64]

class Lanes(NamedTuple):
    """Each thread's scratch for the river blocks it plays (leading axis: the lane), and every
    river card's values at the leaves ``(cards, leaves, turn hands)``."""

    r_reach: FloatArray  # (lanes, 2, river nodes, hands of a block)
    r_values: FloatArray  # (lanes, river nodes, hands of a block)
    sums: FloatArray  # (lanes, 3, cards + 1, terminals)
    held: FloatArray  # (lanes, hands of a block, terminals)
    out: FloatArray  # (lanes, hands of a block, terminals)
    card_values: FloatArray  # (river cards, leaves, turn hands)


UPDATE, BEST_RESPONSE, EVALUATE, RIVER_BEST_RESPONSE = range(4)
"""What `turn_pass` does at the traverser's decisions: a CFR update, the best action, the
strategy's value, or the strategy's value on the turn and the best action on the river (the
last three change nothing)."""


@njit(cache=True)
def uniform_strategy(a, strategy):
    """Every decision's actions equally likely (regret matching on no regret)."""
    starts, actions, widths = decision_blocks(a)
    for b in range(starts.shape[0]):
        k = actions[b]
        strategy[starts[b]:starts[b] + k * widths[b]] = 1.0 / k


@njit(cache=True)
def decision_blocks(a):
    """Every decision's block of the layout: its first entry, its actions and its hands (an
    action's probabilities for the block's hands sit together), the turn's then each river
    tree's under each river card."""
    hands = a.hands.shape[0]
    width = a.order.shape[1]
    count = 0
    for n in range(a.t_kind.shape[0]):
        if a.t_kind[n] == DECISION_NODE:
            count += 1
    for leaf in range(a.leaf_tree.shape[0]):
        tree = a.leaf_tree[leaf]
        for m in range(a.tree_root[tree], a.tree_end[tree]):
            if a.r_kind[m] == DECISION_NODE:
                count += a.order.shape[0]
    starts = np.empty(count, np.int64)
    actions = np.empty(count, np.int64)
    widths = np.empty(count, np.int64)
    b = 0
    for n in range(a.t_kind.shape[0]):
        if a.t_kind[n] == DECISION_NODE:
            starts[b], actions[b], widths[b] = a.t_offset[n], a.t_num_actions[n], hands
            b += 1
    for leaf in range(a.leaf_tree.shape[0]):
        tree = a.leaf_tree[leaf]
        for c in range(a.order.shape[0]):
            base = a.leaf_base[leaf] + c * a.tree_size[tree]
            for m in range(a.tree_root[tree], a.tree_end[tree]):
                if a.r_kind[m] == DECISION_NODE:
                    starts[b], actions[b], widths[b] = (base + a.r_offset[m], a.r_num_actions[m],
                                                        width)
                    b += 1
    return starts, actions, widths


@njit(cache=True, inline="always")
def _fold(pay, own_cards, reach, values, scratch):
    """`values` = pay × the opponent's `reach` over the hands sharing no card with each one
    (hands and reach in the same order; `own_cards` their cards)."""
    scratch[:] = 0.0
    total = 0.0
    for i in range(reach.shape[0]):
        r = reach[i]
        total += r
        scratch[own_cards[i, 0]] += r
        scratch[own_cards[i, 1]] += r
    for i in range(reach.shape[0]):
        values[i] = pay * (total - scratch[own_cards[i, 0]] - scratch[own_cards[i, 1]]
                           + reach[i])


@njit(cache=True, inline="always")
def _river_terminals(a, c, tree, top, sign, other, reach, values, sums, held, out):
    """The traverser's values at every fold and showdown of a river block, all at once.

    Per terminal z and hand i, with R the opponent's reach there and sums over the hands that
    share no card with i (inclusion-exclusion over i's cards, the per-card sums of one pass):
    M the compatible reach, W that of the weaker hands, T that of the equal ones.  A fold pays
    its amount times M; a showdown its stake times W - L = 2W + T - M, so one sweep up the
    order of strength does, where two (up and down) did before.  The terminals' reach is laid
    out hand by hand (a row of terminals per hand), so the innermost loops run over terminals
    and are vectorised."""
    cards = a.sorted_cards[c]
    strength = a.strength[c]
    width = cards.shape[0]
    terms = a.r_terminals[a.tree_terms[tree]:a.tree_terms_end[tree]]
    count = terms.shape[0]
    shows = a.tree_shows[tree]
    rows = a.r_row[other]
    total = sums.shape[1] - 1
    for z in range(count):
        row = reach[rows[terms[z]]]
        for i in range(width):
            held[i, z] = row[i]
    for s in range(3):
        for card in range(sums.shape[1]):
            for z in range(count):
                sums[s, card, z] = 0.0
    every, weaker, equal = sums[0], sums[1], sums[2]
    for i in range(width):
        c1, c2 = cards[i, 0], cards[i, 1]
        for z in range(count):
            r = held[i, z]
            every[total, z] += r
            every[c1, z] += r
            every[c2, z] += r
    for i in range(width):
        c1, c2 = cards[i, 0], cards[i, 1]
        for z in range(count):
            out[i, z] = every[total, z] - every[c1, z] - every[c2, z] + held[i, z]
        for z in range(shows):
            out[i, z] = -out[i, z]
    g = 0
    while g < width:
        end = g + 1
        while end < width and strength[end] == strength[g]:
            end += 1
        for i in range(g, end):
            c1, c2 = cards[i, 0], cards[i, 1]
            for z in range(shows):
                r = held[i, z]
                equal[total, z] += r
                equal[c1, z] += r
                equal[c2, z] += r
        for i in range(g, end):
            c1, c2 = cards[i, 0], cards[i, 1]
            for z in range(shows):
                out[i, z] += 2.0 * (weaker[total, z] - weaker[c1, z] - weaker[c2, z]) + (
                    equal[total, z] - equal[c1, z] - equal[c2, z] + held[i, z])
        for i in range(g, end):
            c1, c2 = cards[i, 0], cards[i, 1]
            for z in range(shows):
                r = held[i, z]
                weaker[c1, z] += r
                weaker[c2, z] += r
                equal[c1, z] = 0.0
                equal[c2, z] = 0.0
        for z in range(shows):
            weaker[total, z] += equal[total, z]
            equal[total, z] = 0.0
        g = end
    for z in range(count):
        m = terms[z]
        pay = (top + a.r_extra[m]) * a.weight
        if z >= shows:
            pay *= sign * a.r_sign[m]
        for i in range(width):
            values[m, i] = pay * out[i, z]


@njit(cache=True, inline="always")
def _decide(mode, mine, child, k, start, width, own_reach, values, node, strategy, regrets,
            average, positive, negative, floor, avg_discount, avg_weight):
    """The values at a decision node from its children's (rows of `values`), and, at the
    traverser's own (`mine`) in ``UPDATE`` mode, the regret and average updates (none with
    `avg_weight` 0: a re-solve's opponent, whose average is never read) and the next
    strategy by regret matching.  Entry of action j, hand i: ``start + j * width + i``."""
    row = values[node]
    first = values[child[0]]
    for i in range(width):
        row[i] = first[i]
    if not mine:
        for j in range(1, k):
            other = values[child[j]]
            for i in range(width):
                row[i] += other[i]
        return
    if mode == BEST_RESPONSE:
        for j in range(1, k):
            for i in range(width):
                v = values[child[j], i]
                if v > row[i]:
                    row[i] = v
        return
    if mode != UPDATE:
        for i in range(width):
            v = 0.0
            for j in range(k):
                v += strategy[start + j * width + i] * values[child[j], i]
            row[i] = v
        return
    for i in range(width):
        v = 0.0
        for j in range(k):
            v += strategy[start + j * width + i] * values[child[j], i]
        row[i] = v
        w = avg_weight * own_reach[i]
        total = 0.0
        for j in range(k):
            e = start + j * width + i
            r = regrets[e]
            r = r * positive if r > 0.0 else r * negative
            r += values[child[j], i] - v
            if floor and r < 0.0:
                r = 0.0
            regrets[e] = r
            if avg_weight != 0.0:
                average[e] = average[e] * avg_discount + w * strategy[e]
            if r > 0.0:
                total += r
        for j in range(k):
            e = start + j * width + i
            r = regrets[e]
            strategy[e] = (r if r > 0.0 else 0.0) / total if total > 0.0 else 1.0 / k


@njit(cache=True, parallel=True)
def _river_blocks(a, traverser, mode, strategy, regrets, average, t_reach, lanes, positive,
                  negative, floor, avg_discount, avg_weight, out_nodes, river_out, visit):
    """Every (leaf, river card in `visit`) block of `turn_pass`, the cards shared among the
    lanes (the only parallel loop: a pass's other work is too small to share)."""
    other = 1 - traverser
    hands = a.hands.shape[0]
    width = a.order.shape[1]
    sign = 1.0 if traverser == 0 else -1.0
    count = visit.shape[0]
    threads = lanes.r_values.shape[0]
    for lane in prange(threads):
        r_reach = lanes.r_reach[lane]
        r_values = lanes.r_values[lane]
        for k in range(lane, count, threads):
            c = visit[k]
            order = a.order[c]
            at_leaves = lanes.card_values[c]
            for n in range(a.t_kind.shape[0]):
                leaf = a.t_leaf[n]
                if leaf < 0:
                    continue
                tree = a.leaf_tree[leaf]
                root, end = a.tree_root[tree], a.tree_end[tree]
                base = a.leaf_base[leaf] + c * a.tree_size[tree]
                for p in range(2):
                    rows = a.r_row[p]
                    for i in range(width):
                        r_reach[p, root, i] = t_reach[p, n, order[i]]
                    for m in range(root + 1, end):
                        if rows[m] != m:
                            continue
                        q = a.r_parent[m]
                        e = base + a.r_offset[q] + a.r_taken[m] * width
                        src = rows[q]
                        for i in range(width):
                            r_reach[p, m, i] = r_reach[p, src, i] * strategy[e + i]
                _river_terminals(a, c, tree, a.t_value[n], sign, other, r_reach[other],
                                 r_values, lanes.sums[lane], lanes.held[lane], lanes.out[lane])
                mine_rows = a.r_row[traverser]
                for m in range(end - 1, root - 1, -1):
                    if a.r_kind[m] == DECISION_NODE:
                        _decide(mode, a.r_actor[m] == traverser, a.r_child[m],
                                a.r_num_actions[m], base + a.r_offset[m], width,
                                r_reach[traverser, mine_rows[m]], r_values, m, strategy,
                                regrets, average, positive, negative, floor, avg_discount,
                                avg_weight)
                for j in range(out_nodes.shape[1]):
                    at = out_nodes[leaf, j]
                    if at >= 0:
                        for i in range(width):
                            river_out[leaf, c, j, order[i]] = r_values[at, i]
                for i in range(hands):
                    at_leaves[leaf, i] = 0.0
                for i in range(width):
                    at_leaves[leaf, order[i]] = r_values[root, i]


@njit(cache=True)
def turn_pass(a, traverser, mode, strategy, regrets, average, roots, t_reach, t_values, lanes,
              positive, negative, floor, avg_discount, avg_weight, out_nodes, river_out, visit,
              scale):
    """One pass for `traverser` (see the module docstring); `roots[p]` is player p's reach at
    the root (over the turn's hands).  Leaves the traverser's values at every turn node in
    `t_values` and both players' reach in `t_reach`; with `out_nodes` ``(leaves, k)`` not
    empty, the traverser's values at leaf l's river nodes ``out_nodes[l]`` (-1: none) of
    every block in ``river_out[l, c, k]`` (over
    the turn's hands, 0 for those holding the card).  Only the river cards `visit` (numbers
    into the subgame's) are played, their values at the leaves times `scale`: all of them
    times one is exact, a sample of k of C times C/k an unbiased estimate (public chance
    sampling, Johanson et al. 2012)."""
    other = 1 - traverser
    hands = a.hands.shape[0]
    for p in range(2):
        t_reach[p, 0] = roots[p]
        for n in range(1, a.t_kind.shape[0]):
            q = a.t_parent[n]
            if a.t_actor[q] == p:
                e = a.t_offset[q] + a.t_taken[n] * hands
                for i in range(hands):
                    t_reach[p, n, i] = t_reach[p, q, i] * strategy[e + i]
            else:
                t_reach[p, n] = t_reach[p, q]
    river_mode = BEST_RESPONSE if mode == RIVER_BEST_RESPONSE else mode
    turn_mode = EVALUATE if mode == RIVER_BEST_RESPONSE else mode
    _river_blocks(a, traverser, river_mode, strategy, regrets, average, t_reach, lanes,
                  positive, negative, floor, avg_discount, avg_weight, out_nodes, river_out,
                  visit)
    sign = 1.0 if traverser == 0 else -1.0
    count = visit.shape[0]
    for n in range(a.t_kind.shape[0]):
        leaf = a.t_leaf[n]
        for i in range(hands):
            t_values[n, i] = 0.0
        if leaf < 0:
            continue
        for k in range(count):
            row = lanes.card_values[visit[k], leaf]
            for i in range(hands):
                t_values[n, i] += scale * row[i]
    for n in range(a.t_kind.shape[0] - 1, -1, -1):
        kind = a.t_kind[n]
        if kind == FOLD_NODE:
            _fold(sign * a.t_value[n], a.hands, t_reach[other, n], t_values[n], a.card_scratch)
        elif kind == DECISION_NODE:
            _decide(turn_mode, a.t_actor[n] == traverser, a.t_child[n], a.t_num_actions[n],
                    a.t_offset[n], hands, t_reach[traverser, n], t_values, n, strategy,
                    regrets, average, positive, negative, floor, avg_discount, avg_weight)


@njit(cache=True)
def normalise(a, average, out):
    """The behaviour strategy of summed average weights, per decision and hand (uniform where
    a hand never reached it)."""
    starts, actions, widths = decision_blocks(a)
    for b in range(starts.shape[0]):
        _normalise_node(average, out, starts[b], actions[b], widths[b])


@njit(cache=True, inline="always")
def _normalise_node(average, out, start, k, width):
    for i in range(width):
        total = 0.0
        for j in range(k):
            total += average[start + j * width + i]
        for j in range(k):
            out[start + j * width + i] = average[start + j * width + i] / total \
                if total > 0.0 else 1.0 / k

"""Numba kernels of counterfactual regret minimisation over a compiled public tree.

Each kernel takes the tree as one `solver.engine.tree.TreeArrays` (numba passes a named tuple of
arrays as a single argument), the player it works for, and only the arrays it reads or writes:

* `reach_probabilities`: a player's own reach, top-down;
* `cfr_update`: one CFR update of the traverser, bottom-up (Zinkevich et al. 2007):
  counterfactual values, regret and average-strategy updates under a schedule's discounts, and
  regret matching of the next strategy;
* `cfr_iterations`: a block of alternating iterations, each two reach passes and two updates;
* `evaluate` and `best_response`: the traverser's value when it follows a strategy or
  best-responds, bottom-up;
* `current_strategy`: regret matching at every information set, and `regret_matching` on one;
* `normalized`: a behaviour strategy from per-action weights (an average strategy).

Values are *counterfactual*: chance and the opponent's reach are folded in, the traverser's own
reach is not, so the traverser's root values sum to its expected payoff.  Nodes are numbered in
pre-order, so a forward loop is top-down and a backward loop bottom-up; inside a public node the
work is a short vector over the traverser's private states (its *slots*).  The pieces every
bottom-up pass shares are written once: `terminal_values` and `card_terminal_values` (the only
places that know what a terminal pays: payoff matrices, and a card game's folds and showdowns
with card removal, computed before the pass since they depend on the opponent's reach alone),
`pass_up` (slot values to the parent node) and `root_value`; regret matching is stated once, by
`positive_regret` and `matched_probability`, for these kernels, `solver.algorithms.mccfr` and
`solver.algorithms.regret_matching`.

Numba's disk cache (``cache=True``) is keyed by each function's own source file: after editing
a helper here, clear the ``__pycache__`` of the modules that inline it (`solver.algorithms.mccfr`)
too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.engine.node_kinds import DECISION_NODE, FOLD_NODE, SHOWDOWN_NODE, TERMINAL_NODE


@njit(cache=True, inline="always")
def positive_regret(r):
    """What regret matching weighs an action by: its regret's positive part."""
    return r if r > 0.0 else 0.0


@njit(cache=True, inline="always")
def matched_probability(r, total, count):
    """Regret matching (Hart & Mas-Colell 2000): an action's probability is its positive regret
    over `total`, the sum of the positive regrets of its information set's `count` actions, and
    uniform when none is positive.

    With `positive_regret`, the one statement of the rule.  Every user sums a row with
    `positive_regret` and then maps it with this; the scalar form lets `cfr_update` do both in
    the loops where the row is updated (a row helper taking arrays, even inlined, made that
    pass about twice as slow)."""
    if total > 0.0:
        return r / total if r > 0.0 else 0.0
    return 1.0 / count


@njit(cache=True)
def regret_matching(regrets, base, count, out, out_base):
    """Regret matching on one information set: ``out[out_base + a]`` for its `count` regrets
    from ``regrets[base]``."""
    total = 0.0
    for a in range(count):
        total += positive_regret(regrets[base + a])
    for a in range(count):
        out[out_base + a] = matched_probability(regrets[base + a], total, count)


@njit(cache=True)
def current_strategy(tree, regrets, out):
    """Regret matching at every information set."""
    for n in range(tree.kind.shape[0]):
        if tree.kind[n] != DECISION_NODE:
            continue
        count = tree.num_actions[n]
        for j in range(tree.slot_count[tree.actor[n], n]):
            base = tree.regret_offset[n] + j * count
            regret_matching(regrets, base, count, out, base)


@njit(cache=True)
def reach_probabilities(tree, player, strategy, out):
    """`player`'s own reach at every one of its slots under `strategy`: the product of its own
    action probabilities on the way down (chance and the other player are left out).

    Slots are numbered node by node and a slot's parent lies in an earlier node, so one forward
    loop over the slots is a top-down pass."""
    slot_parent = tree.slot_parent[player]
    slot_edge = tree.slot_edge[player]
    roots = tree.slot_count[player, 0]
    last = tree.slot_count.shape[1] - 1
    out[0:roots] = 1.0
    for s in range(roots, tree.slot_offset[player, last] + tree.slot_count[player, last]):
        e = slot_edge[s]
        out[s] = out[slot_parent[s]] * (strategy[e] if e >= 0 else 1.0)


@njit(cache=True, inline="always")
def terminal_values(tree, node, player, opponent_reach, values):
    """`player`'s counterfactual values at the slots of `TERMINAL_NODE` `node`.

    The node's matrix M holds player 0's payoffs weighted by chance, so player 0 gets
    ``M @ opponent_reach`` and player 1 ``-(M.T @ opponent_reach)`` (zero-sum).  Player 1's
    values are accumulated into `values`, which the bottom-up kernels zero first.  With
    `card_terminal_values` (a card game's folds and showdowns) the only code that knows what a
    terminal pays: a new kind of terminal is a new branch in one of them."""
    first = tree.slot_offset[player, node]
    count = tree.slot_count[player, node]
    o_first = tree.slot_offset[1 - player, node]
    o_count = tree.slot_count[1 - player, node]
    base = tree.payoff_offset[node]
    payoffs = tree.payoffs
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


@njit(cache=True)
def card_terminal_values(tree, player, opponent_reach, values):
    """`player`'s counterfactual values at every `FOLD_NODE` and `SHOWDOWN_NODE` of a card
    game's tree, where both players' slots are the same hands.

    A fold pays every deal the same (`terminal_value`, player 0's payoff times the chance
    probability of one deal), so a hand's value is the payoff times the opponent's reach over
    the hands that share no card with it: by inclusion-exclusion over the hand's cards, all
    hands, less those holding either card, plus the one holding both (the same hand, at the
    same slot).  A showdown pays the stake to the stronger hand: the board's hands were sorted
    by strength when the tree was compiled, so one sweep from the weakest up sums the reach of
    the hands below each group of equal hands (in all and per card, so that the hands sharing
    a card can be taken out), and one from the strongest down does the same above; a hand ties
    with itself, so nothing is added back.  Both cost O(hands + cards): no hand-by-hand matrix.

    These values depend on the opponent's reach alone, which is fixed during a bottom-up pass,
    so the kernels compute all of them in this one call before the pass (a call per terminal
    cost more than its work, and inlining the code beside the matrix terminals made numba count
    references at every terminal of every game).  Written out for one and two cards: a helper
    called per hand costs more in reference counting than the work itself."""
    card_terminals_of(tree, player, opponent_reach, values, tree.kind, tree.kind.shape[0], False)


@njit(cache=True, inline="always")
def card_terminals_of(tree, player, opponent_reach, values, nodes, count, listed):
    """`card_terminal_values` at the card terminals among the first `count` of `nodes` when
    `listed` (the pruned kernels' visited nodes, `solver.engine.pruning`), else at all."""
    per_card = tree.card_scratch
    if per_card.shape[0] == 0:
        return
    kind = tree.kind
    slot_offset = tree.slot_offset
    slot_count = tree.slot_count
    slot_hand = tree.slot_hand
    hands = tree.hand_cards
    terminal_value = tree.terminal_value
    showdown_offset = tree.showdown_offset
    order = tree.showdown_order
    strength = tree.showdown_strength
    two = hands.shape[1] == 2
    for i in range(count):
        node = nodes[i] if listed else i
        if kind[node] != FOLD_NODE and kind[node] != SHOWDOWN_NODE:
            continue
        first = slot_offset[player, node]
        o_first = slot_offset[1 - player, node]
        count = slot_count[player, node]
        if kind[node] == FOLD_NODE:
            per_card[:] = 0.0
            total = 0.0
            for k in range(count):
                r = opponent_reach[o_first + k]
                h = slot_hand[1 - player, o_first + k]
                total += r
                per_card[hands[h, 0]] += r
                if two:
                    per_card[hands[h, 1]] += r
            payoff = terminal_value[node] if player == 0 else -terminal_value[node]
            for j in range(count):
                h = slot_hand[player, first + j]
                if two:
                    reach = (total - per_card[hands[h, 0]] - per_card[hands[h, 1]]
                             + opponent_reach[o_first + j])
                else:
                    reach = total - per_card[hands[h, 0]]
                values[first + j] = payoff * reach
            continue
        # Upward: the reach of the strictly weaker hands; then downward, less that of the
        # strictly stronger ones.  Hands of equal strength form a group, valued before any of
        # them is added to the sums.
        at = showdown_offset[node]
        stake = terminal_value[node]
        per_card[:] = 0.0
        passed = 0.0
        g = at
        while g < at + count:
            end = g + 1
            while end < at + count and strength[end] == strength[g]:
                end += 1
            for i in range(g, end):
                j = order[i]
                h = slot_hand[player, first + j]
                reach = passed - per_card[hands[h, 0]]
                if two:
                    reach -= per_card[hands[h, 1]]
                values[first + j] = stake * reach
            for i in range(g, end):
                j = order[i]
                r = opponent_reach[o_first + j]
                h = slot_hand[player, first + j]  # the same hand as the opponent's slot j
                passed += r
                per_card[hands[h, 0]] += r
                if two:
                    per_card[hands[h, 1]] += r
            g = end
        per_card[:] = 0.0
        passed = 0.0
        g = at + count - 1
        while g >= at:
            end = g - 1
            while end >= at and strength[end] == strength[g]:
                end -= 1
            for i in range(g, end, -1):
                j = order[i]
                h = slot_hand[player, first + j]
                reach = passed - per_card[hands[h, 0]]
                if two:
                    reach -= per_card[hands[h, 1]]
                values[first + j] -= stake * reach
            for i in range(g, end, -1):
                j = order[i]
                r = opponent_reach[o_first + j]
                h = slot_hand[player, first + j]
                passed += r
                per_card[hands[h, 0]] += r
                if two:
                    per_card[hands[h, 1]] += r
            g = end


@njit(cache=True, inline="always")
def pass_up(tree, node, player, values, action_values, count=-1):
    """Add `player`'s values at `node` to where each slot came from: the value of the action
    the player took at the parent node, or (after chance or the other player's move, whose
    probabilities are already in the reach and the payoffs) the parent slot's value.  `count`,
    when given, is the node's slot count as a caller compiled for one width knows it (a loop
    of a length LLVM knows: pruned Dudo about 5% faster)."""
    if tree.parent[node] < 0:
        return
    first = tree.slot_offset[player, node]
    for s in range(first, first + (count if count >= 0 else tree.slot_count[player, node])):
        e = tree.slot_edge[player, s]
        if e >= 0:
            action_values[e] += values[s]
        else:
            values[tree.slot_parent[player, s]] += values[s]


@njit(cache=True, inline="always")
def root_value(tree, player, values):
    """`player`'s expected payoff: the sum of its counterfactual values at the root."""
    total = 0.0
    for s in range(tree.slot_count[player, 0]):
        total += values[s]
    return total


@njit(cache=True, inline="always")
def expected_action_value(strategy, action_values, base, count):
    """An information set's value under `strategy`: sum over actions of probability x value."""
    v = 0.0
    for a in range(count):
        v += strategy[base + a] * action_values[base + a]
    return v


@njit(cache=True)
def cfr_update(tree, player, strategy, own_reach, opponent_reach, values, action_values, regrets,
               average, positive_discount, negative_discount, floor, average_discount,
               average_weight, last_regrets):
    """One CFR update of `player` (the traverser) against the other's reach, bottom-up.

    At each of the traverser's information sets, with counterfactual action values v(a) and
    value v = sum_a strategy(a) v(a):
    ``regret(a) = regret(a) x (positive_discount if regret(a) > 0 else negative_discount)
    + v(a) - v``, floored at 0 when `floor` (CFR+);
    ``average(a) = average(a) x average_discount + average_weight x own reach x strategy(a)``;
    the instantaneous regrets ``v(a) - v`` also go to `last_regrets` when it is non-empty
    (predictive CFR+); and the traverser's `strategy` becomes regret matching on the new
    regrets (plus `last_regrets` when predictive), while the row is still in cache.
    `values` and `action_values` are scratch of the traverser's slot count and of the regrets'
    length.  Returns the traverser's expected payoff under `strategy` as it was.
    """
    keep_last = last_regrets.shape[0] > 0
    values[:] = 0.0
    action_values[:] = 0.0
    card_terminal_values(tree, player, opponent_reach, values)
    for n in range(tree.kind.shape[0] - 1, -1, -1):
        kind = tree.kind[n]
        if kind == DECISION_NODE:
            if tree.actor[n] == player:
                first = tree.slot_offset[player, n]
                count = tree.num_actions[n]
                # A forced move keeps regret 0 and strategy 1 whatever it is worth, and an average
                # that normalises to 1 even if left at 0: only its value is needed (half of
                # Dudo's decision nodes, the ones after the highest bid; 1.1x its iteration).
                # An empty loop below, not a `continue`: numba compiled that 4x slower.
                forced = count == 1
                if forced:
                    base = tree.regret_offset[n]
                    for j in range(tree.slot_count[player, n]):
                        values[first + j] = action_values[base + j]
                for j in range(0 if forced else tree.slot_count[player, n]):
                    base = tree.regret_offset[n] + j * count
                    v = expected_action_value(strategy, action_values, base, count)
                    values[first + j] = v
                    w = average_weight * own_reach[first + j]
                    averaging = w != 0.0 or average_discount != 1.0  # else it stays as it is
                    total = 0.0  # of the positive regrets to match on
                    for a in range(count):
                        instant = action_values[base + a] - v
                        r = regrets[base + a]
                        r = r * positive_discount if r > 0.0 else r * negative_discount
                        r += instant
                        if floor and r < 0.0:
                            r = 0.0
                        regrets[base + a] = r
                        if averaging:
                            average[base + a] = (average[base + a] * average_discount
                                                 + w * strategy[base + a])
                        if keep_last:
                            last_regrets[base + a] = instant
                            r += instant
                        total += positive_regret(r)
                    for a in range(count):  # regret matching, the row still in cache
                        r = regrets[base + a]
                        if keep_last:
                            r += last_regrets[base + a]
                        strategy[base + a] = matched_probability(r, total, count)
        elif kind == TERMINAL_NODE:
            terminal_values(tree, n, player, opponent_reach, values)
        pass_up(tree, n, player, values, action_values)
    return root_value(tree, player, values)


@njit(cache=True)
def cfr_iterations(tree, strategy, reach, values, action_values, regrets, average, floor,
                   discounts, last_regrets):
    """One CFR iteration per row of `discounts` (positive, negative and average discount,
    average weight; see `cfr_update`), players alternating: player 0 updates against player
    1's reach, then player 1 against player 0's new reach.

    `reach` and `values` are pairs of per-player arrays.  Before a player's update only the
    other's reach is recomputed: the player's own strategy has not changed since the other's
    update computed its reach, so ``reach[0]`` must hold player 0's reach under `strategy` on
    entry (it does again on return).  This loop is the whole of
    `solver.algorithms.cfr.CFRSolver.iterate`; it is a kernel so that a block of iterations costs
    one call from Python: dispatching four calls with a named tuple argument took a fifth of a Leduc
    iteration."""
    for t in range(discounts.shape[0]):
        for player in range(2):
            other = 1 - player
            reach_probabilities(tree, other, strategy, reach[other])
            cfr_update(tree, player, strategy, reach[player], reach[other], values[player],
                       action_values, regrets, average, discounts[t, 0], discounts[t, 1], floor,
                       discounts[t, 2], discounts[t, 3], last_regrets)


@njit(cache=True)
def evaluate(tree, player, strategy, opponent_reach, values, action_values):
    """`player`'s expected payoff when it follows `strategy` against the other's reach;
    `values` and `action_values` are scratch (see `cfr_update`)."""
    values[:] = 0.0
    action_values[:] = 0.0
    card_terminal_values(tree, player, opponent_reach, values)
    for n in range(tree.kind.shape[0] - 1, -1, -1):
        kind = tree.kind[n]
        if kind == DECISION_NODE:
            if tree.actor[n] == player:
                first = tree.slot_offset[player, n]
                count = tree.num_actions[n]
                for j in range(tree.slot_count[player, n]):
                    base = tree.regret_offset[n] + j * count
                    values[first + j] = expected_action_value(strategy, action_values, base,
                                                              count)
        elif kind == TERMINAL_NODE:
            terminal_values(tree, n, player, opponent_reach, values)
        pass_up(tree, n, player, values, action_values)
    return root_value(tree, player, values)


@njit(cache=True)
def best_response(tree, player, opponent_reach, values, action_values):
    """What `player` gets by best-responding to the other's reach: at each of its information
    sets the best action value.  Exact, because an information set is one (public node, slot)
    pair, whole in this pass.  `values` and `action_values` are scratch (see `cfr_update`)."""
    values[:] = 0.0
    action_values[:] = 0.0
    card_terminal_values(tree, player, opponent_reach, values)
    for n in range(tree.kind.shape[0] - 1, -1, -1):
        kind = tree.kind[n]
        if kind == DECISION_NODE:
            if tree.actor[n] == player:
                first = tree.slot_offset[player, n]
                count = tree.num_actions[n]
                for j in range(tree.slot_count[player, n]):
                    base = tree.regret_offset[n] + j * count
                    v = action_values[base]
                    for a in range(1, count):
                        if action_values[base + a] > v:
                            v = action_values[base + a]
                    values[first + j] = v
        elif kind == TERMINAL_NODE:
            terminal_values(tree, n, player, opponent_reach, values)
        pass_up(tree, n, player, values, action_values)
    return root_value(tree, player, values)


@njit(cache=True)
def normalized(offsets, weights, out):
    """`out` = `weights` divided by their sum at each information set (``offsets[i]`` to
    ``offsets[i + 1]``); uniform where that sum is not positive.  One pass where numpy's
    reduceat, repeat and where took eight (0.079 s against 0.016 on dudo-2v1's 7 M weights)."""
    for i in range(offsets.shape[0] - 1):
        first, end = offsets[i], offsets[i + 1]
        total = 0.0
        for k in range(first, end):
            total += weights[k]
        if total > 0.0:
            for k in range(first, end):
                out[k] = weights[k] / total
        else:
            for k in range(first, end):
                out[k] = 1.0 / (end - first)


def empty() -> np.ndarray:
    """The empty array that stands for "none" (`last_regrets` of a non-predictive schedule)."""
    return np.zeros(0, np.float64)

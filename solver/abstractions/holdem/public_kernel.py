"""The numba kernel of public chance sampling (PCS) over a hold'em member's bucket abstraction.

Johanson, Bard, Lanctot, Gibson & Bowling (2012, "Efficient Nash equilibrium approximation
through Monte Carlo counterfactual regret minimization") sample only the *public* chance events:
an iteration deals a board, and walks the betting tree once with a vector over every hand each
player may hold on that board (1,081 pairs of the 47 cards the board leaves, in hold'em), so a
sample covers every private deal at once, card removal included.  Against chance sampling (one
deal per walk) the walk costs a thousand times more and tells a thousand times more, with far
less variance, and it runs in tight loops over contiguous vectors.

One iteration:

* deal the board (every round's cards), list the live hands, look up every hand's bucket in
  every round and its final strength, and sort the hands by strength once;
* walk the betting tree depth first with both players' reach vectors (simultaneous updates,
  as the chance-sampled kernel does): at a decision, each hand's strategy is regret matching
  on its bucket's regrets; a fold pays every pair of hands that share no card, an O(hands)
  sum with per-card corrections; a showdown compares them in one sweep up the sorted hands
  (ties and the cards two hands share taken out by per-card sums), O(hands) too;
* on the way back, each hand's counterfactual regret is added to its bucket's entry (the
  hands of one bucket sum, as an imperfect-recall information set does), and its reach times
  its strategy to the bucket's average.

The tables are laid out per round as (decision row, bucket, action slot), so that the entries
one node touches are one block of ``buckets * slots`` floats whatever the hands' buckets are.  A
subtree neither player reaches is skipped.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.abstractions.holdem.sampled_kernel import (
    DECISION,
    FOLDED,
    BettingArrays,
    Cards,
    bucket_of,
)
from solver.cards.evaluator import rank_state

IntArray = NDArray[np.int64]
F32 = NDArray[np.float32]
F64 = NDArray[np.float64]


@njit(cache=True)
def tree_depth(tree: BettingArrays) -> int:
    """The most decisions on a path from the root, plus one (the terminal)."""
    n_nodes = tree.kind.shape[0]
    depth = np.zeros(n_nodes, np.int64)
    deepest = 0
    for n in range(n_nodes):
        if tree.kind[n] == DECISION:
            for a in range(tree.child.shape[1]):
                c = tree.child[n, a]
                if c >= 0:
                    depth[c] = depth[n] + 1
        deepest = max(deepest, depth[n])
    return deepest + 1


@njit(cache=True)
def deal_board(cards: Cards, deck: IntArray, hands: IntArray, buckets: IntArray,
               strength: IntArray, group_end: IntArray) -> int:
    """Deal a board into ``deck[:board]`` (a partial shuffle), and list every hand that misses
    it, weakest first: its cards (`hands`), its bucket in every round, its final strength and
    the end of its run of equal strength (`group_end`).  Returns the number of live hands."""
    nc = cards.num_cards
    board = cards.board_dealt[cards.num_rounds - 1]
    for j in range(board):
        pick = j + np.random.randint(nc - j)
        deck[j], deck[pick] = deck[pick], deck[j]
    on_board = np.zeros(nc, np.bool_)
    key = 0
    bits = 0
    for j in range(board):
        on_board[deck[j]] = True
        key += cards.card_key[deck[j]]
        bits |= cards.card_bit[deck[j]]
    hand = np.empty(2 + board, np.int64)
    for j in range(board):
        hand[2 + j] = deck[j]
    h = 0
    for a in range(nc):
        if on_board[a]:
            continue
        for b in range(a + 1, nc):
            if on_board[b]:
                continue
            hands[h, 0] = a
            hands[h, 1] = b
            hand[0] = a
            hand[1] = b
            for r in range(cards.num_rounds):
                buckets[r, h] = bucket_of(cards, r, hand[:2 + cards.board_dealt[r]])
            strength[h] = rank_state(key + cards.card_key[a] + cards.card_key[b],
                                     bits | cards.card_bit[a] | cards.card_bit[b])
            h += 1
    # Every vector is kept in the order of strength, so a showdown is one plain sweep.
    order = np.argsort(strength[:h], kind="mergesort")
    scratch = np.empty(h, np.int64)
    for column in range(2):
        for i in range(h):
            scratch[i] = hands[order[i], column]
        hands[:h, column] = scratch
    for r in range(cards.num_rounds):
        for i in range(h):
            scratch[i] = buckets[r, order[i]]
        buckets[r, :h] = scratch
    for i in range(h):
        scratch[i] = strength[order[i]]
    strength[:h] = scratch
    i = 0
    while i < h:
        j = i + 1
        while j < h and strength[j] == strength[i]:
            j += 1
        for q in range(i, j):
            group_end[q] = j
        i = j
    return h


@njit(cache=True)
def _bucket_hands(cards: Cards, deck: IntArray, hands: IntArray, h: int, out: IntArray) -> None:
    """The bucket in every round under `cards` of each of the `h` hands `deal_board` listed
    (the board is ``deck[:board]``)."""
    board = cards.board_dealt[cards.num_rounds - 1]
    hand = np.empty(2 + board, np.int64)
    for j in range(board):
        hand[2 + j] = deck[j]
    for i in range(h):
        hand[0] = hands[i, 0]
        hand[1] = hands[i, 1]
        for r in range(cards.num_rounds):
            out[r, i] = bucket_of(cards, r, hand[:2 + cards.board_dealt[r]])


@njit(cache=True)
def _card_sums(h: int, hands: IntArray, reach: F64, sums: F64) -> float:
    """A reach vector's sum in all (returned) and per card (`sums`)."""
    sums[:] = 0.0
    total = 0.0
    for i in range(h):
        x = reach[i]
        total += x
        sums[hands[i, 0]] += x
        sums[hands[i, 1]] += x
    return total


@njit(cache=True)
def _fold(payoff0: float, h: int, hands: IntArray, r0: F64, r1: F64, s0: F64, s1: F64,
          t0: float, t1: float, out: F64) -> None:
    """Both players' values at a fold that pays player 0 `payoff0`: each hand against the
    other player's reach (`r0`, `r1`, with their per-card sums `s0`, `s1` and totals) over
    the hands that share no card with it."""
    for i in range(h):
        a = hands[i, 0]
        b = hands[i, 1]
        out[0, i] = payoff0 * (t1 - s1[a] - s1[b] + r1[i])
        out[1, i] = -payoff0 * (t0 - s0[a] - s0[b] + r0[i])


@njit(cache=True)
def _showdown(stake: float, h: int, hands: IntArray, group_end: IntArray, r0: F64, r1: F64,
              s0: F64, s1: F64, t0: float, t1: float, out: F64, lower: F64) -> None:
    """Both players' values at a showdown for `stake` each, against the other's reach over
    the hands sharing no card, in one sweep up the hands (weakest first): a hand wins against
    the weaker ones, W, and loses against the stronger ones, every hand less those at most as
    strong, WE; so its value is ``W + WE - every``.  W is read before its run of equal hands
    joins the sums below it, WE after."""
    lower[:, :] = 0.0
    below0 = 0.0
    below1 = 0.0
    low0 = lower[0]
    low1 = lower[1]
    q = 0
    while q < h:
        end = group_end[q]
        if end == q + 1:  # a strength of its own: no tie, so WE is W
            a = hands[q, 0]
            b = hands[q, 1]
            x = r0[q]
            y = r1[q]
            out[0, q] = stake * (2.0 * (below1 - low1[a] - low1[b]) - (t1 - s1[a] - s1[b] + y))
            out[1, q] = stake * (2.0 * (below0 - low0[a] - low0[b]) - (t0 - s0[a] - s0[b] + x))
            below0 += x
            below1 += y
            low0[a] += x
            low0[b] += x
            low1[a] += y
            low1[b] += y
            q = end
            continue
        for i in range(q, end):
            a = hands[i, 0]
            b = hands[i, 1]
            out[0, i] = below1 - low1[a] - low1[b] - (t1 - s1[a] - s1[b] + r1[i])
            out[1, i] = below0 - low0[a] - low0[b] - (t0 - s0[a] - s0[b] + r0[i])
        for i in range(q, end):
            a = hands[i, 0]
            b = hands[i, 1]
            x = r0[i]
            y = r1[i]
            below0 += x
            below1 += y
            low0[a] += x
            low0[b] += x
            low1[a] += y
            low1[b] += y
        for i in range(q, end):
            a = hands[i, 0]
            b = hands[i, 1]
            out[0, i] = stake * (out[0, i] + below1 - low1[a] - low1[b] + r1[i])
            out[1, i] = stake * (out[1, i] + below0 - low0[a] - low0[b] + r0[i])
        q = end


@njit(cache=True)
def _terminal(tree: BettingArrays, c: int, p: int, h: int, hands: IntArray,
              group_end: IntArray, mine: F64, theirs: F64, their_sums: F64,
              their_total: float, out: F64, sums: F64, lower: F64) -> None:
    """Both players' values at terminal `c`, reached by `p`'s action: `mine` is p's reach
    after it, `theirs` the other's (its per-card sums and total worked out once at the
    node, since every action of p leaves them as they were)."""
    total = _card_sums(h, hands, mine, sums)
    if p == 0:
        r0, r1, s0, s1, t0, t1 = mine, theirs, sums, their_sums, total, their_total
    else:
        r0, r1, s0, s1, t0, t1 = theirs, mine, their_sums, sums, their_total, total
    if tree.kind[c] == FOLDED:
        _fold(tree.payoff[c], h, hands, r0, r1, s0, s1, t0, t1, out)
    else:
        _showdown(tree.payoff[c], h, hands, group_end, r0, r1, s0, s1, t0, t1, out, lower)


@njit(cache=True)
def _strategy(regrets: F32, base: int, slots: int, legal: IntArray, n_legal: int, h: int,
              bucket: IntArray, out: F64) -> None:
    """Regret matching for every hand from its bucket's regrets (row block at `base`),
    without branches where a node has at most three actions: the signs of regrets are as good
    as random to a branch predictor."""
    uniform = 1.0 / n_legal
    if n_legal > 3:
        _strategy_wide(regrets, base, slots, legal, n_legal, h, bucket, out)
        return
    a0 = legal[0]
    a1 = legal[1] if n_legal > 1 else legal[0]
    a2 = legal[2] if n_legal > 2 else legal[0]
    for i in range(h):
        off = base + bucket[i] * slots
        x0 = max(np.float64(regrets[off + a0]), 0.0)
        x1 = max(np.float64(regrets[off + a1]), 0.0) if n_legal > 1 else 0.0
        x2 = max(np.float64(regrets[off + a2]), 0.0) if n_legal > 2 else 0.0
        positive = x0 + x1 + x2
        scale = 1.0 / max(positive, 1e-300)
        empty = uniform if positive <= 0.0 else 0.0
        out[0, i] = x0 * scale + empty
        if n_legal > 1:
            out[1, i] = x1 * scale + empty
        if n_legal > 2:
            out[2, i] = x2 * scale + empty


@njit(cache=True)
def _strategy_wide(regrets: F32, base: int, slots: int, legal: IntArray, n_legal: int, h: int,
                   bucket: IntArray, out: F64) -> None:
    """`_strategy` for a node with more than three actions (no-limit raise sizes)."""
    uniform = 1.0 / n_legal
    for i in range(h):
        off = base + bucket[i] * slots
        positive = 0.0
        for j in range(n_legal):
            x = max(np.float64(regrets[off + legal[j]]), 0.0)
            out[j, i] = x
            positive += x
        if positive <= 0.0:
            for j in range(n_legal):
                out[j, i] = uniform
        else:
            for j in range(n_legal):
                out[j, i] /= positive


@njit(cache=True)
def run_public(tree: BettingArrays, cards: Cards, starts: IntArray, rows: IntArray,
               ks: IntArray, iterations: int, seed: int, regrets: F32, average: F32,
               fine_cards: Cards, fine_starts: IntArray, fine_ks: IntArray,
               fine_seat: int = -1) -> float:
    """`iterations` PCS iterations (see the module doc), adding to `regrets` and `average`
    (flat, per round (row, bucket, slot) from ``starts[round]``).  Returns player 0's mean
    value per deal over the iterations' boards.

    With `fine_seat` 0 or 1 that seat plays another abstraction, `fine_cards`' buckets, whose
    tables start at ``fine_starts[round]`` of the same flat arrays (`ks` and `fine_ks` the
    buckets a round of each): an asymmetric abstraction, the opponent in a finer one."""
    np.random.seed(seed)
    nc = cards.num_cards
    most = nc * (nc - 1) // 2
    depth = tree_depth(tree) + 1
    deck = np.arange(nc)
    hands = np.empty((most, 2), np.int64)
    # Index 0: the bot's buckets and tables; 1: the finer opponent's (`fine_seat`).
    bucket_sets = np.empty((2, 4, most), np.int64)
    buckets = bucket_sets[0]
    starts_of = np.vstack((starts, fine_starts))
    ks_of = np.vstack((ks, fine_ks))
    strength = np.empty(most, np.int64)
    group_end = np.empty(most, np.int64)
    reach = np.zeros((depth, 2, most))
    value = np.zeros((depth, 2, most))
    slots = tree.child.shape[1]
    sigma = np.zeros((depth, slots, most))
    action_value = np.zeros((depth, slots, most))
    legal = np.zeros((depth, slots), np.int64)
    n_legal = np.zeros(depth, np.int64)
    node_at = np.zeros(depth, np.int64)
    next_action = np.zeros(depth, np.int64)
    sums = np.zeros(nc)
    their_sums = np.zeros((depth, nc))
    their_total = np.zeros(depth)
    lower = np.zeros((2, nc))
    left = nc - cards.board_dealt[cards.num_rounds - 1]
    pairs = (left - 2) * (left - 3) // 2  # the opponent's hands beside one of the player's
    total = 0.0
    for _ in range(iterations):
        h = deal_board(cards, deck, hands, buckets, strength, group_end)
        if fine_seat >= 0:
            _bucket_hands(fine_cards, deck, hands, h, bucket_sets[1])
        reach[0, 0, :h] = 1.0
        reach[0, 1, :h] = 1.0
        d = 0
        node_at[0] = 0
        t = int(tree.player[0] == fine_seat)
        _enter(tree, regrets, starts_of[t], rows, ks_of[t], bucket_sets[t], h, 0, 0, legal,
               n_legal, sigma, value, next_action)
        their_total[0] = _card_sums(h, hands, reach[0, 1 - tree.player[0]], their_sums[0])
        while True:
            n = node_at[d]
            j = next_action[d]
            if j < n_legal[d]:
                next_action[d] = j + 1
                c = tree.child[n, legal[d, j]]
                p = tree.player[n]
                mine = reach[d, p]
                theirs = reach[d, 1 - p]
                s = sigma[d, j]
                below = reach[d + 1]
                any_reach = their_total[d] != 0.0
                for i in range(h):
                    x = mine[i] * s[i]
                    below[p, i] = x
                    if x != 0.0:
                        any_reach = True
                if not any_reach:
                    value[d + 1, :, :h] = 0.0
                elif tree.kind[c] != DECISION:
                    _terminal(tree, c, p, h, hands, group_end, below[p], theirs, their_sums[d],
                              their_total[d], value[d + 1], sums, lower)
                else:
                    below[1 - p, :h] = theirs[:h]
                    d += 1
                    node_at[d] = c
                    t = int(tree.player[c] == fine_seat)
                    _enter(tree, regrets, starts_of[t], rows, ks_of[t], bucket_sets[t], h, c,
                           d, legal, n_legal, sigma, value, next_action)
                    their_total[d] = _card_sums(h, hands, reach[d, 1 - tree.player[c]],
                                                their_sums[d])
                    continue
                _gather(value, action_value, sigma, d, j, p, h)
                continue
            t = int(tree.player[n] == fine_seat)
            _update(tree, regrets, average, starts_of[t], rows, ks_of[t], bucket_sets[t], reach,
                    sigma, action_value, value, legal, n_legal, n, d, h)
            if d == 0:
                break
            d -= 1
            _gather(value, action_value, sigma, d, next_action[d] - 1,
                    tree.player[node_at[d]], h)
        root = 0.0
        for i in range(h):
            root += value[0, 0, i]
        total += root / (h * pairs)
    return total / max(iterations, 1)


@njit(cache=True)
def _enter(tree: BettingArrays, regrets: F32, starts: IntArray, rows: IntArray, ks: IntArray,
           buckets: IntArray, h: int, n: int, d: int, legal: IntArray, n_legal: IntArray,
           sigma: F64, value: F64, next_action: IntArray) -> None:
    """Set up decision node `n` at depth `d`: its legal actions, every hand's strategy, its
    values zeroed."""
    m = 0
    slots = tree.child.shape[1]
    for a in range(slots):
        if tree.child[n, a] >= 0:
            legal[d, m] = a
            m += 1
    n_legal[d] = m
    r = tree.round[n]
    base = starts[r] + tree.row[n] * ks[r] * slots
    _strategy(regrets, base, slots, legal[d], m, h, buckets[r], sigma[d])
    value[d, :, :h] = 0.0
    next_action[d] = 0


@njit(cache=True)
def _gather(value: F64, action_value: F64, sigma: F64, d: int, j: int, p: int, h: int) -> None:
    """Fold the values of the node's `j`-th action (at depth d + 1) into the node's."""
    child = value[d + 1]
    here = value[d]
    q = action_value[d, j]
    s = sigma[d, j]
    for i in range(h):
        x = child[p, i]
        q[i] = x
        here[p, i] += s[i] * x
        here[1 - p, i] += child[1 - p, i]


@njit(cache=True)
def _update(tree: BettingArrays, regrets: F32, average: F32, starts: IntArray, rows: IntArray,
            ks: IntArray, buckets: IntArray, reach: F64, sigma: F64, action_value: F64,
            value: F64, legal: IntArray, n_legal: IntArray, n: int, d: int, h: int) -> None:
    """The acting player's regrets and average at node `n` (depth `d`), per hand into its
    bucket's entries."""
    p = tree.player[n]
    r = tree.round[n]
    slots = tree.child.shape[1]
    base = starts[r] + tree.row[n] * ks[r] * slots
    bucket = buckets[r]
    v = value[d, p]
    own = reach[d, p]
    for i in range(h):
        off = base + bucket[i] * slots
        for j in range(n_legal[d]):
            a = legal[d, j]
            regrets[off + a] += np.float32(action_value[d, j, i] - v[i])
            average[off + a] += np.float32(own[i] * sigma[d, j, i])

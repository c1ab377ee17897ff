"""The numba kernel of `solver.abstractions.holdem.sampled_cfr`: chance-sampled CFR iterations over
a compiled betting tree and a card abstraction (see that module for the algorithm).

Kept apart from the driver so that editing the driver does not throw away numba's on-disk
cache of this kernel (two minutes of compiling on a busy machine).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.cards.evaluator import rank_state
from solver.cards.isomorphism import IndexerTables, index_hand

IntArray = NDArray[np.int64]
F32 = NDArray[np.float32]
DECISION, FOLDED, SHOWDOWN = 0, 1, 2
SLOTS = 3
"""Action slots per node in limit betting's regret tables: fold, call, raise (illegal ones
stay zero).  A no-limit bet abstraction has more, one per raise size (the tree's `child`
columns, which the kernels read)."""


class BettingArrays(NamedTuple):
    """The betting tree as numba reads it (pre-order: a parent before its children, a
    subtree contiguous)."""

    kind: NDArray[np.int8]  # DECISION, FOLDED or SHOWDOWN
    player: NDArray[np.int8]  # to act, at a decision
    round: NDArray[np.int8]
    child: NDArray[np.int32]  # (node, action slot): the node after it, -1 if illegal
    end: NDArray[np.int32]  # one past the node's subtree
    row: NDArray[np.int32]  # a decision's row among its round's decisions
    payoff: NDArray[np.float32]  # FOLDED: player 0's payoff; SHOWDOWN: what each put in


class Cards(NamedTuple):
    """What the kernel needs to deal and bucket a hand: per round the indexer of its classes
    and their bucket codes (a round missing in a short member repeats the last), the
    evaluator's sums per card, and the deal's shape."""

    t0: IndexerTables
    t1: IndexerTables
    t2: IndexerTables
    t3: IndexerTables
    c0: IntArray
    c1: IntArray
    c2: IntArray
    c3: IntArray
    card_key: IntArray
    card_bit: IntArray
    board_dealt: IntArray  # per round: board cards seen in it
    num_cards: int
    num_rounds: int


@njit(cache=True, inline="always")
def _bucket(t: IndexerTables, codes: IntArray, hand: IntArray) -> int:
    return int(codes[index_hand(t, hand)])


@njit(cache=True)
def bucket_of(cards: Cards, r: int, hand: IntArray) -> int:
    """The bucket in round `r` of `hand` (hole cards, then the board seen in round `r`)."""
    if r == 0:
        return _bucket(cards.t0, cards.c0, hand)
    if r == 1:
        return _bucket(cards.t1, cards.c1, hand)
    if r == 2:
        return _bucket(cards.t2, cards.c2, hand)
    return _bucket(cards.t3, cards.c3, hand)


@njit(cache=True)
def _buckets(cards: Cards, deck: IntArray, player: int, hand: IntArray, out: IntArray) -> None:
    """`player`'s bucket in every round (hole cards ``deck[2p:2p+2]``, board from deck[4])."""
    hand[0] = deck[2 * player]
    hand[1] = deck[2 * player + 1]
    for r in range(cards.num_rounds):
        m = cards.board_dealt[r]
        for j in range(m):
            hand[2 + j] = deck[4 + j]
        out[r] = bucket_of(cards, r, hand[:2 + m])


@njit(cache=True)
def showdown_sign(cards: Cards, deck: IntArray) -> int:
    """+1 if player 0 wins the showdown, -1 if player 1 does, 0 for a split pot."""
    m = cards.board_dealt[cards.num_rounds - 1]
    key = 0
    bits = 0
    for j in range(m):
        key += cards.card_key[deck[4 + j]]
        bits |= cards.card_bit[deck[4 + j]]
    v0 = rank_state(key + cards.card_key[deck[0]] + cards.card_key[deck[1]],
                    bits | cards.card_bit[deck[0]] | cards.card_bit[deck[1]])
    v1 = rank_state(key + cards.card_key[deck[2]] + cards.card_key[deck[3]],
                    bits | cards.card_bit[deck[2]] | cards.card_bit[deck[3]])
    return 1 if v0 > v1 else -1 if v1 > v0 else 0


@njit(cache=True)
def run_iterations(tree: BettingArrays, cards: Cards, starts: IntArray, rows: IntArray,
                   iterations: int, seed: int, regrets: F32, average: F32) -> float:
    """`iterations` chance-sampled CFR iterations (see the module doc), adding to `regrets`
    and `average` (flat, laid out as `Layout`).  Returns player 0's mean sampled value."""
    np.random.seed(seed)
    n_nodes = tree.kind.shape[0]
    slots = tree.child.shape[1]
    reach = np.zeros((n_nodes, 2))
    value = np.zeros(n_nodes)
    sigma = np.zeros((n_nodes, slots))
    stamp = np.zeros(n_nodes, np.int64)
    deck = np.arange(cards.num_cards)
    dealt = 4 + cards.board_dealt[cards.num_rounds - 1]
    hand = np.zeros(7, np.int64)
    bucket = np.zeros((2, 4), np.int64)
    total = 0.0
    for it in range(1, iterations + 1):
        for j in range(dealt):
            pick = j + np.random.randint(cards.num_cards - j)
            deck[j], deck[pick] = deck[pick], deck[j]
        _buckets(cards, deck, 0, hand, bucket[0])
        _buckets(cards, deck, 1, hand, bucket[1])
        winner = showdown_sign(cards, deck)
        # Forward: reach probabilities, and the current strategy of every node reached.
        reach[0, 0] = 1.0
        reach[0, 1] = 1.0
        n = 0
        while n < n_nodes:
            if reach[n, 0] == 0.0 and reach[n, 1] == 0.0:
                n = tree.end[n]  # neither player gets here: the subtree adds nothing
                continue
            stamp[n] = it
            if tree.kind[n] == DECISION:
                p = tree.player[n]
                r = tree.round[n]
                base = starts[r] + (bucket[p, r] * rows[r] + tree.row[n]) * slots
                positive = 0.0
                legal = 0
                for a in range(slots):
                    if tree.child[n, a] >= 0:
                        legal += 1
                        x = regrets[base + a]
                        if x > 0.0:
                            positive += x
                for a in range(slots):
                    c = tree.child[n, a]
                    if c < 0:
                        sigma[n, a] = 0.0
                        continue
                    x = regrets[base + a]
                    s = (x / positive if x > 0.0 else 0.0) if positive > 0.0 else 1.0 / legal
                    sigma[n, a] = s
                    reach[c, p] = reach[n, p] * s
                    reach[c, 1 - p] = reach[n, 1 - p]
            n += 1
        # Backward: values (player 0's), regrets and the average.
        for n in range(n_nodes - 1, -1, -1):
            if stamp[n] != it:
                continue
            kind = tree.kind[n]
            if kind == FOLDED:
                value[n] = tree.payoff[n]
            elif kind == SHOWDOWN:
                value[n] = tree.payoff[n] * winner
            else:
                p = tree.player[n]
                r = tree.round[n]
                base = starts[r] + (bucket[p, r] * rows[r] + tree.row[n]) * slots
                v = 0.0
                for a in range(slots):
                    c = tree.child[n, a]
                    if c >= 0 and stamp[c] == it:
                        v += sigma[n, a] * value[c]
                value[n] = v
                sign = 1.0 if p == 0 else -1.0
                other = reach[n, 1 - p]
                own = reach[n, p]
                for a in range(slots):
                    c = tree.child[n, a]
                    if c < 0:
                        continue
                    if other > 0.0:
                        regrets[base + a] += np.float32(other * sign * (value[c] - v))
                    if own > 0.0:
                        average[base + a] += np.float32(own * sigma[n, a])
        total += value[0]
    return total / max(iterations, 1)

"""The numba kernel of `solver.evaluation.values.holdem`: what each action of one decision is
worth over a list of weighted deals, both players following a bucket strategy afterwards.

A *deal* fixes every card: both players' hole cards and the whole board (dealt so far, then the
rest).  With the cards fixed, the betting below the decision is a small tree of scalars: each
player's probabilities come from its bucket in each round (`Cards`, the indexer and codes the
solver used) and a showdown has one winner.  The kernel walks that subtree once per deal, in the
betting tree's pre-order (a forward pass finds the nodes either player reaches, so a line that
both strategies never take is skipped with its whole subtree; a backward pass sums values), and
adds each root action's value times the deal's weight.  Where the deals come from (every one,
or a sample) and what they weigh is the caller's business.

The player at the decision (the *human*) may follow, instead of the bot's strategy for its
cards, a model of its own habits: per betting node, counts of the actions it took there before,
mixed with the strategy as ``(count(a) + k sigma(a)) / (count + k)``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.abstractions.holdem.sampled_kernel import (
    DECISION,
    FOLDED,
    SLOTS,
    BettingArrays,
    Cards,
)
from solver.cards.evaluator import rank_state
from solver.cards.isomorphism import index_hand

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@njit(cache=True)
def deal_buckets(cards: Cards, deck: IntArray, player: int, first: int, hand: IntArray,
                 out: IntArray) -> None:
    """`player`'s bucket in rounds `first` .. last of the deal `deck` (hole cards
    ``deck[2p:2p+2]``, the board from ``deck[4]``), into ``out[round]``."""
    hand[0] = deck[2 * player]
    hand[1] = deck[2 * player + 1]
    for r in range(first, cards.num_rounds):
        m = cards.board_dealt[r]
        for j in range(m):
            hand[2 + j] = deck[4 + j]
        view = hand[:2 + m]
        if r == 0:
            out[r] = cards.c0[index_hand(cards.t0, view)]
        elif r == 1:
            out[r] = cards.c1[index_hand(cards.t1, view)]
        elif r == 2:
            out[r] = cards.c2[index_hand(cards.t2, view)]
        else:
            out[r] = cards.c3[index_hand(cards.t3, view)]


@njit(cache=True)
def deal_winner(cards: Cards, deck: IntArray) -> int:
    """+1 if player 0 wins the deal's showdown, -1 if player 1 does, 0 for a split pot."""
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


@njit(cache=True, inline="always")
def _probability(tree: BettingArrays, tables: FloatArray, row_start: IntArray, n: int,
                 bucket: int, a: int) -> float:
    return float(tables[row_start[tree.round[n]] + tree.row[n], bucket, a])


@njit(cache=True)
def decision_values(tree: BettingArrays, start: int, human: int, cards: Cards,
                    tables: FloatArray, row_start: IntArray, decks: IntArray,
                    weights: FloatArray, model: FloatArray, prior: float, out: FloatArray
                    ) -> None:
    """Add to ``out[a]`` (a = fold, call, raise at decision node `start`, where `human` acts)
    the sum over deals s of ``weights[s]`` times the human's payoff after a when both players
    then follow `tables` (``tables[row_start[round] + row, bucket, slot]``, rows normalised over
    the legal slots) with their buckets of deal ``decks[s]``.  With `model` of shape
    (nodes, 3) the human follows instead its counts there mixed with `tables` (`prior` = k,
    see the module doc); with an empty `model` it follows `tables`."""
    end = tree.end[start]
    first_round = tree.round[start]
    use_model = model.shape[0] > 0
    sign = 1.0 if human == 0 else -1.0
    span = end - start
    reach = np.zeros(span)  # the product of both players' probabilities from the root action
    value = np.zeros(span)
    sigma = np.zeros((span, SLOTS))
    visited = np.zeros(span, np.int64)  # the nodes reached, in pre-order
    hand = np.zeros(7, np.int64)
    bucket = np.zeros((2, 4), np.int64)
    for s in range(decks.shape[0]):
        w = weights[s]
        if w == 0.0:
            continue
        deck = decks[s]
        deal_buckets(cards, deck, 0, first_round, hand, bucket[0])
        deal_buckets(cards, deck, 1, first_round, hand, bucket[1])
        winner = deal_winner(cards, deck)
        # Forward: what the two strategies reach (every root action is taken, to be valued).
        for a in range(SLOTS):
            c = tree.child[start, a]
            if c >= 0:
                reach[c - start] = 1.0
        count = 0
        n = start + 1
        while n < end:
            i = n - start
            if reach[i] == 0.0:
                n = tree.end[n]
                continue
            visited[count] = n
            count += 1
            if tree.kind[n] == DECISION:
                p = tree.player[n]
                counted = 0.0
                if use_model and p == human:
                    for a in range(SLOTS):
                        counted += model[n, a]
                for a in range(SLOTS):
                    c = tree.child[n, a]
                    if c < 0:
                        continue
                    x = _probability(tree, tables, row_start, n, bucket[p, tree.round[n]], a)
                    if counted > 0.0:
                        x = (model[n, a] + prior * x) / (counted + prior)
                    sigma[i, a] = x
                    reach[c - start] = reach[i] * x
            n += 1
        # Backward: the human's payoff at every node reached.
        for j in range(count - 1, -1, -1):
            n = visited[j]
            i = n - start
            kind = tree.kind[n]
            if kind == FOLDED:
                value[i] = sign * tree.payoff[n]
            elif kind != DECISION:
                value[i] = sign * tree.payoff[n] * winner
            else:
                v = 0.0
                for a in range(SLOTS):
                    c = tree.child[n, a]
                    if c >= 0 and reach[c - start] > 0.0:
                        v += sigma[i, a] * value[c - start]
                value[i] = v
        for a in range(SLOTS):
            c = tree.child[start, a]
            if c >= 0:
                out[a] += w * value[c - start]
        # Clear what this deal reached, for the next one (the children of a node reached
        # with probability zero were set to zero).
        for j in range(count):
            n = visited[j]
            reach[n - start] = 0.0
            if tree.kind[n] == DECISION:
                for a in range(SLOTS):
                    c = tree.child[n, a]
                    if c >= 0:
                        reach[c - start] = 0.0

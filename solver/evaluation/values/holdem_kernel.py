"""The numba kernels of `solver.evaluation.values.holdem`: what each action of one decision is
worth over weighted deals, both players following a bucket strategy afterwards.

A *deal* fixes every card: both players' hole cards and the whole board (dealt so far, then the
rest).  Each player's probabilities come from its bucket in each round (`Cards`, the indexer and
codes the solver used) and a showdown has one winner.  `range_values` takes every deal: for each
runout of the board it walks the betting below the decision once, bottom-up in the betting
tree's pre-order, with every node holding a value per hand the bot may hold.  `playout_values`
takes a sample of deals and plays the betting out once per deal.

The player at the decision (the *human*) may follow, instead of the bot's strategy for its
cards, a model of its own habits: counts of the actions it took before wherever it had the
node's choices (`choices`, empty unless the model starts there), at each betting node, and at
each betting node with each of its buckets, mixed in that order into the strategy as
``(count(a) + k p(a)) / (count + k)`` (`solver.evaluation.values.base.habit_model`).
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
    showdown_sign,
)
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


@njit(cache=True, inline="always")
def _probability(tree: BettingArrays, tables: FloatArray, row_start: IntArray, n: int,
                 bucket: int, a: int) -> float:
    return float(tables[row_start[tree.round[n]] + tree.row[n], bucket, a])


@njit(cache=True)
def playout_values(tree: BettingArrays, start: int, human: int, cards: Cards,
                   tables: FloatArray, row_start: IntArray, decks: IntArray,
                   weights: FloatArray, model: FloatArray, bucket_row: IntArray,
                   bucket_counts: FloatArray, choices: FloatArray, prior: float, seed: int,
                   out: FloatArray) -> None:
    """Add to ``out[a]`` (a the slot of an action at decision node `start`, where `human` acts)
    the sum over deals s of ``weights[s]`` times the human's payoff when, after a, both play
    the betting out once: each action drawn from the player's probabilities (`tables`, as
    ``tables[row_start[round] + row, bucket, slot]`` with the deal's buckets, or the human's
    habits where `model` has rows, see the module doc), the payoff of where the play ends
    taken: an unbiased estimate of the value, for a fraction of a full walk's work. Every
    root action's play-out of a deal draws the same uniform numbers (common random numbers:
    the actions' values differ by less noise)."""
    np.random.seed(seed)
    first_round = tree.round[start]
    use_model = model.shape[0] > 0
    from_choices = choices.shape[0] > 0
    sign = 1.0 if human == 0 else -1.0
    hand = np.zeros(7, np.int64)
    bucket = np.zeros((2, 4), np.int64)
    draws = np.zeros(64)
    for s in range(decks.shape[0]):
        w = weights[s]
        if w == 0.0:
            continue
        deck = decks[s]
        deal_buckets(cards, deck, 0, first_round, hand, bucket[0])
        deal_buckets(cards, deck, 1, first_round, hand, bucket[1])
        winner = showdown_sign(cards, deck)
        for j in range(draws.shape[0]):
            draws[j] = np.random.random()
        for root in range(tree.child.shape[1]):
            n = tree.child[start, root]
            if n < 0:
                continue
            step = 0
            while tree.kind[n] == DECISION:
                p = tree.player[n]
                b = bucket[p, tree.round[n]]
                counted = 0.0
                specific = 0.0
                started = 0.0
                k = -1
                if use_model and p == human:
                    k = bucket_row[n]
                    for a in range(tree.child.shape[1]):
                        counted += model[n, a]
                        if k >= 0:
                            specific += bucket_counts[k, b, a]
                        if from_choices:
                            started += choices[n, a]
                u = draws[step]
                step += 1
                chosen = -1
                total = 0.0
                for a in range(tree.child.shape[1]):
                    if tree.child[n, a] < 0:
                        continue
                    x = _probability(tree, tables, row_start, n, b, a)
                    if started > 0.0:
                        x = (choices[n, a] + prior * x) / (started + prior)
                    if counted > 0.0:
                        x = (model[n, a] + prior * x) / (counted + prior)
                    if specific > 0.0:
                        x = (bucket_counts[k, b, a] + prior * x) / (specific + prior)
                    total += x
                    chosen = a
                    if u < total:
                        break
                n = tree.child[n, chosen]
            value = tree.payoff[n] if tree.kind[n] == FOLDED else tree.payoff[n] * winner
            out[root] += w * sign * value


@njit(cache=True)
def range_values(tree: BettingArrays, start: int, human: int, cards: Cards,
                 tables: FloatArray, row_start: IntArray, hole: IntArray, board: IntArray,
                 holes: IntArray, shares: FloatArray, runouts: IntArray, boards: float,
                 model: FloatArray, bucket_row: IntArray, bucket_counts: FloatArray,
                 choices: FloatArray, prior: float, out: FloatArray) -> None:
    """What `playout_values` estimates, exactly, over every deal, vectorised over the bot's
    hands: for each
    runout (a row of `runouts`: the rest of the board), the betting below `start` is walked
    once, every node holding the human's payoff for each of the bot's `holes`; each hand
    weighs ``shares[h] / boards`` on every runout that misses its cards (`boards` being how
    many runouts a hand leaves).  The human holds `hole`, the board so far is `board`."""
    end = tree.end[start]
    first_round = tree.round[start]
    use_model = model.shape[0] > 0
    from_choices = choices.shape[0] > 0
    sign = 1.0 if human == 0 else -1.0
    n = holes.shape[0]
    span = end - start
    value = np.zeros((span, n))
    weight = np.zeros(n)
    deck = np.zeros(4 + cards.board_dealt[cards.num_rounds - 1], np.int64)
    hand = np.zeros(7, np.int64)
    mine = np.zeros(4, np.int64)
    theirs = np.zeros((n, 4), np.int64)
    winner = np.zeros(n)
    shown = board.shape[0]
    for j in range(shown):
        deck[4 + j] = board[j]
    me = 2 * human
    you = 2 * (1 - human)
    for r in range(runouts.shape[0]):
        for j in range(runouts.shape[1]):
            deck[4 + shown + j] = runouts[r, j]
        deck[me] = hole[0]
        deck[me + 1] = hole[1]
        deal_buckets(cards, deck, human, first_round, hand, mine)
        live = 0
        for h in range(n):
            weight[h] = 0.0
            clash = False
            for j in range(runouts.shape[1]):
                if runouts[r, j] == holes[h, 0] or runouts[r, j] == holes[h, 1]:
                    clash = True
            if clash or shares[h] == 0.0:
                continue
            weight[h] = shares[h] / boards
            live += 1
            deck[you] = holes[h, 0]
            deck[you + 1] = holes[h, 1]
            deal_buckets(cards, deck, 1 - human, first_round, hand, theirs[h])
            winner[h] = showdown_sign(cards, deck)
        if live == 0:
            continue
        for node in range(end - 1, start, -1):
            i = node - start
            kind = tree.kind[node]
            if kind == FOLDED:
                for h in range(n):
                    value[i, h] = sign * tree.payoff[node]
                continue
            if kind != DECISION:
                for h in range(n):
                    value[i, h] = sign * tree.payoff[node] * winner[h]
                continue
            p = tree.player[node]
            row = row_start[tree.round[node]] + tree.row[node]
            for h in range(n):
                value[i, h] = 0.0
            if p == human:
                b = mine[tree.round[node]]
                counted = 0.0
                specific = 0.0
                started = 0.0
                k = -1
                if use_model:
                    k = bucket_row[node]
                    for a in range(tree.child.shape[1]):
                        counted += model[node, a]
                        if k >= 0:
                            specific += bucket_counts[k, b, a]
                        if from_choices:
                            started += choices[node, a]
                for a in range(tree.child.shape[1]):
                    c = tree.child[node, a]
                    if c < 0:
                        continue
                    x = tables[row, b, a]
                    if started > 0.0:
                        x = (choices[node, a] + prior * x) / (started + prior)
                    if counted > 0.0:
                        x = (model[node, a] + prior * x) / (counted + prior)
                    if specific > 0.0:
                        x = (bucket_counts[k, b, a] + prior * x) / (specific + prior)
                    if x == 0.0:
                        continue
                    for h in range(n):
                        value[i, h] += x * value[c - start, h]
            else:
                rnd = tree.round[node]
                for a in range(tree.child.shape[1]):
                    c = tree.child[node, a]
                    if c < 0:
                        continue
                    for h in range(n):
                        if weight[h] != 0.0:  # negative in a correction's weights
                            value[i, h] += tables[row, theirs[h, rnd], a] * value[c - start, h]
        for a in range(tree.child.shape[1]):
            c = tree.child[start, a]
            if c < 0:
                continue
            for h in range(n):
                out[a] += weight[h] * value[c - start, h]

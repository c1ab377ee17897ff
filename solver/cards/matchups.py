"""Exact all-in results of every pair of two-card hands on the 52-card deck: for hands ``a``
and ``b`` that share no card, the sum over every five-card board from the 48 cards left of +1
when ``a`` wins, -1 when it loses and 0 for a split.  Divided by the 1,712,304 boards it is
``P(a wins) - P(b wins)``, what an all-in called before the flop pays ``a`` per chip at risk.
Push-or-fold is solved on this table.

Why not one enumeration per pair: 812,175 pairs times 1.7 million boards is 1.4e12
evaluations.  The boards are enumerated once instead, and only up to suits: a board and the
boards its suits can be renamed into (its orbit) give the same results to renamed hands, so
each of the 134,459 boards that is the smallest of its orbit ranks the 1,081 hands that miss it
once and adds every pair's sign, weighted by ``24 / |stabiliser|`` (the orbit's size), into a
table; renaming the suits of that table in all 24 ways and adding sums every board exactly
once, times 24.  All sums are integers, so the table is exact.  About 7.5e10 pair updates: a
minute of two cores (65 s on a quiet machine), done once and cached (`solver.cards.cache`).
"""

from __future__ import annotations

import fcntl
import itertools
import math
from pathlib import Path

import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from solver.cards import evaluator
from solver.cards.cache import cache_dir, load, save_atomic, source_digest
from solver.cards.evaluator import CARD_BIT, CARD_KEY, rank_state

SUITS, RANKS = 4, 13
PERMUTATIONS = np.array(list(itertools.permutations(range(SUITS))), np.int64)
MOST_CANONICAL_BOARDS = 134_459
"""Five-card boards up to suits on the whole deck (on fewer ranks, fewer)."""


def hands(num_ranks: int = RANKS) -> NDArray[np.int64]:
    """The two-card hands of the `num_ranks` lowest ranks in four suits (card ``4 * rank +
    suit``), cards increasing, in lexicographic order: the hold'em tree's order."""
    return np.array(list(itertools.combinations(range(SUITS * num_ranks), 2)), np.int64)


def boards(num_ranks: int = RANKS) -> int:
    """Five-card boards from what two hands leave."""
    return math.comb(SUITS * num_ranks - 4, 5)


@njit(cache=True)
def _canonical_boards(perms: NDArray[np.int64], cards: int, most: int
                      ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Every five-card board of the first `cards` cards that is the smallest of its suit orbit
    (cards increasing, compared as tuples), and its orbit's size."""
    count = 0
    boards = np.empty((most, 5), np.int64)
    sizes = np.empty(most, np.int64)
    board = np.empty(5, np.int64)
    renamed = np.empty(5, np.int64)
    for c0 in range(cards):
        for c1 in range(c0 + 1, cards):
            for c2 in range(c1 + 1, cards):
                for c3 in range(c2 + 1, cards):
                    for c4 in range(c3 + 1, cards):
                        board[0], board[1], board[2], board[3], board[4] = c0, c1, c2, c3, c4
                        smallest, stabiliser = True, 0
                        for p in range(perms.shape[0]):
                            for k in range(5):
                                renamed[k] = (board[k] & ~3) | perms[p, board[k] & 3]
                            renamed.sort()
                            order = 0  # -1 renamed < board, 0 equal, 1 greater
                            for k in range(5):
                                if renamed[k] != board[k]:
                                    order = -1 if renamed[k] < board[k] else 1
                                    break
                            if order < 0:
                                smallest = False
                                break
                            stabiliser += order == 0
                        if smallest:
                            boards[count] = board
                            sizes[count] = perms.shape[0] // stabiliser
                            count += 1
    return boards[:count].copy(), sizes[:count].copy()


@njit(cache=True, parallel=True)
def _orbit_sums(boards: NDArray[np.int64], sizes: NDArray[np.int64], hands: NDArray[np.int64],
                threads: int) -> NDArray[np.int64]:
    """Per thread, the weighted sums of signs over its share of the canonical boards."""
    n = hands.shape[0]
    out = np.zeros((threads, n, n), np.int64)
    hand_key = CARD_KEY[hands[:, 0]] + CARD_KEY[hands[:, 1]]
    hand_bit = CARD_BIT[hands[:, 0]] | CARD_BIT[hands[:, 1]]
    for t in prange(threads):
        ranks = np.empty(n, np.int64)
        live = np.empty(n, np.int64)
        for b in range(t, boards.shape[0], threads):
            key, bits = 0, 0
            for k in range(5):
                key += CARD_KEY[boards[b, k]]
                bits |= CARD_BIT[boards[b, k]]
            m = 0
            for h in range(n):
                if hand_bit[h] & bits == 0:
                    live[m] = h
                    ranks[m] = rank_state(key + hand_key[h], bits | hand_bit[h])
                    m += 1
            weight = sizes[b]
            table = out[t]
            for i in range(m):
                hi, ri, bi = live[i], ranks[i], hand_bit[live[i]]
                for j in range(i + 1, m):
                    hj = live[j]
                    if bi & hand_bit[hj] == 0 and ri != ranks[j]:
                        table[hi, hj] += weight if ri > ranks[j] else -weight
    return out


def compute(num_ranks: int = RANKS, threads: int = 2) -> NDArray[np.int32]:
    """The table, computed: ``table[a, b]`` for hands ``a`` and ``b`` (`hands` order) the sum
    of signs over the boards both miss (so ``table[b, a] = -table[a, b]``), 0 where they
    collide.  On the `num_ranks` lowest ranks (the whole deck by default)."""
    cards = SUITS * num_ranks
    pairs = hands(num_ranks)
    index = np.full((cards, cards), -1, np.int64)
    index[pairs[:, 0], pairs[:, 1]] = np.arange(len(pairs))
    canonical, sizes = _canonical_boards(PERMUTATIONS, cards,
                                         min(math.comb(cards, 5), MOST_CANONICAL_BOARDS))
    upper: NDArray[np.int64] = _orbit_sums(canonical, sizes, pairs, threads).sum(axis=0)
    partial = upper - upper.T  # each pair was added once, as (smaller, larger)
    total = np.zeros_like(partial)
    for perm in PERMUTATIONS:
        renamed = np.sort((pairs & ~3) | perm[pairs & 3], axis=1)
        moved = index[renamed[:, 0], renamed[:, 1]]  # hand h renamed is hand moved[h]
        total[np.ix_(moved, moved)] += partial
    if (total % len(PERMUTATIONS)).any():
        raise AssertionError("the suit renamings did not add up to whole boards")
    return (total // len(PERMUTATIONS)).astype(np.int32)


def cached_path() -> Path:
    """Where the table is kept (`solver.cards.cache`), named by this module's and the
    evaluator's code."""
    return cache_dir() / f"matchups-{source_digest(__file__, evaluator.__file__)}.npy"


def table() -> NDArray[np.int32]:
    """The table (see `compute`), from the cache when this module and the evaluator are
    unchanged, else computed and cached."""
    path = cached_path()
    cached = load(path)
    if cached is None:
        # One process computes while the others that want it wait, then read its file.
        path.parent.mkdir(parents=True, exist_ok=True)
        with open(path.with_suffix(".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            cached = load(path)
            if cached is None:
                cached = compute()
                save_atomic(path, cached)
    return np.asarray(cached, np.int32)

"""Expected hand strength E[HS] and its second moment E[HS²] of every canonical hand, exactly.

*Hand strength* (HS) on the last street is the chance of beating one uniformly random opponent
hand made of the cards left, ties counting half.  On an earlier street, E[HS] averages the last
street's HS over every way the rest of the board can come, and E[HS²] averages its square: two
hands with the same E[HS] can be a steady medium hand or a draw that ends strong or weak, and
E[HS²] tells them apart (it is the usual input of card abstractions).

How the tables are built, from the last street back:

* Last street: one pass per *board* class (134,459 boards of five cards up to suits, not the
  123,156,254 hands).  On a board every remaining hole pair is evaluated once, the pairs are
  sorted by value, and one sweep over the sorted pairs counts for each pair the opponent pairs
  below it and equal to it that share no card with it: all pairs below, less those holding one of
  its two cards (kept per card as the sweep goes).  That is O(n log n) per board instead of
  O(n²).  The result, ``2 * wins + ties`` out of ``2 * opponents``, is an exact integer, kept as
  uint16 per hand class, written at the index of each (hole pair, board) class.
* Earlier streets: E[HS] and E[HS²] of a hand are the means, over the next street's cards, of the
  next street's E[HS] and E[HS²] (of HS and HS² on the last street), so every street is one pass
  over its hand classes reading the next street's table through the isomorphism index.

Everything runs in numba on at most two threads, in blocks so that a tqdm bar can follow, and
each street's table is saved when done (``$SOLVER_CACHE/strength-<digest>/``, the digest
covering this package's evaluation and indexing code and the deal), so a later process maps the
files instead of building them, and an interrupted build resumes at the street it was on.  For
hold'em the full build takes about 40 s on two free cores (``experiments/strength_tables.py``).
"""

from __future__ import annotations

import contextlib
import math
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numba
import numpy as np
from numba import njit, prange
from numpy.typing import NDArray

from solver.cards import cache as disk
from solver.cards import deck as deck_module
from solver.cards import evaluator, isomorphism
from solver.cards.deck import STANDARD, Deck
from solver.cards.evaluator import CARD_BIT, CARD_KEY, rank_state
from solver.cards.isomorphism import HandIndexer, IndexerTables, index_hand, unindex_hand
from solver.engine.progress import progress_bar

FloatArray = NDArray[np.float32]
IntArray = NDArray[np.int64]
MAX_THREADS = 2


@dataclass(frozen=True, slots=True)
class Streets:
    """How the cards of a hold'em-like game come: `hole` private cards each (two), then the
    board in rounds of `board` cards.  The default is hold'em: flop, turn, river."""

    deck: Deck = STANDARD
    hole: int = 2
    board: tuple[int, ...] = (3, 1, 1)

    def __post_init__(self) -> None:
        board = tuple(int(n) for n in self.board)
        object.__setattr__(self, "board", board)
        if self.hole != 2:
            raise ValueError("hand strength is built for two hole cards")
        if not board or min(board) < 1:
            raise ValueError(f"the board comes in one or more rounds of cards, not {board}")
        if self.hole + sum(board) > evaluator.MAX_CARDS:
            raise ValueError(f"hands have at most {evaluator.MAX_CARDS} cards")
        if 2 * self.hole + sum(board) > self.deck.num_cards:
            raise ValueError(f"{self.deck} is too small for two players and the board")

    @property
    def num_streets(self) -> int:
        return len(self.board) + 1

    @property
    def last(self) -> int:
        return len(self.board)

    def board_size(self, street: int) -> int:
        """Board cards seen on `street` (0 is the hole cards alone)."""
        return sum(self.board[:street])

    def indexer(self, street: int) -> HandIndexer:
        """The hand classes of `street`: the hole cards, then the board as one set."""
        return _indexer(self, street)

    @property
    def opponents(self) -> int:
        """Opponent hole pairs on the last street: pairs of the cards nobody has seen."""
        return math.comb(self.deck.num_cards - self.hole - self.board_size(self.last), 2)


HOLDEM = Streets()


@cache
def _indexer(streets: Streets, street: int) -> HandIndexer:
    if street == 0:
        return HandIndexer((streets.hole,), streets.deck)
    return HandIndexer((streets.hole, streets.board_size(street)), streets.deck)


@dataclass(frozen=True, slots=True, eq=False)
class StrengthTables:
    """E[HS] and E[HS²] of every hand class on every street of `streets`.

    ``expected[s]`` is a float32 array (classes of street ``s``, 2) for every street before the
    last; the last street keeps ``2 * wins + ties`` as uint16 in `last` (HS is that over
    ``2 * streets.opponents``, and HS² its square)."""

    streets: Streets
    expected: tuple[FloatArray, ...]
    last: NDArray[np.uint16]

    def lookup(self, street: int, indices: IntArray) -> tuple[NDArray[np.float64],
                                                              NDArray[np.float64]]:
        """E[HS] and E[HS²] of the hand classes `indices` of `street`."""
        if street == self.streets.last:
            hs = self.last[indices] / (2.0 * self.streets.opponents)
            return hs, hs * hs
        values = self.expected[street][indices].astype(np.float64)
        return values[..., 0], values[..., 1]


# --- the last street ------------------------------------------------------------------------


@njit(cache=True)
def board_strengths(board: IntArray, num_cards: int, card_key: IntArray, card_bit: IntArray,
                    first: IntArray, second: IntArray, counts: NDArray[np.uint16]) -> int:
    """``2 * wins + ties`` of every hole pair against every other pair on a full `board`.

    Writes the pairs of the cards off the board into `first`/`second` and their counts into
    `counts` (in the same order) and returns how many pairs there are.  `card_key`/`card_bit`
    are the evaluator's sums per card id of the deck."""
    on_board = np.zeros(num_cards, dtype=np.bool_)
    board_key = 0
    board_bits = 0
    for c in board:
        on_board[c] = True
        board_key += card_key[c]
        board_bits |= card_bit[c]
    n = 0
    for a in range(num_cards):
        for b in range(a + 1, num_cards):
            if not on_board[a] and not on_board[b]:
                first[n], second[n] = a, b
                n += 1
    values = np.empty(n, dtype=np.int64)
    for p in range(n):
        a, b = first[p], second[p]
        values[p] = rank_state(board_key + card_key[a] + card_key[b],
                               board_bits | card_bit[a] | card_bit[b])
    order = np.argsort(values)
    below = 0  # pairs weaker than the current group
    below_with = np.zeros(num_cards, dtype=np.int64)  # ... of which hold card c
    in_group = np.zeros(num_cards, dtype=np.int64)
    start = 0
    while start < n:
        end = start
        while end < n and values[order[end]] == values[order[start]]:
            in_group[first[order[end]]] += 1
            in_group[second[order[end]]] += 1
            end += 1
        size = end - start
        for i in range(start, end):
            p = order[i]
            a, b = first[p], second[p]
            wins = below - below_with[a] - below_with[b]
            ties = size - in_group[a] - in_group[b] + 1  # the pair itself was taken off twice
            counts[p] = 2 * wins + ties
        for i in range(start, end):
            p = order[i]
            a, b = first[p], second[p]
            in_group[a] = in_group[b] = 0
            below_with[a] += 1
            below_with[b] += 1
        below += size
        start = end
    return n


@njit(cache=True, parallel=True)
def _last_street(boards: IndexerTables, hands: IndexerTables, num_cards: int,
                 card_key: IntArray, card_bit: IntArray, start: int, stop: int,
                 out: NDArray[np.uint16]) -> None:
    """Board classes ``start .. stop - 1``: the counts of every hand class with that board.

    Boards whose suits can be renamed onto themselves reach some hand classes through several
    hole pairs; they all write the same count."""
    board_size = boards.rounds[0]
    pairs = (num_cards - board_size) * (num_cards - board_size - 1) // 2
    for b in prange(start, stop):
        deal = np.empty(2 + board_size, dtype=np.int64)
        unindex_hand(boards, b, deal[2:])
        first = np.empty(pairs, dtype=np.int64)
        second = np.empty(pairs, dtype=np.int64)
        counts = np.empty(pairs, dtype=np.uint16)
        board_strengths(deal[2:], num_cards, card_key, card_bit, first, second, counts)
        for p in range(pairs):
            deal[0], deal[1] = first[p], second[p]
            out[index_hand(hands, deal)] = counts[p]


# --- earlier streets ------------------------------------------------------------------------


@njit(cache=True, parallel=True)
def _earlier_street(here: IndexerTables, there: IndexerTables, num_cards: int, dealt: int,
                    last: NDArray[np.uint16], scale: float, expected: FloatArray,
                    start: int, stop: int, out: FloatArray) -> None:
    """Hand classes ``start .. stop - 1`` of a street: the means over the `dealt` cards of the
    next street of its E[HS] and E[HS²], read from `expected` (next street's table), or from
    `last` times `scale` (HS) when the next street is the last (pass an empty `expected`)."""
    size = here.round_start[here.rounds.shape[0]]
    chunk = max(1, min(4096, (stop - start) // 8))  # scratch is made once per chunk
    for c in prange((stop - start + chunk - 1) // chunk):
        deal = np.empty(size + dealt, dtype=np.int64)
        left = np.empty(num_cards, dtype=np.int64)
        pick = np.empty(dealt, dtype=np.int64)
        seen = np.zeros(num_cards, dtype=np.bool_)
        for i in range(start + c * chunk, min(stop, start + (c + 1) * chunk)):
            unindex_hand(here, i, deal)
            for card in deal[:size]:
                seen[card] = True
            m = 0
            for card in range(num_cards):
                if not seen[card]:
                    left[m] = card
                    m += 1
            for card in deal[:size]:
                seen[card] = False
            for j in range(dealt):
                pick[j] = j
            total = total2 = 0.0
            ways = 0
            while True:  # every `dealt`-subset of the cards left, by indices into `left`
                for j in range(dealt):
                    deal[size + j] = left[pick[j]]
                index = index_hand(there, deal)
                if expected.shape[0]:
                    total += expected[index, 0]
                    total2 += expected[index, 1]
                else:
                    hs = last[index] * scale
                    total += hs
                    total2 += hs * hs
                ways += 1
                j = dealt - 1
                while j >= 0 and pick[j] == m - dealt + j:
                    j -= 1
                if j < 0:
                    break
                pick[j] += 1
                for q in range(j + 1, dealt):
                    pick[q] = pick[q - 1] + 1
            out[i, 0] = total / ways
            out[i, 1] = total2 / ways


# --- building, caching, looking up ------------------------------------------------------------


def _cache_folder(streets: Streets) -> Path:
    sources = [str(module.__file__) for module in (deck_module, evaluator, isomorphism)]
    digest = disk.source_digest(*sources, __file__, extra=(
        streets.deck.num_ranks, streets.deck.num_suits, streets.hole, streets.board))
    return disk.cache_dir() / f"strength-{digest}"


def _blocks(total: int, parts: int) -> list[tuple[int, int]]:
    step = max(1, -(-total // parts))
    return [(s, min(total, s + step)) for s in range(0, total, step)]


def _run(kernel: Callable[[int, int], None], total: int, desc: str, unit: str,
         progress: bool) -> None:
    """`kernel` over ``0 .. total - 1`` in 200 blocks, the bar moving after each."""
    with progress_bar(total=total, desc=desc, unit=unit, unit_scale=True, disable=not progress,
              file=sys.stderr, mininterval=0.5) as bar:
        for start, stop in _blocks(total, 200):
            kernel(start, stop)
            bar.update(stop - start)


def _build_last(streets: Streets, progress: bool) -> NDArray[np.uint16]:
    deck = streets.deck
    boards = HandIndexer((streets.board_size(streets.last),), deck)
    hands = streets.indexer(streets.last)
    unset = np.iinfo(np.uint16).max  # no count reaches it: 2 * opponents < 2,500
    out = np.full(hands.size, unset, dtype=np.uint16)
    card_key = CARD_KEY[deck.standard_ids]
    card_bit = CARD_BIT[deck.standard_ids]

    def kernel(start: int, stop: int) -> None:
        _last_street(boards.tables, hands.tables, deck.num_cards, card_key, card_bit, start,
                     stop, out)

    _run(kernel, boards.size, f"HS, street {streets.last}", "board", progress)
    if (out == unset).any():  # every hand class has a board class, so this is a bug
        raise RuntimeError("some hand classes of the last street were not reached")
    return out


def _build_earlier(streets: Streets, street: int, last: NDArray[np.uint16],
                   following: FloatArray | None, progress: bool) -> FloatArray:
    here, there = streets.indexer(street), streets.indexer(street + 1)
    out = np.empty((here.size, 2), dtype=np.float32)
    expected = np.empty((0, 2), dtype=np.float32) if following is None else following
    scale = 1.0 / (2 * streets.opponents)

    def kernel(start: int, stop: int) -> None:
        _earlier_street(here.tables, there.tables, streets.deck.num_cards, streets.board[street],
                        last, scale, expected, start, stop, out)

    _run(kernel, here.size, f"E[HS], street {street}", "hand", progress)
    return out


_loaded: dict[Streets, StrengthTables] = {}


def ehs_tables(streets: Streets = HOLDEM, *, progress: bool = True, use_cache: bool = True,
               threads: int = MAX_THREADS) -> StrengthTables:
    """The E[HS] and E[HS²] tables of every street, from the disk cache or built (and saved).

    For hold'em the files take 351 MiB and are memory-mapped, not read; building them takes
    about 40 s.  `threads` is capped at two (and at numba's thread count)."""
    if use_cache and streets in _loaded:
        return _loaded[streets]
    folder = _cache_folder(streets)
    previous = numba.get_num_threads()
    most = numba.config.NUMBA_NUM_THREADS  # type: ignore[attr-defined]  # (not in the stubs)
    numba.set_num_threads(max(1, min(threads, MAX_THREADS, most)))
    try:
        name = f"street{streets.last}.npy"
        last = disk.load(folder / name, mmap=True) if use_cache else None
        if last is None or last.dtype != np.uint16:
            last = _build_last(streets, progress)
            if use_cache:
                with contextlib.suppress(OSError):
                    disk.save_atomic(folder / name, last)
        expected: list[FloatArray] = []
        following: FloatArray | None = None
        for street in range(streets.last - 1, -1, -1):
            name = f"street{street}.npy"
            table = disk.load(folder / name, mmap=True) if use_cache else None
            if table is None or table.dtype != np.float32:
                table = _build_earlier(streets, street, np.asarray(last), following, progress)
                if use_cache:
                    with contextlib.suppress(OSError):
                        disk.save_atomic(folder / name, table)
            following = np.asarray(table)
            expected.insert(0, following)
    finally:
        numba.set_num_threads(previous)
    tables = StrengthTables(streets, tuple(expected), np.asarray(last))
    if use_cache:
        _loaded[streets] = tables
    return tables


def ehs(cards: Sequence[int] | str, streets: Streets = HOLDEM,
        tables: StrengthTables | None = None) -> tuple[float, float]:
    """E[HS] and E[HS²] of two hole cards and the board so far (ids or ``"AsKd 7h8h9c"``).

    Looks the hand's class up in `tables` (by default `ehs_tables(streets)`, built if needed)."""
    hand = streets.deck.parse_cards(cards) if isinstance(cards, str) else tuple(cards)
    board = len(hand) - streets.hole
    sizes = [streets.board_size(s) for s in range(streets.num_streets)]
    if board not in sizes:
        raise ValueError(f"{len(hand)} cards: expected {streets.hole} hole cards and a board "
                         f"of {', '.join(map(str, sizes))} cards")
    street = sizes.index(board)
    index = streets.indexer(street).index(hand)
    e, e2 = (tables or ehs_tables(streets)).lookup(street, np.array([index]))
    return float(e[0]), float(e2[0])

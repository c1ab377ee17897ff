"""Poker hand values in numba: any 1 to 7 cards of the 52-card deck -> an integer, higher is
better, equal is a tie.

Why our own evaluator: the solver kernels evaluate hands *inside* numba, by the hundreds of
millions, and no Python library can be called there per hand (pokerkit takes ~230 µs for a 7-card
hand, eval7 and phevaluator ~0.6 and ~2.5 µs of Python call each).  So this module is a table
evaluator of its own design, and pokerkit is the independent referee in the tests.

How it works.  A hand is summarised by two integers that the cards *add up* (cards are
distinct, so OR and + agree), which also makes incremental evaluation free: a board's sums plus
two hole cards' are the seven-card sums.

* ``key``: the rank multiset as two base-5 numbers, the counts of the seven low ranks (2..8) in
  bits 0..16 and of the six high ranks (9..A) in bits 20..33, each card adding ``5**rank`` to its
  half; and one 4-bit counter per suit in bits 40..55.
* ``bits``: one bit per card, suit ``s``'s 13 ranks in bits ``16*s .. 16*s+12``.

Five or more cards of one suit show as a counter >= 5, found for all four suits at once by
adding 3 to each nibble and testing its top bit.  A hand with a flush holds no full house or
quads (the at most two other cards cannot complete them), so it is valued by its suit's 13-bit
mask alone: ``FLUSH[mask]`` (8,192 entries).  Otherwise only the rank multiset matters, and it
is looked up in a *minimal* table with no hashing: the 76,155 multisets of at most 7 cards are
laid out in blocks, one per multiset of the high ranks, each block holding exactly the low-rank
multisets that fit in the cards left, ordered by size.  ``HIGH_BLOCK[high base-5 number]`` is
the block's start, ``LOW_POSITION[low base-5 number]`` the place inside it.  The tables come to
390 KB, most of it in the two direct base-5 lookups, whose used entries (1,548 high and 3,180 low
multisets) are few, so what hands touch stays in the L2 cache.

Values of 5 to 7 cards are the 7,462 classes of five-card hands, 0 (7-5-4-3-2 offsuit) to 7461
(a royal flush), whatever the number of cards.  With fewer than five cards there are no straights
or flushes, and the rest ranks as usual with fewer kickers (trips, two pair, a pair, high
cards), which is how OpenSpiel's ``universal_poker`` (the ACPC evaluator) ranks such hands;
those values live on a scale of their own and compare only hands of the same size.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from enum import IntEnum

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.cards.cache import cache_dir, load, save_atomic, source_digest
from solver.cards.deck import STANDARD, Deck

LOW_RANKS = 7
"""Ranks 0..6 (2..8) form the low half of the key, 7..12 (9..A) the high half."""
MAX_CARDS = 7
HIGH_SHIFT, SUIT_SHIFT = 20, 40
LOW_MASK, HIGH_MASK = (1 << 17) - 1, (1 << 14) - 1
NUM_CLASSES = 7462


class Category(IntEnum):
    HIGH_CARD = 0
    PAIR = 1
    TWO_PAIR = 2
    TRIPS = 3
    STRAIGHT = 4
    FLUSH = 5
    FULL_HOUSE = 6
    QUADS = 7
    STRAIGHT_FLUSH = 8


def _straight_top(present: int) -> int:
    """Top rank of the highest five ranks in a row in the 13-bit mask `present` (the wheel
    A-2-3-4-5 counts as 5-high), or -1."""
    low_ace = present << 1 | present >> 12 & 1  # bit r + 1 is rank r, bit 0 the ace again
    for top in range(12, 2, -1):
        run = 0b11111 << (top - 3)
        if low_ace & run == run:
            return top
    return -1


def _multiset_value(counts: Sequence[int]) -> tuple[int, ...]:
    """(category, ranks that break ties...) of the best hand of at most five cards that ignores
    suits; shorter hands keep fewer kickers."""
    desc = [r for r in range(12, -1, -1) if counts[r]]

    def kickers(used: tuple[int, ...], n: int) -> list[int]:
        return [r for r in desc if r not in used][:n]

    quads = [r for r in desc if counts[r] == 4]
    if quads:
        return (Category.QUADS, quads[0], *kickers((quads[0],), 1))
    trips = [r for r in desc if counts[r] == 3]
    pairs = [r for r in desc if counts[r] >= 2]
    if trips and len(pairs) >= 2:
        return (Category.FULL_HOUSE, trips[0], next(r for r in pairs if r != trips[0]))
    top = _straight_top(sum(1 << r for r in desc))
    if top >= 0:
        return (Category.STRAIGHT, top)
    if trips:
        return (Category.TRIPS, trips[0], *kickers((trips[0],), 2))
    if len(pairs) >= 2:
        return (Category.TWO_PAIR, pairs[0], pairs[1], *kickers((pairs[0], pairs[1]), 1))
    if pairs:
        return (Category.PAIR, pairs[0], *kickers((pairs[0],), 3))
    return (Category.HIGH_CARD, *desc[:5])


def _flush_value(mask: int) -> tuple[int, ...]:
    """Value of the best five of the (five or more) ranks in one suit's `mask`."""
    top = _straight_top(mask)
    if top >= 0:
        return (Category.STRAIGHT_FLUSH, top)
    return (Category.FLUSH, *[r for r in range(12, -1, -1) if mask >> r & 1][:5])


def _multisets(ranks: int, most: int) -> Iterator[tuple[int, ...]]:
    """Every tuple of `ranks` counts (each 0..4) adding up to at most `most`."""
    if ranks == 0:
        yield ()
        return
    for rest in _multisets(ranks - 1, most):
        for c in range(min(4, most - sum(rest)) + 1):
            yield (*rest, c)


def _base5(counts: Sequence[int]) -> int:
    return sum(c * 5**i for i, c in enumerate(counts))


def _build_tables() -> tuple[NDArray[np.uint16], NDArray[np.uint16], NDArray[np.int32],
                             NDArray[np.uint16], NDArray[np.int32]]:
    """FLUSH, VALUES, HIGH_BLOCK, LOW_POSITION and the first value of each category."""
    # The 7,462 five-card classes, from the five-card multisets and the five-bit suit masks.
    five = {_multiset_value(c) for c in _multisets(13, 5) if sum(c) == 5}
    masks = [m for m in range(1 << 13) if m.bit_count() >= 5]
    five |= {_flush_value(m) for m in masks if m.bit_count() == 5}
    order = {v: i for i, v in enumerate(sorted(five))}
    assert len(order) == NUM_CLASSES
    flush = np.zeros(1 << 13, dtype=np.uint16)
    for m in masks:
        flush[m] = order[_flush_value(m)]
    category_start = np.array([min(i for v, i in order.items() if v[0] == c) for c in Category]
                              + [NUM_CLASSES], dtype=np.int32)

    lows = sorted(_multisets(LOW_RANKS, MAX_CARDS), key=sum)
    highs = list(_multisets(13 - LOW_RANKS, MAX_CARDS))
    low_position = np.zeros(5**LOW_RANKS, dtype=np.uint16)
    for i, low in enumerate(lows):
        low_position[_base5(low)] = i
    lows_up_to = np.cumsum(np.bincount([sum(low) for low in lows], minlength=MAX_CARDS + 1))
    high_block = np.full(5 ** (13 - LOW_RANKS), -1, dtype=np.int32)
    short: dict[tuple[int, ...], list[int]] = {}
    values = np.zeros(int(sum(lows_up_to[MAX_CARDS - sum(h)] for h in highs)), dtype=np.uint16)
    start = 0
    for high in highs:
        high_block[_base5(high)] = start
        for i, low in enumerate(lows[: lows_up_to[MAX_CARDS - sum(high)]]):
            counts = (*low, *high)
            value = _multiset_value(counts)
            if sum(counts) >= 5:
                values[start + i] = order[value]  # a KeyError here would be a bug above
            elif sum(counts) > 0:
                short.setdefault(value, []).append(start + i)
        start += lows_up_to[MAX_CARDS - sum(high)]
    for rank, value in enumerate(sorted(short)):
        values[short[value]] = rank
    return flush, values, high_block, low_position, category_start


def _cached_tables() -> tuple[NDArray[np.uint16], NDArray[np.uint16], NDArray[np.int32],
                              NDArray[np.uint16], NDArray[np.int32]]:
    """`_build_tables` takes half a second of Python, so its result is kept on disk (a 0.7 MB
    file named after this module's source)."""
    path = cache_dir() / f"hand-values-{source_digest(__file__)}.npy"
    packed = load(path)
    if packed is None or packed.dtype != np.int32:
        parts = _build_tables()
        packed = np.concatenate([[len(part) for part in parts], *parts]).astype(np.int32)
        with contextlib.suppress(OSError):
            save_atomic(path, packed)
    ends = np.cumsum(packed[:5]) + 5
    flush, values, high, low, start = np.split(packed[5:], ends[:-1] - 5)
    return (flush.astype(np.uint16), values.astype(np.uint16), high.astype(np.int32),
            low.astype(np.uint16), start.astype(np.int32))


FLUSH, VALUES, HIGH_BLOCK, LOW_POSITION, CATEGORY_START = _cached_tables()


def _card_key(card: int) -> int:
    rank, suit = card >> 2, card & 3
    half = 5**rank if rank < LOW_RANKS else 5 ** (rank - LOW_RANKS) << HIGH_SHIFT
    key: int = half + (1 << (SUIT_SHIFT + 4 * suit))
    return key


CARD_KEY = np.array([_card_key(c) for c in range(52)], dtype=np.int64)
"""What card ``c`` adds to ``key``."""
CARD_BIT = np.array([1 << (16 * (c & 3) + (c >> 2)) for c in range(52)], dtype=np.int64)
"""What card ``c`` adds to ``bits``."""


@njit(cache=True, inline="always")
def rank_state(key: int, bits: int) -> int:
    """The value of the hand whose cards add up to `key` and `bits` (``CARD_KEY``/``CARD_BIT``)."""
    flushes = ((key >> SUIT_SHIFT) + 0x3333) & 0x8888
    if flushes:
        suit = 0 if flushes & 0x8 else 1 if flushes & 0x80 else 2 if flushes & 0x800 else 3
        return int(FLUSH[(bits >> (16 * suit)) & 0x1FFF])
    block = HIGH_BLOCK[(key >> HIGH_SHIFT) & HIGH_MASK]
    return int(VALUES[block + LOW_POSITION[key & LOW_MASK]])


@njit(cache=True, inline="always")
def rank7(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int) -> int:
    """The value of seven distinct cards (52-card ids)."""
    key = (CARD_KEY[c0] + CARD_KEY[c1] + CARD_KEY[c2] + CARD_KEY[c3] + CARD_KEY[c4]
           + CARD_KEY[c5] + CARD_KEY[c6])
    bits = (CARD_BIT[c0] | CARD_BIT[c1] | CARD_BIT[c2] | CARD_BIT[c3] | CARD_BIT[c4]
            | CARD_BIT[c5] | CARD_BIT[c6])
    return rank_state(key, bits)


@njit(cache=True, inline="always")
def rank_cards(cards: NDArray[np.integer]) -> int:
    """The value of 1 to 7 distinct cards (52-card ids) in a 1-D array."""
    key = 0
    bits = 0
    for c in cards:
        key += int(CARD_KEY[c])
        bits |= int(CARD_BIT[c])
    return rank_state(key, bits)


@njit(cache=True)
def rank_hands(hands: NDArray[np.integer]) -> NDArray[np.uint16]:
    """Values of the rows of a (hands, cards) array of 52-card ids, 1 to 7 cards a row."""
    out = np.empty(hands.shape[0], dtype=np.uint16)
    for i in range(hands.shape[0]):
        out[i] = rank_cards(hands[i])
    return out


def evaluate(cards: Iterable[int] | str, deck: Deck = STANDARD) -> int:
    """The value of 1 to 7 distinct cards of `deck`, as ids or named like ``"AsKd"``.

    A smaller deck's cards are valued as the same cards of the 52-card deck, which is how
    OpenSpiel's universal_poker values them.  (In a kernel, sum ``CARD_KEY[deck.standard_ids]``
    and ``CARD_BIT[deck.standard_ids]`` over the cards and call `rank_state`.)"""
    ids = deck.parse_cards(cards) if isinstance(cards, str) else tuple(int(c) for c in cards)
    if not 1 <= len(ids) <= MAX_CARDS or len(set(ids)) != len(ids):
        raise ValueError(f"evaluate takes 1 to {MAX_CARDS} distinct cards, not {ids}")
    if not all(0 <= c < deck.num_cards for c in ids):
        raise ValueError(f"card ids of {deck} are 0..{deck.num_cards - 1}: {ids}")
    return int(rank_cards(deck.standard_ids[np.array(ids, dtype=np.int64)]))


def category(value: int) -> Category:
    """The category of a value of five to seven cards."""
    if not 0 <= value < NUM_CLASSES:
        raise ValueError(f"values of 5 to 7 cards are 0..{NUM_CLASSES - 1}, not {value}")
    return Category(int(np.searchsorted(CATEGORY_START, value, side="right")) - 1)

"""Lossless suit isomorphism: every deal of cards in rounds -> a dense canonical index, and back.

Two deals that differ only by a renaming of the suits are strategically the same (no suit beats
another), so a solver keeps one entry per *class* of deals.  For the rounds of hold'em, hole
cards then the board as one set, there are 169 classes of two hole cards, 1,286,792 with a flop,
13,960,050 with a turn and 123,156,254 with a river.

The algorithm follows the idea of Waugh's "A fast and optimal hand isomorphism algorithm"
(2013), written here from that description:

* Within a suit, the deal is a sequence of rank sets, one per round (disjoint, since a card is
  dealt once).  Its *shape* is the sequence of their sizes; for a given shape the sets are
  numbered by a mixed radix of colexicographic ranks, each round's set ranked among the subsets
  of the ranks the earlier rounds left.  A suit is then ``(shape, number)``.
* The class of a deal is the *multiset* of its suits' ``(shape, number)`` pairs.  Sorting the
  suits by that pair (descending) gives the *configuration*: the sorted list of shapes.  Suits
  of equal shape form a group whose numbers are a multiset, ranked among all multisets of that
  size (combinations with repetition); groups combine by a mixed radix, and configurations are
  laid end to end (``config_offset``).
* Every combination is a real deal (different suits never share a card), so the index is onto
  ``0 .. size - 1``.  Unindexing walks the same steps back and hands suit 0 to the first sorted
  suit, suit 1 to the next, and so on: that is the *representative* of the class.

Indexing one hold'em river hand costs a few dozen table lookups and no allocation, so the
strength tables (`solver.cards.strength`) call it hundreds of millions of times.  Any deck
(`Deck`: lowest ranks, first suits) and any rounds work, so small games reuse all of this.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros  # an LLVM intrinsic: cttz
from numpy.typing import NDArray

from solver.cards.deck import STANDARD, Deck

IntArray = NDArray[np.int64]

POPCOUNT = np.array([bin(m).count("1") for m in range(1 << 13)], dtype=np.int64)
BINOM = np.array([[math.comb(n, k) for k in range(14)] for n in range(14)], dtype=np.int64)
COLEX = np.array([sum(math.comb(p, j + 1) for j, p in enumerate(
    p for p in range(13) if m >> p & 1)) for m in range(1 << 13)], dtype=np.int64)
"""Colexicographic rank of a rank set among the sets of its size: sum of C(p_j, j + 1) over its
ranks p_0 < p_1 < ..."""
_NUMBER_BITS = 40
"""A suit's sort key is ``shape << 40 | number``."""
POSITIONS = 4
"""Suit positions in a configuration: decks with fewer suits have the others always empty."""


class IndexerTables(NamedTuple):
    """What the numba functions need; a NamedTuple because numba takes one as an argument."""

    num_ranks: int
    num_suits: int
    rounds: IntArray  # cards dealt per round
    shape_divisor: IntArray  # a shape code's digit for round r is code // this[r] % (rounds[r]+1)
    round_start: IntArray  # where each round's cards start in a deal, then the deal's length
    card_bit: IntArray  # per card id: 1 << (16 * suit + rank)
    shape_count: IntArray  # per shape code: rank-set sequences one suit can hold with it
    config_of_key: IntArray  # `_config_key` of the sorted shapes -> configuration
    config_offset: IntArray  # first index of each configuration, then the total
    config_shapes: IntArray  # (configuration, sorted suit position) -> shape code
    config_radix: IntArray  # (configuration, position): number of multisets of the group that
    # starts there, else 1
    config_term: IntArray  # (configuration, position): members of its group from it to the end
    num_shapes: int


@njit(cache=True, inline="always")
def _binomial(n: int, k: int) -> int:
    """C(n, k) for any n and k <= 4 (the most suits that can share a shape), exactly; the
    divisions are by constants, which compile to multiplications."""
    if n < k:
        return 0
    if k == 1:
        return n
    if k == 2:
        return n * (n - 1) // 2
    if k == 3:
        return n * (n - 1) * (n - 2) // 6
    if k == 4:
        return n * (n - 1) * (n - 2) * (n - 3) // 24
    return 1


@njit(cache=True, inline="always")
def _round_bits(t: IndexerTables, cards: IntArray, r: int) -> int:
    """The cards of round `r` as one bit per card, suit ``s``'s ranks in bits ``16*s ...``."""
    if r >= t.rounds.shape[0]:
        return 0
    bits = 0
    for j in range(t.round_start[r], t.round_start[r + 1]):
        bits |= t.card_bit[cards[j]]
    return bits


@njit(cache=True, inline="always")
def _suit_key(t: IndexerTables, w0: int, w1: int, w2: int, w3: int, suit: int) -> int:
    """``shape << 40 | number`` of one suit, from the rounds' bits `w0`..`w3`."""
    used = 0
    shape = 0
    number = 0
    radix = 1
    for r in range(t.rounds.shape[0]):
        w = w0 if r == 0 else w1 if r == 1 else w2 if r == 2 else w3
        mask = (w >> (16 * suit)) & 0xFFFF
        k = POPCOUNT[mask]
        packed = mask  # the set among the ranks left: squeeze out the used ones, lowest first
        rest = used
        while rest:
            low = rest & -rest
            packed = (packed & (low - 1)) | ((packed >> 1) & ~(low - 1))
            rest = (rest & ~(2 * low - 1)) >> 1
        colex = COLEX[packed]
        shape = shape * (t.rounds[r] + 1) + k
        number += colex * radix
        radix *= BINOM[t.num_ranks - POPCOUNT[used], k]
        used |= mask
    return (shape << _NUMBER_BITS) | number


@njit(cache=True, inline="always")
def _sort_desc(a: int, b: int, c: int, d: int) -> tuple[int, int, int, int]:
    """Four integers in descending order (a five-comparator sorting network)."""
    if a < b:
        a, b = b, a
    if c < d:
        c, d = d, c
    if a < c:
        a, c = c, a
    if b < d:
        b, d = d, b
    if b < c:
        b, c = c, b
    return a, b, c, d


@njit(cache=True, inline="always")
def _last_at_most(values: IntArray, value: int) -> int:
    """The last position of a sorted array whose entry is <= `value` (a plain binary search:
    ``np.searchsorted`` inlined into a kernel costs reference counting on every call)."""
    low, high = 0, values.shape[0]
    while high - low > 1:
        mid = (low + high) >> 1
        if values[mid] <= value:
            low = mid
        else:
            high = mid
    return low


@njit(cache=True, inline="always")
def _config_key(s0: int, s1: int, s2: int, s3: int) -> int:
    """Colexicographic rank of the sorted shapes ``s0 >= s1 >= s2 >= s3`` as a multiset: a
    dense key, so a small table finds the configuration without a search."""
    return _binomial(s0 + 3, 4) + _binomial(s1 + 2, 3) + _binomial(s2 + 1, 2) + s3


@njit(cache=True, inline="always")
def _add_term(t: IndexerTables, config: int, position: int, key: int, index: int) -> int:
    """`index` with the suit at sorted `position` (whose sort key is `key`) added."""
    k = t.config_term[config, position]
    number = key & ((1 << _NUMBER_BITS) - 1)
    added: int = index * t.config_radix[config, position] + _binomial(number + k - 1, k)
    return added


@njit(cache=True, inline="always")
def index_hand(t: IndexerTables, cards: IntArray) -> int:
    """The canonical index of a deal: its cards round by round, in any order within a round.

    Inlined into the caller (about 70 ns for a hold'em river hand, with no allocation and, being
    straight-line code, no reference counting)."""
    w0 = _round_bits(t, cards, 0)
    w1 = _round_bits(t, cards, 1)
    w2 = _round_bits(t, cards, 2)
    w3 = _round_bits(t, cards, 3)
    # Unrolled over four suit positions (numba indexes a tuple by a loop variable slowly, and
    # branches around inlined calls cost reference counting); a deck with fewer suits has its
    # missing suits empty, which the tables account for.
    k0, k1, k2, k3 = _sort_desc(_suit_key(t, w0, w1, w2, w3, 0), _suit_key(t, w0, w1, w2, w3, 1),
                                _suit_key(t, w0, w1, w2, w3, 2), _suit_key(t, w0, w1, w2, w3, 3))
    config = t.config_of_key[_config_key(k0 >> _NUMBER_BITS, k1 >> _NUMBER_BITS,
                                         k2 >> _NUMBER_BITS, k3 >> _NUMBER_BITS)]
    # A mixed radix over the groups of equal shape, each a multiset rank: the radix is applied
    # where a group starts, then each member adds its term (see `_tables`).
    index = _add_term(t, config, 0, k0, 0)
    index = _add_term(t, config, 1, k1, index)
    index = _add_term(t, config, 2, k2, index)
    index = _add_term(t, config, 3, k3, index)
    offset: int = t.config_offset[config] + index
    return offset


@njit(cache=True, inline="always")
def _suit_cards(t: IndexerTables, shape: int, number: int, suit: int
                ) -> tuple[int, int, int, int]:
    """The cards one suit holds in each round, as bits ``1 << card id``, from its shape and
    number (the inverse of `_suit_key`)."""
    b0 = b1 = b2 = b3 = 0
    used = 0
    for r in range(t.rounds.shape[0]):
        k = (shape // t.shape_divisor[r]) % (t.rounds[r] + 1)
        choices = BINOM[t.num_ranks - POPCOUNT[used], k]
        colex = number % choices
        number //= choices
        bits = 0
        for j in range(k, 0, -1):
            p = j - 1  # the largest p with C(p, j) <= colex
            while BINOM[p + 1, j] <= colex:
                p += 1
            colex -= BINOM[p, j]
            rank = -1  # the p-th rank (from 0) that earlier rounds left free
            while p >= 0:
                rank += 1
                if not (used >> rank) & 1:
                    p -= 1
            used |= 1 << rank
            bits |= 1 << (rank * t.num_suits + suit)
        if r == 0:
            b0 = bits
        elif r == 1:
            b1 = bits
        elif r == 2:
            b2 = bits
        else:
            b3 = bits
    return b0, b1, b2, b3


@njit(cache=True, inline="always")
def _write_round(bits: int, out: IntArray, pos: int) -> int:
    """Write the card ids set in `bits` in ascending order from `out[pos]`; the next position."""
    while bits:
        out[pos] = trailing_zeros(bits)  # type: ignore[call-arg]
        pos += 1
        bits &= bits - 1
    return pos


# Not inlined, and without reference counting: inlined into a loop, the accesses to the tables
# inside its own loops and branches cost two atomic operations per array per call (twice the
# time); as a plain call that needs no allocation nothing is counted at all.
@njit(cache=True, _nrt=False)  # type: ignore[call-overload]
def unindex_hand(t: IndexerTables, index: int, out: IntArray) -> None:
    """Write the representative deal of `index` into `out`: round by round, each round's cards
    in ascending id order.  Suit 0 gets the first position of the configuration, and so on."""
    config = _last_at_most(t.config_offset, index)
    rest = index - t.config_offset[config]
    w0 = w1 = w2 = w3 = 0
    # Groups were combined first to last, so they come off last to first.
    end = POSITIONS
    while end > 0:
        shape = t.config_shapes[config, end - 1]
        start = end - 1
        while start > 0 and t.config_shapes[config, start - 1] == shape:
            start -= 1
        size = end - start
        groups = t.config_radix[config, start]
        multiset = rest % groups
        rest //= groups
        for q in range(size):  # the colexicographic multiset, largest number first
            k = size - q
            low, high = k - 1, t.shape_count[shape] + size - 1 - q
            if k == 1:  # C(y, 1) = y
                low = high = multiset
            while high - low > 1:  # the largest y with C(y, k) <= multiset
                mid = (low + high) >> 1
                if _binomial(mid, k) <= multiset:
                    low = mid
                else:
                    high = mid
            multiset -= _binomial(low, k)
            b0, b1, b2, b3 = _suit_cards(t, shape, low - (size - 1 - q), start + q)
            w0 |= b0
            w1 |= b1
            w2 |= b2
            w3 |= b3
        end = start
    pos = _write_round(w0, out, 0)
    pos = _write_round(w1, out, pos)
    pos = _write_round(w2, out, pos)
    _write_round(w3, out, pos)


@njit(cache=True)
def _index_many(t: IndexerTables, hands: IntArray, out: IntArray) -> None:
    for i in range(hands.shape[0]):
        out[i] = index_hand(t, hands[i])


@njit(cache=True)
def _unindex_many(t: IndexerTables, indices: IntArray, out: IntArray) -> None:
    for i in range(indices.shape[0]):
        unindex_hand(t, indices[i], out[i])


def _shape_sizes(code: int, rounds: Sequence[int]) -> tuple[int, ...]:
    sizes = []
    for n in reversed(rounds):
        sizes.append(code % (n + 1))
        code //= n + 1
    return tuple(reversed(sizes))


def _tables(deck: Deck, rounds: tuple[int, ...]) -> IndexerTables:
    num_shapes = math.prod(n + 1 for n in rounds)
    shape_count = np.zeros(num_shapes, dtype=np.int64)
    for code in range(num_shapes):
        count, left = 1, deck.num_ranks
        for k in _shape_sizes(code, rounds):
            count *= math.comb(left, k)
            left -= k
        shape_count[code] = count  # 0 when the suit cannot hold that many ranks
    sizes = {code: _shape_sizes(code, rounds) for code in np.flatnonzero(shape_count).tolist()}
    configs: list[tuple[tuple[int, ...], int]] = []
    for shapes in itertools.combinations_with_replacement(sorted(sizes, reverse=True),
                                                          deck.num_suits):  # non-increasing
        if tuple(map(sum, zip(*(sizes[code] for code in shapes), strict=True))) != rounds:
            continue
        size = 1
        for code, group in itertools.groupby(shapes):
            k = len(list(group))
            # `_binomial` multiplies k numbers up to count + k - 1 before dividing.
            assert (int(shape_count[code]) + k) ** k < 1 << 63, "the index would overflow"
            size *= math.comb(int(shape_count[code]) + k - 1, k)  # multisets of k numbers
        configs.append(((*shapes, *[0] * (POSITIONS - deck.num_suits)), size))
    configs.sort()
    offsets = np.cumsum([0] + [size for _, size in configs])
    config_of_key = np.full(math.comb(num_shapes + POSITIONS - 1, POSITIONS), -1, dtype=np.int64)
    for i, (shapes, _) in enumerate(configs):
        config_of_key[_config_key(*shapes)] = i
    radix = np.ones((len(configs), POSITIONS), dtype=np.int64)
    term = np.ones((len(configs), POSITIONS), dtype=np.int64)
    for i, (shapes, _) in enumerate(configs):
        for s, shape in enumerate(shapes):
            members = shapes.count(shape)
            first = shapes.index(shape)
            term[i, s] = members - (s - first)
            if s == first:
                radix[i, s] = math.comb(int(shape_count[shape]) + members - 1, members)
    cards = np.arange(deck.num_cards)
    return IndexerTables(
        num_ranks=deck.num_ranks, num_suits=deck.num_suits,
        rounds=np.array(rounds, dtype=np.int64),
        shape_divisor=np.array([math.prod(n + 1 for n in rounds[r + 1:])
                                for r in range(len(rounds))], dtype=np.int64),
        round_start=np.cumsum((0, *rounds)).astype(np.int64),
        card_bit=np.left_shift(1, 16 * (cards % deck.num_suits) + cards // deck.num_suits),
        shape_count=shape_count,
        config_of_key=config_of_key,
        config_offset=offsets.astype(np.int64),
        config_shapes=np.array([shapes for shapes, _ in configs], dtype=np.int64),
        config_radix=radix, config_term=term,
        num_shapes=num_shapes)


@dataclass(frozen=True, slots=True, eq=False)
class HandIndexer:
    """Canonical indices of deals of `rounds` cards per round from `deck`.

    ``HandIndexer((2, 3))`` indexes hold'em flop hands: two hole cards, then the flop.  The
    board is one round of 3, 4 or 5 cards because its order does not matter for strength;
    give the flop, turn and river as separate rounds (``(2, 3, 1, 1)``) when it does."""

    rounds: tuple[int, ...]
    deck: Deck = STANDARD
    tables: IndexerTables = field(init=False, repr=False)

    def __post_init__(self) -> None:
        rounds = tuple(int(n) for n in self.rounds)
        if not 1 <= len(rounds) <= 4 or min(rounds) < 1 or sum(rounds) > self.deck.num_cards:
            raise ValueError(f"cannot deal rounds {rounds} from {self.deck} (1 to 4 rounds)")
        object.__setattr__(self, "rounds", rounds)
        object.__setattr__(self, "tables", _tables(self.deck, rounds))

    @property
    def size(self) -> int:
        """Number of classes: indices run over ``0 .. size - 1``."""
        return int(self.tables.config_offset[-1])

    @property
    def num_cards(self) -> int:
        return sum(self.rounds)

    def index(self, cards: Sequence[int] | str) -> int:
        """The index of a deal given as ids or names (``"AsKd 7h8h9c"``), round by round."""
        hand = self._check(self.deck.parse_cards(cards) if isinstance(cards, str) else cards)
        return int(index_hand(self.tables, hand))

    def unindex(self, index: int) -> tuple[int, ...]:
        """The representative deal of the class `index`, round by round, ascending in a round."""
        if not 0 <= index < self.size:
            raise ValueError(f"index {index} is not in 0..{self.size - 1}")
        out = np.empty(self.num_cards, dtype=np.int64)
        unindex_hand(self.tables, np.int64(index), out)
        return tuple(int(c) for c in out)

    def index_many(self, hands: NDArray[np.integer]) -> IntArray:
        """Indices of the rows of a (deals, cards) array of card ids."""
        deals = np.ascontiguousarray(hands, dtype=np.int64)
        if deals.ndim != 2 or deals.shape[1] != self.num_cards:
            raise ValueError(f"expected an array of shape (n, {self.num_cards})")
        out = np.empty(deals.shape[0], dtype=np.int64)
        _index_many(self.tables, deals, out)
        return out

    def unindex_many(self, indices: NDArray[np.integer]) -> IntArray:
        """Representatives of many indices, one deal per row."""
        wanted = np.ascontiguousarray(indices, dtype=np.int64)
        if wanted.size and (wanted.min() < 0 or wanted.max() >= self.size):
            raise ValueError(f"indices must be in 0..{self.size - 1}")
        out = np.empty((wanted.shape[0], self.num_cards), dtype=np.int64)
        _unindex_many(self.tables, wanted, out)
        return out

    def _check(self, cards: Sequence[int]) -> IntArray:
        hand = np.array([int(c) for c in cards], dtype=np.int64)
        if hand.shape[0] != self.num_cards:
            raise ValueError(f"a deal of rounds {self.rounds} has {self.num_cards} cards, "
                             f"not {hand.shape[0]}")
        if hand.min() < 0 or hand.max() >= self.deck.num_cards:
            raise ValueError(f"card ids of {self.deck} are 0..{self.deck.num_cards - 1}")
        if len(set(hand.tolist())) != hand.shape[0]:
            raise ValueError("a card appears twice")
        return hand

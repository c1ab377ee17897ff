"""Card ids and their two-character names, for the 52-card deck and for smaller decks.

A card's id is ``rank * num_suits + suit``: ranks count up from the deuce (``0`` is ``2``,
``12`` is ``A``), suits are ``c d h s`` in that order.  In the 52-card deck ``2c`` is 0, ``2d``
1, ``2h`` 2, ``2s`` 3, ``3c`` 4, ... and ``As`` 51.  This is the numbering of OpenSpiel's
``universal_poker`` (and of the ACPC server under it): a smaller deck keeps the *lowest*
``num_ranks`` ranks and the first ``num_suits`` suits, so with ``numRanks=4, numSuits=2`` the
eight cards ``2c 2d 3c 3d 4c 4d 5c 5d`` are its chance outcomes 0..7 (a test checks this against
pyspiel).  Strategies and logs can therefore use OpenSpiel's ids without relabelling.

Rank-major ids also keep the hot loops simple: ``id >> 2`` and ``id & 3`` split a 52-card id,
and a permutation of the suits moves every card within its rank, which is all the suit
isomorphism needs.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

RANK_CHARS = "23456789TJQKA"
SUIT_CHARS = "cdhs"
MAX_RANKS = len(RANK_CHARS)
MAX_SUITS = len(SUIT_CHARS)

_SPACE = re.compile(r"[\s,]+")


@dataclass(frozen=True, slots=True)
class Deck:
    """A deck of the lowest `num_ranks` ranks in the first `num_suits` suits."""

    num_ranks: int = MAX_RANKS
    num_suits: int = MAX_SUITS

    def __post_init__(self) -> None:
        if not 1 <= self.num_ranks <= MAX_RANKS:
            raise ValueError(f"num_ranks must be 1..{MAX_RANKS}, not {self.num_ranks}")
        if not 1 <= self.num_suits <= MAX_SUITS:
            raise ValueError(f"num_suits must be 1..{MAX_SUITS}, not {self.num_suits}")

    @property
    def num_cards(self) -> int:
        return self.num_ranks * self.num_suits

    def card(self, rank: int, suit: int) -> int:
        if not (0 <= rank < self.num_ranks and 0 <= suit < self.num_suits):
            raise ValueError(f"no card of rank {rank} and suit {suit} in {self}")
        return rank * self.num_suits + suit

    def rank(self, card: int) -> int:
        return self._check(card) // self.num_suits

    def suit(self, card: int) -> int:
        return self._check(card) % self.num_suits

    def name(self, card: int) -> str:
        """``As``, ``Td``, ``2c``: the rank character, then the suit letter."""
        return RANK_CHARS[self.rank(card)] + SUIT_CHARS[self.suit(card)]

    def names(self, cards: Iterable[int], sep: str = "") -> str:
        return sep.join(self.name(int(c)) for c in cards)

    def parse(self, name: str) -> int:
        """The id of one card named like ``As`` (the rank may also be ``t/j/q/k/a``)."""
        if len(name) != 2:
            raise ValueError(f"a card is two characters like 'As', not {name!r}")
        rank = RANK_CHARS.find(name[0].upper())
        suit = SUIT_CHARS.find(name[1])
        if rank < 0 or suit < 0:
            raise ValueError(f"unknown card {name!r} (ranks {RANK_CHARS}, suits {SUIT_CHARS})")
        if rank >= self.num_ranks or suit >= self.num_suits:
            raise ValueError(f"no card {name!r} in {self}")
        return rank * self.num_suits + suit

    def parse_cards(self, text: str) -> tuple[int, ...]:
        """Ids of cards written together or apart: ``"AsKd"``, ``"As Kd"``, ``"As,Kd"``.

        Repeated cards are refused: no deal holds a card twice."""
        packed = _SPACE.sub("", text)
        if len(packed) % 2:
            raise ValueError(f"cards are two characters each: {text!r}")
        cards = tuple(self.parse(packed[i : i + 2]) for i in range(0, len(packed), 2))
        if len(set(cards)) != len(cards):
            raise ValueError(f"a card appears twice in {text!r}")
        return cards

    @property
    def standard_ids(self) -> NDArray[np.int64]:
        """Id in this deck -> id of the same card in the 52-card deck, for the evaluator."""
        cards = np.arange(self.num_cards)
        return (cards // self.num_suits) * MAX_SUITS + cards % self.num_suits

    def _check(self, card: int) -> int:
        if not 0 <= card < self.num_cards:
            raise ValueError(f"no card {card} in {self} (ids 0..{self.num_cards - 1})")
        return card

    def __str__(self) -> str:
        return f"the {self.num_cards}-card deck ({self.num_ranks} ranks x {self.num_suits} suits)"


STANDARD = Deck()
"""The 52-card deck."""

"""How a player sees a game: its pieces (cards, dice, moves), what its seats are called, what
both players see of a position, how choices are laid out, the units and groupings results and
ranges are shown in, the figures a style is described by, and betting and cards in words.
Plain values, no game logic: a game's view fills them in (`solver.games.game_view`), the app
draws them without knowing which game it is."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal


@dataclass(frozen=True, slots=True)
class Card:
    """A playing card as drawn: rank character and suit letter (``"c"``, ``"d"``, ``"h"``,
    ``"s"``; empty for a deck without suits, like Kuhn's)."""

    rank: str
    suit: str = ""

    def __str__(self) -> str:
        return self.rank + self.suit


@dataclass(frozen=True, slots=True)
class Die:
    face: int

    def __str__(self) -> str:
        return str(self.face)


@dataclass(frozen=True, slots=True)
class Move:
    """A choice shown as a word (a Rock-Paper-Scissors move)."""

    name: str

    def __str__(self) -> str:
        return self.name


Piece = Card | Die | Move
PieceKind = Literal["cards", "dice", "moves"]
LabelPart = str | Piece
"""An action label drawn as text and pieces: ``"2x5"`` is ``("2×", Die(5))``."""


@dataclass(frozen=True, slots=True)
class Seat:
    """How the players of a game name a seat and when it acts, for the pages' words: poker
    players name the blinds, most games only the order of play."""

    short: str
    """A word or two for a label or a column: ``"first"``, ``"big blind"``."""
    order: str
    """When the seat acts, after "acts": ``"first"``, ``"second before the flop, first after
    it"``."""
    role: str = ""
    """What the seat is called where it is more than its turn (``"the big blind"``); empty
    where the order says it all."""

    @property
    def name(self) -> str:
        """The seat in a sentence: ``"the big blind"``, ``"the first player"``."""
        return self.role or f"the {self.short} player"


IN_TURN = (Seat("first", "first"), Seat("second", "second"))
"""Seats known by their turn: the first player acts first, the second second."""


@dataclass(frozen=True, slots=True)
class FinishedRound:
    """A round of a game played in rounds (a Dudo match), once it is over: what each seat
    showed, who lost it and why, for the table to show while the next rounds are played."""

    number: int
    pieces: tuple[tuple[Piece, ...], tuple[Piece, ...]]
    """What each seat revealed, seat 0 first."""
    loser: int
    """The seat that lost the round."""
    explain: Callable[[tuple[str, str]], str] = field(compare=False)
    """Why the round ended as it did, naming the seats as given (like `GameView.outcome_text`):
    ``"The bot called dudo on 3x4: your dice 1 4 6, the bot's 4 5; ... you lose a die."``"""


@dataclass(frozen=True, slots=True)
class PublicView:
    """What both players see of a position; a game fills in the fields it has."""

    pot: int | None = None
    contributions: tuple[int, int] | None = None
    """Chips put in by seat 0 and seat 1, antes and blinds included."""
    round: int | None = None
    rounds: int | None = None
    board: tuple[Piece, ...] = ()
    board_slots: int = 0
    """How many board pieces the game deals in all (drawn face down until dealt)."""
    bids: tuple[str, ...] | None = None
    """The bids so far (empty before the first), for a game that has bids."""
    last_bid: str | None = None
    pieces_held: tuple[int, int] | None = None
    """How many private pieces (dice) each seat holds, where that is public and varies."""
    betting: str | None = None
    """The betting so far in the game's compact notation, if it has one."""
    finished_rounds: tuple[FinishedRound, ...] = ()
    """The rounds played so far, for a game played in rounds (a Dudo match)."""


@dataclass(frozen=True, slots=True)
class ActionGroup:
    """Choices drawn together, in order: a grid of `columns` buttons (0: one row). Labels
    not legal in the position are drawn disabled, so that the grid keeps its shape."""

    title: str
    labels: tuple[str, ...]
    columns: int = 0


@dataclass(frozen=True, slots=True)
class AmountChoice:
    """A move whose size the player chooses: any whole amount from `low` to `high` (a
    no-limit bet or raise, to that many chips in all this hand, as ACPC counts it).

    A client names it by one of `verbs` and the amount; `label` gives the action label the
    move has among the legal actions.  `quick` names the amounts players reach for (the
    smallest raise, half the pot, the pot, all-in), each inside the range.

    >>> choice = AmountChoice(("bet", "raise"), 4, 12, "raise to {}", (("pot", 8),))
    >>> choice.label(8), choice.allows(13)
    ('raise to 8', False)
    """

    verbs: tuple[str, ...]
    low: int
    high: int
    template: str
    quick: tuple[tuple[str, int], ...] = ()

    def label(self, amount: int) -> str:
        return self.template.format(amount)

    def allows(self, amount: int) -> bool:
        return self.low <= amount <= self.high

    @property
    def range_words(self) -> str:
        """``"raise to any amount from 4 to 12"``."""
        if self.low == self.high:
            return self.label(self.low)
        return f"{self.template.format('any amount')} from {self.low} to {self.high}"


@dataclass(frozen=True, slots=True)
class ResultUnit:
    """The unit players of a game quote results in, beside the game's own chips: poker players
    think in milli-big-blinds per hand, whatever the stakes."""

    name: str
    """``"mbb/hand"``."""
    per_chip: float
    """How many of the unit one chip won per hand is (500 where the big blind is 2 chips)."""
    meaning: str
    """What the unit is, in a sentence."""


@dataclass(frozen=True, slots=True)
class HandClasses:
    """The strategic classes of two-card hands (pairs, suited, offsuit), laid out as poker's
    13×13 grid: pairs on the diagonal, suited hands above it and offsuit hands below, so that a
    range of 1,326 hands reads at a glance."""

    ranks: str
    """The ranks from the highest, one character each (``"AKQJT98765432"``)."""

    def cell(self, cards: str) -> tuple[int, int] | None:
        """Row and column of a hand written as two cards (``"AsKd"``); None for anything else."""
        if len(cards) != 4:
            return None
        high, low = self.ranks.find(cards[0]), self.ranks.find(cards[2])
        if high < 0 or low < 0:
            return None
        high, low = min(high, low), max(high, low)
        return (high, low) if cards[1] == cards[3] else (low, high)

    def label(self, row: int, column: int) -> str:
        """``AA`` on the diagonal, ``AKs`` above it, ``AKo`` below."""
        if row == column:
            return self.ranks[row] * 2
        high, low = min(row, column), max(row, column)
        return f"{self.ranks[high]}{self.ranks[low]}{'s' if row < column else 'o'}"


@dataclass(frozen=True, slots=True)
class StyleStat:
    """A figure players of the game describe a style with (poker's VPIP, Dudo's bluffs): a
    count over its opportunities, summed over hands. `Game.style_counts` counts both in one
    hand; the long-run figure is the sum of the counts over the sum of the opportunities."""

    name: str
    """Short identifier (``"vpip"``)."""
    title: str
    """As players write it (``"VPIP"``)."""
    meaning: str
    """What is counted, over what, in a sentence."""
    kind: Literal["share", "ratio"] = "share"
    """A share of the opportunities (shown as a percentage), or a ratio of two counts."""


StyleCounts = dict[str, tuple[float, float]]
"""Style statistic name -> (count, opportunities) in one hand; a statistic with no
opportunity in the hand may be left out."""


def betting_words(letters: str, facing: bool = False, opened: bool = False) -> str:
    """A round of betting written ``c``/``r``/``f`` (check or call, bet or raise, fold; a
    no-limit raise with the amount it goes to, ``r300``) in words: ``"rc"`` -> ``"bet,
    call"``, ``"r300c"`` -> ``"bet 300, call"``. `facing`: the first to act faces a bet (a
    blind); `opened`: a bet is already in (so the first ``r`` raises)."""
    words = []
    for move in re.findall(r"r\d*|[^r]", letters):
        if move == "f":
            words.append("fold")
        elif move == "c":
            words.append("call" if facing else "check")
            facing = False
        else:
            verb = "raise" if facing or opened else "bet"
            words.append(f"{verb} to {move[1:]}" if move[1:] and verb == "raise"
                         else f"{verb} {move[1:]}".strip())
            facing = opened = True
    return ", ".join(words) or "nothing yet"


SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def cards_text(cards: str) -> str:
    """Cards written two characters each (``Ks7d``) with suit symbols: ``K♠ 7♦``."""
    return " ".join(cards[i] + SUIT_SYMBOLS.get(cards[i + 1], cards[i + 1])
                    for i in range(0, len(cards) - 1, 2))

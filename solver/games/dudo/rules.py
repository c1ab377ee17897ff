"""Dudo for two players with any number of dice each (1 to 5), 1s wild, optionally with calzo.

``dudo`` is the course exercise, one six-sided die each; ``dudo-AvB`` gives the first player A
dice and the second B.  Bids are ids ``0 .. 6(A+B) - 1`` in increasing strength, so "a stronger
bid" is just "a higher id" and a state is nothing but its history: cheap to extend.  The order
is the real game's: for each quantity q the faces 2..6, and a bid of n x 1 just above
(2n - 1) x 6 and below 2n x 2, since a 1 is about half as likely as "that face or a wild 1"
(bids on 1s beyond the total's range close the list).  For one die each that is the course's
order 1x2 .. 1x6, 1x1, 2x2 .. 2x6, 2x1, with dudo 12 and calzo 13.

Each player's roll is one chance event whose outcome is the *multiset* of its dice (sorted
faces, ``"16"``), with its multinomial probability: the order of a player's dice is nothing
anybody can use, and one event per roll keeps the tree as small as the information sets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod

from solver.games.view_values import ActionGroup

MAX_DICE = 5
"""Dice a player starts a full match with, and the most a Dudo game here gives a player."""
FACES = 6


@dataclass(frozen=True, slots=True)
class DudoRules:
    """What makes one Dudo game: each player's dice, the faces of a die (6; tests use fewer to
    keep generic walks small) and whether calzo may be called."""

    dice: tuple[int, int] = (1, 1)
    faces: int = FACES
    calzo: bool = False

    def __post_init__(self) -> None:
        if not all(1 <= d <= MAX_DICE for d in self.dice):
            raise ValueError(f"each player has 1 to {MAX_DICE} dice, got {self.dice}")
        if not 2 <= self.faces <= 9:
            raise ValueError(f"a die has 2 to 9 faces, got {self.faces}")

    @property
    def total(self) -> int:
        return self.dice[0] + self.dice[1]

    @property
    def num_bids(self) -> int:
        return self.faces * self.total

    @property
    def dudo(self) -> int:
        """The action id of dudo: one past the strongest bid."""
        return self.num_bids

    @property
    def calzo_action(self) -> int:
        return self.num_bids + 1


def bid_order(total: int, faces: int = FACES) -> tuple[tuple[int, int], ...]:
    """Every bid ``(quantity, face)`` on `total` dice, weakest first (see the module's doc)."""
    bids: list[tuple[int, int]] = []
    for quantity in range(1, total + 1):
        bids.extend((quantity, face) for face in range(2, faces + 1))
        if quantity % 2 == 1:
            bids.append(((quantity + 1) // 2, 1))
    bids.extend((n, 1) for n in range(1, total + 1) if 2 * n - 1 > total)
    return tuple(bids)


def bid_labels(total: int, faces: int = FACES) -> tuple[str, ...]:
    return tuple(f"{q}x{f}" for q, f in bid_order(total, faces))


@cache
def rolls(count: int, faces: int = FACES) -> tuple[tuple[tuple[int, ...], float], ...]:
    """The multisets of `count` dice (sorted faces, in lexicographic order) with their
    probabilities: ``count! / prod(multiplicities!) / faces**count``."""
    out = []
    for dice in combinations_with_replacement(range(1, faces + 1), count):
        ways = factorial(count) // prod(factorial(dice.count(f)) for f in set(dice))
        out.append((dice, ways / faces**count))
    return tuple(out)


def count_matching(dice: tuple[int, ...], face: int) -> int:
    """Dice showing `face` or a wild 1; a bid on 1s counts only the 1s."""
    return sum(1 for d in dice if d == face or (d == 1 and face != 1))


def bluff_test(bids: tuple[tuple[int, int], ...], dice: tuple[int, ...]
               ) -> Callable[[int], bool | None]:
    """For the style figures: None for a call (an id past the bids), else whether the bid was
    more than `dice` (both rolls) made."""

    def bluff(move: int) -> bool | None:
        if move >= len(bids):
            return None
        quantity, face = bids[move]
        return count_matching(dice, face) < quantity

    return bluff


def dice_text(dice: tuple[int, ...]) -> str:
    """``"16"``: a roll as its private key, faces sorted."""
    return "".join(map(str, sorted(dice)))


@dataclass(frozen=True, slots=True)
class _Tables:
    bids: tuple[tuple[int, int], ...]
    labels: tuple[str, ...]  # bids, then "dudo" (and "calzo")
    rolls: tuple[tuple[tuple[tuple[int, ...], float], ...], tuple[tuple[tuple[int, ...],
                                                                          float], ...]]
    outcomes: tuple[tuple[tuple[int, float], ...], tuple[tuple[int, float], ...]]
    opening: tuple[int, ...]
    after_bid: tuple[tuple[int, ...], ...]


@cache
def tables(rules: DudoRules) -> _Tables:
    """Everything about `rules` that states look up, computed once."""
    bids = bid_order(rules.total, rules.faces)
    calls = (rules.dudo, rules.calzo_action) if rules.calzo else (rules.dudo,)
    each = (rolls(rules.dice[0], rules.faces), rolls(rules.dice[1], rules.faces))
    return _Tables(
        bids=bids,
        labels=(*(f"{q}x{f}" for q, f in bids), "dudo", *(("calzo",) if rules.calzo else ())),
        rolls=each,
        outcomes=(tuple((i, p) for i, (_, p) in enumerate(each[0])),
                  tuple((i, p) for i, (_, p) in enumerate(each[1]))),
        opening=tuple(range(len(bids))),
        after_bid=tuple(tuple(range(last + 1, len(bids))) + calls for last in range(len(bids))),
    )


def call_result(rules: DudoRules, dice: tuple[tuple[int, ...], tuple[int, ...]], bid: int,
                call: int) -> tuple[int, int]:
    """``(count, winner's seat relative to the caller: 0 the caller, 1 the bidder)`` of a call
    on `bid`: dudo wins if fewer dice match, calzo if exactly as many."""
    quantity, face = tables(rules).bids[bid]
    count = count_matching(dice[0] + dice[1], face)
    caller_wins = count < quantity if call == rules.dudo else count == quantity
    return count, 0 if caller_wins else 1


def describe_count(dice: tuple[int, ...], face: int) -> str:
    """``"one 5 and a wild 1 make 2"``: how the dice count for a bid on `face`."""
    plain = sum(1 for d in dice if d == face)
    wild = sum(1 for d in dice if d == 1) if face != 1 else 0
    if plain + wild == 0:
        return f"no {face} and no wild 1" if face != 1 else "no 1 at all"
    parts = [f"{_count_word(plain)} {face}" + ("s" if plain > 1 else "")] if plain else []
    if wild:
        parts.append(f"{'a' if wild == 1 else _count_word(wild)} wild 1"
                     + ("s" if wild > 1 else ""))
    verb = "makes" if len(parts) == 1 and plain + wild == 1 else "make"
    return f"{' and '.join(parts)} {verb} {plain + wild}"


def _count_word(n: int) -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[n] if n < len(words) else str(n)


def explain_call(rules: DudoRules, dice: tuple[tuple[int, ...], tuple[int, ...]],
                 moves: tuple[int, ...], names: tuple[str, str], stake: str,
                 show_dice: bool | None = None) -> tuple[str, int]:
    """Why a round that ended with `moves` (bids, then the call) went as it did, naming the
    seats `names`; and the loser's seat.  `stake` says what the loser pays (``"1"``, ``"a
    die"``).  With one die each it is the course's sentence; with more (or `show_dice`) it
    shows the dice."""
    caller = (len(moves) - 1) % 2
    bidder = 1 - caller
    bid, call = moves[-2], moves[-1]
    quantity, face = tables(rules).bids[bid]
    count, winner_role = call_result(rules, dice, bid, call)
    winner = caller if winner_role == 0 else bidder
    counted = describe_count(dice[0] + dice[1], face)
    word = "dudo" if call == rules.dudo else "calzo"
    label = tables(rules).labels[bid]
    text = f"{names[caller].capitalize()} called {word} on {label}: "
    if show_dice or (show_dice is None and rules.dice != (1, 1)):
        text += (f"{_possessive(names[0])} dice {_faces(dice[0])}, {_possessive(names[1])} "
                 f"{_faces(dice[1])}; ")
    if call == rules.dudo:
        verdict = "the bid stands" if count >= quantity else "the bid fails"
    else:
        verdict = "exactly right" if count == quantity else f"not exactly {quantity}"
    loser = 1 - winner
    if stake == "1":
        tail = f"1 to {names[winner]}"
    else:
        tail = f"{names[loser]} {'lose' if names[loser] == 'you' else 'loses'} {stake}"
    return f"{text}{counted}, {verdict}: {tail}.", loser


def _possessive(name: str) -> str:
    return "your" if name == "you" else f"{name}'s"


def _faces(dice: tuple[int, ...]) -> str:
    return " ".join(map(str, sorted(dice)))


def bid_groups(rules: DudoRules) -> tuple[ActionGroup, ...]:
    """The bid grid, a row per quantity and a column per face with the 1s last, in a column of
    their own (a bid on 1s ranks between quantities, so in the order of the bids the rows of
    a grid would not line up by face once more than two dice are in play); then the calls."""
    labels = tables(rules).labels
    faces = (*range(2, rules.faces + 1), 1)
    grid = tuple(f"{q}x{f}" for q in range(1, rules.total + 1) for f in faces)
    return (ActionGroup("Bids", grid, columns=len(faces)),
            ActionGroup("Calls", labels[rules.num_bids:]))


def describe_rules(rules: DudoRules) -> str:
    game = "Dudo with calzo" if rules.calzo else "Dudo"
    if rules.dice != (1, 1):
        game += f" {rules.dice[0]}v{rules.dice[1]}"
    return game + (f" ({rules.faces}-faced dice)" if rules.faces != FACES else "")


# The course's game, one die each: its tables as module constants (tests and tools use them).
NUM_BIDS = 12
DUDO = 12
"""Challenge the last bid: it is checked against the dice."""
CALZO = 13
"""Claim the last bid is exactly right (calzo variant only)."""
BID_FACES = (2, 3, 4, 5, 6, 1)
"""Face of bid ``b`` with one die each is ``BID_FACES[b % 6]``; its quantity ``b // 6 + 1``."""
BID_LABELS: tuple[str, ...] = bid_labels(2)
"""``1x2, 1x3, ..., 1x6, 1x1, 2x2, ..., 2x1``."""



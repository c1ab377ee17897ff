"""The rules of one member of the limit hold'em family, and the two ways of naming it.

A member is fixed by the parameters of an ACPC game definition, as OpenSpiel's
``universal_poker`` takes them for two players and limit betting: the deck (``numRanks`` lowest
ranks in ``numSuits`` suits), ``numHoleCards``, the board cards dealt before each betting round
(``numBoardCards``), the ``blind`` each seat posts, and per round the bet size (``raiseSize``),
the cap on bets and raises (``maxRaises``) and who acts first (``firstPlayer``, 1-based as in
ACPC).  Stacks are unlimited (ACPC ignores them in limit games), so only the cap ends a raising
war.

Names:

* OpenSpiel's game string, ``universal_poker(betting=limit,numPlayers=2,numRounds=2,...)``
  (`HoldemRules.game_string`, `from_game_string`), which ``pyspiel.load_game`` takes;
* our spec, ``holdem(numRanks=6,numSuits=2,numBoardCards=0 1 1)`` (`HoldemRules.spec`,
  `from_spec`): the same parameter names, each defaulting to heads-up limit Texas hold'em's.
  A list left out takes hold'em's first ``numRounds`` entries, so that a short spec names a
  consistent game (three rounds bet 2, 2, 4 with caps 3, 4, 4, the small blind first preflop).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass

from solver.cards.deck import MAX_RANKS, MAX_SUITS, Deck

MAX_ROUNDS = 4
"""ACPC's limit on betting rounds (and so OpenSpiel's)."""
MAX_HAND_CARDS = 7
"""Hole and board cards together: the most the hand evaluator values."""
UNLIMITED_STACK = 2**31 - 1
"""What ACPC gives each player in a limit game; OpenSpiel prints what is left of it."""

_GAME_STRING_ORDER = ("betting", "numPlayers", "numRounds", "blind", "firstPlayer", "numSuits",
                      "numRanks", "numHoleCards", "numBoardCards", "raiseSize", "maxRaises")
_OPENSPIEL_DEFAULTS = {
    # What universal_poker assumes for a parameter left out of its game string.
    "betting": "nolimit", "numPlayers": "2", "numRounds": "2", "blind": "100 100",
    "firstPlayer": "1 1", "numSuits": "4", "numRanks": "6", "numHoleCards": "1",
    "numBoardCards": "0 1", "raiseSize": "100 100", "maxRaises": "",
}
_IGNORED_AT_DEFAULT = {"bettingAbstraction": "fcpa", "potSize": "0", "boardCards": "",
                       "handReaches": ""}
"""universal_poker parameters we accept only at their default: limit betting with fold, call
and raise, the whole game from its start."""
_CALL = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class HoldemRules:
    """One member of the family; the defaults are heads-up limit Texas hold'em (HULHE).

    Seats are 0 and 1 (OpenSpiel's players); `first_player` is 0-based here and 1-based in the
    game strings, as ACPC writes it."""

    num_ranks: int = 13
    num_suits: int = 4
    hole_cards: int = 2
    board_cards: tuple[int, ...] = (0, 3, 1, 1)
    blinds: tuple[int, int] = (2, 1)
    raise_sizes: tuple[int, ...] = (2, 2, 4, 4)
    max_raises: tuple[int, ...] = (3, 4, 4, 4)
    first_player: tuple[int, ...] = (1, 0, 0, 0)

    def __post_init__(self) -> None:
        deck = Deck(self.num_ranks, self.num_suits) if (
            1 <= self.num_ranks <= MAX_RANKS and 1 <= self.num_suits <= MAX_SUITS) else None
        if deck is None:
            raise ValueError(f"numRanks must be 1..{MAX_RANKS} and numSuits 1..{MAX_SUITS}, not "
                             f"{self.num_ranks} and {self.num_suits}")
        rounds = len(self.board_cards)
        if not 1 <= rounds <= MAX_ROUNDS:
            raise ValueError(f"numRounds must be 1..{MAX_ROUNDS}, not {rounds}")
        for name, values in (("raiseSize", self.raise_sizes), ("maxRaises", self.max_raises),
                             ("firstPlayer", self.first_player)):
            if len(values) != rounds:
                raise ValueError(f"{name} needs one entry per round ({rounds}), not {values}")
        if self.hole_cards not in (1, 2):
            raise ValueError(f"numHoleCards must be 1 or 2, not {self.hole_cards}")
        if min(self.board_cards) < 0 or self.hole_cards + sum(self.board_cards) > MAX_HAND_CARDS:
            raise ValueError(f"numBoardCards {self.board_cards}: at most {MAX_HAND_CARDS} hole "
                             f"and board cards in all")
        if 2 * self.hole_cards + sum(self.board_cards) > deck.num_cards:
            raise ValueError(f"{deck} cannot deal {self.hole_cards} hole cards each and "
                             f"{sum(self.board_cards)} board cards")
        if len(self.blinds) != 2 or min(self.blinds) < 0:
            raise ValueError(f"blind needs two amounts of at least 0, not {self.blinds}")
        if min(self.raise_sizes) <= 0 or min(self.max_raises) < 0:
            raise ValueError(f"raiseSize must be positive and maxRaises at least 0: "
                             f"{self.raise_sizes}, {self.max_raises}")
        if not set(self.first_player) <= {0, 1}:
            raise ValueError(f"firstPlayer must be 1 or 2 in every round, not "
                             f"{tuple(p + 1 for p in self.first_player)}")

    @property
    def num_rounds(self) -> int:
        return len(self.board_cards)

    @property
    def deck(self) -> Deck:
        return Deck(self.num_ranks, self.num_suits)

    @property
    def num_cards(self) -> int:
        return self.num_ranks * self.num_suits

    def board_dealt(self, round_: int) -> int:
        """Board cards on the table once round `round_` (0-based) is dealt."""
        return sum(self.board_cards[: round_ + 1])

    def parameters(self) -> dict[str, str]:
        """The universal_poker parameters, in the order of `game_string`."""
        return {
            "betting": "limit",
            "numPlayers": "2",
            "numRounds": str(self.num_rounds),
            "blind": _ints(self.blinds),
            "firstPlayer": _ints(p + 1 for p in self.first_player),
            "numSuits": str(self.num_suits),
            "numRanks": str(self.num_ranks),
            "numHoleCards": str(self.hole_cards),
            "numBoardCards": _ints(self.board_cards),
            "raiseSize": _ints(self.raise_sizes),
            "maxRaises": _ints(self.max_raises),
        }

    @property
    def game_string(self) -> str:
        """What ``pyspiel.load_game`` takes for this game.

        (OpenSpiel reads a list of one number as an integer and refuses it, so a one-round
        member has a string here but no game there: see `openspiel_loadable`.)"""
        inner = ",".join(f"{k}={v}" for k, v in self.parameters().items())
        return f"universal_poker({inner})"

    @property
    def openspiel_loadable(self) -> bool:
        return self.num_rounds >= 2

    @property
    def spec(self) -> str:
        """Our short name: ``holdem(...)`` with the parameters that differ from HULHE's (see
        the module docstring); ``holdem()`` is HULHE itself."""
        base = _hulhe_parameters(self.num_rounds)
        mine = self.parameters()
        # The number of rounds is numBoardCards' length: it is written whenever it is not
        # HULHE's, even where the lists match HULHE's first rounds.
        fewer_rounds = self.num_rounds != HoldemRules().num_rounds
        changed = [f"{k}={v}" for k, v in mine.items()
                   if k not in ("betting", "numPlayers", "numRounds")
                   and (v != base[k] or (k == "numBoardCards" and fewer_rounds))]
        return f"holdem({','.join(changed)})"

    def hands(self) -> int:
        """Distinct hole-card hands a player can hold: C(cards, hole cards)."""
        return math.comb(self.num_cards, self.hole_cards)


def _ints(values: object) -> str:
    return " ".join(str(int(v)) for v in values)  # type: ignore[attr-defined]


def _hulhe_parameters(rounds: int) -> dict[str, str]:
    """HULHE's parameters with its lists cut to `rounds` entries."""
    full = HoldemRules().parameters()
    for key in ("firstPlayer", "numBoardCards", "raiseSize", "maxRaises"):
        full[key] = " ".join(full[key].split()[:rounds])
    full["numRounds"] = str(rounds)
    return full


def split_call(text: str) -> tuple[str, dict[str, str]]:
    """``"name(a=1,b=2 3)"`` -> (``"name"``, {``"a"``: ``"1"``, ``"b"``: ``"2 3"``}); a bare
    ``"name"`` has no parameters."""
    match = _CALL.match(text)
    if match is None:
        raise ValueError(f"expected name(parameter=value,...), not {text!r}")
    name, inner = match.group(1), match.group(2)
    parameters: dict[str, str] = {}
    for item in (inner or "").split(","):
        if not item.strip():
            continue
        key, sep, value = item.partition("=")
        key = key.strip()
        if not sep or not key:
            raise ValueError(f"expected parameter=value, not {item.strip()!r} in {text!r}")
        if key in parameters:
            raise ValueError(f"parameter {key} is given twice in {text!r}")
        parameters[key] = " ".join(value.split())
    return name, parameters


def _from_parameters(given: Mapping[str, str], defaults: Mapping[str, str],
                     source: str) -> HoldemRules:
    known = set(_GAME_STRING_ORDER) | set(_IGNORED_AT_DEFAULT)
    unknown = sorted(set(given) - known)
    if unknown:
        raise ValueError(f"unknown parameters {', '.join(unknown)} in {source!r}; known: "
                         f"{', '.join(_GAME_STRING_ORDER)}")
    for key, default in _IGNORED_AT_DEFAULT.items():
        if key in given and given[key] != default:
            raise ValueError(f"{key}={given[key]} is not supported (only {key}={default!r})")
    values = {**defaults, **given}
    if values["betting"] != "limit":
        raise ValueError(f"only betting=limit is a member of the limit hold'em family, not "
                         f"betting={values['betting']}")
    if values["numPlayers"] != "2":
        raise ValueError(f"only numPlayers=2 is supported, not {values['numPlayers']}")

    def number(key: str) -> int:
        try:
            return int(values[key])
        except ValueError:
            raise ValueError(f"{key} must be an integer, not {values[key]!r}") from None

    def numbers(key: str) -> tuple[int, ...]:
        try:
            return tuple(int(v) for v in values[key].split())
        except ValueError:
            raise ValueError(f"{key} must be integers separated by spaces, not "
                             f"{values[key]!r}") from None

    rounds = number("numRounds")
    if not values["maxRaises"]:
        raise ValueError("maxRaises is required: without a cap the raising never ends")
    blinds = numbers("blind")
    if len(blinds) != 2:
        raise ValueError(f"blind needs one amount per player (2), not {values['blind']!r}")
    board = numbers("numBoardCards")
    if len(board) != rounds:
        raise ValueError(f"numRounds={rounds} but numBoardCards has {len(board)} entries")
    return HoldemRules(
        num_ranks=number("numRanks"), num_suits=number("numSuits"),
        hole_cards=number("numHoleCards"), board_cards=board, blinds=(blinds[0], blinds[1]),
        raise_sizes=numbers("raiseSize"), max_raises=numbers("maxRaises"),
        first_player=tuple(p - 1 for p in numbers("firstPlayer")))


def from_game_string(text: str) -> HoldemRules:
    """The member OpenSpiel's ``universal_poker(...)`` string describes (OpenSpiel's defaults
    for what it leaves out)."""
    name, given = split_call(text)
    if name != "universal_poker":
        raise ValueError(f"expected universal_poker(...), not {text!r}")
    return _from_parameters(given, _OPENSPIEL_DEFAULTS, text)


def from_spec(text: str) -> HoldemRules:
    """The member our ``holdem(...)`` spec names (HULHE's parameters for what it leaves out)."""
    name, given = split_call(text)
    if name != "holdem":
        raise ValueError(f"expected holdem(...), not {text!r}")
    if "numRounds" in given:
        rounds = int(given["numRounds"])
    elif "numBoardCards" in given:
        rounds = len(given["numBoardCards"].split())
    else:
        rounds = MAX_ROUNDS
    if not 1 <= rounds <= MAX_ROUNDS:
        raise ValueError(f"numRounds must be 1..{MAX_ROUNDS}, not {rounds}")
    return _from_parameters(given, _hulhe_parameters(rounds), text)


def parse(text: str) -> HoldemRules:
    """Either name: ``holdem(...)`` or ``universal_poker(...)``."""
    head = text.strip().split("(", 1)[0].strip()
    return from_game_string(text) if head == "universal_poker" else from_spec(text)


HULHE = HoldemRules()
"""Heads-up limit Texas hold'em."""
HOLDEM_MINI = HoldemRules(num_ranks=4, num_suits=2, board_cards=(0, 1), raise_sizes=(2, 4),
                          max_raises=(3, 3), first_player=(1, 0))
"""Eight cards (deuces to fives in two suits), two hole cards each, one board card: small
enough to solve exactly in seconds."""

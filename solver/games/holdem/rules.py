"""The rules of one member of the hold'em family, and the two ways of naming it.

A member is fixed by the parameters of an ACPC game definition, as OpenSpiel's
``universal_poker`` takes them for two players: the deck (``numRanks`` lowest ranks in
``numSuits`` suits), ``numHoleCards``, the board cards dealt before each betting round
(``numBoardCards``), the ``blind`` each seat posts, who acts first in each round
(``firstPlayer``, 1-based as in ACPC), and the ``betting``:

* ``limit``: per round a fixed bet size (``raiseSize``) and a cap on bets and raises
  (``maxRaises``); stacks are unlimited (ACPC ignores them in limit games), so only the cap ends a
  raising war;
* ``nolimit``: each seat starts every hand with its ``stack`` (in chips, blinds included) and
  may raise to any amount from the minimum raise to all-in; ``maxRaises`` may cap the raises
  per round.  A member may also carry a bet abstraction (``bettingAbstraction``,
  `solver.games.holdem.bet_sizes`): the raise sizes its solver keeps; ``fullgame`` keeps all.

Names:

* OpenSpiel's game string, ``universal_poker(betting=limit,numPlayers=2,numRounds=2,...)``
  (`HoldemRules.game_string`, `from_game_string`), which ``pyspiel.load_game`` takes;
* our spec, ``holdem(numRanks=6,numSuits=2,numBoardCards=0 1 1)`` (`HoldemRules.spec`,
  `from_spec`): the same parameter names, each defaulting to heads-up limit Texas hold'em's
  (with ``betting=nolimit``, to heads-up no-limit's: blinds 100 and 50, stacks of 20,000, every
  bet size).  A list left out takes hold'em's first ``numRounds`` entries, so that a short spec
  names a consistent game (three rounds bet 2, 2, 4 with caps 3, 4, 4, the small blind first
  preflop).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace

from solver.cards.deck import MAX_RANKS, MAX_SUITS, Deck
from solver.games.holdem.bet_sizes import FULL_GAME, NAMED, BetSizes
from solver.games.holdem.bet_sizes import parse as parse_bet_sizes

MAX_ROUNDS = 4
"""ACPC's limit on betting rounds (and so OpenSpiel's)."""
MAX_HAND_CARDS = 7
"""Hole and board cards together: the most the hand evaluator values."""
UNLIMITED_STACK = 2**31 - 1
"""What ACPC gives each player in a limit game; OpenSpiel prints what is left of it."""

_GAME_STRING_ORDER = ("betting", "numPlayers", "numRounds", "stack", "blind", "firstPlayer",
                      "numSuits", "numRanks", "numHoleCards", "numBoardCards", "raiseSize",
                      "maxRaises", "bettingAbstraction")
_OPENSPIEL_DEFAULTS = {
    # What universal_poker assumes for a parameter left out of its game string.
    "betting": "nolimit", "numPlayers": "2", "numRounds": "2", "blind": "100 100",
    "firstPlayer": "1 1", "numSuits": "4", "numRanks": "6", "numHoleCards": "1",
    "numBoardCards": "0 1", "raiseSize": "100 100", "maxRaises": "", "stack": "1200 1200",
    "bettingAbstraction": "fcpa",
}
_IGNORED_AT_DEFAULT = {"potSize": "0", "boardCards": "", "handReaches": ""}
"""universal_poker parameters we accept only at their default: the whole game from its
start."""
_OPENSPIEL_ABSTRACTIONS = (FULL_GAME, *NAMED)
"""The bet abstractions universal_poker plays as we do."""
UNCAPPED = 255
"""ACPC's cap on raises per round when a no-limit game names none."""
_CALL = re.compile(r"^\s*([A-Za-z_][\w-]*)\s*(?:\((.*)\))?\s*$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class HoldemRules:
    """One member of the family; the defaults are heads-up limit Texas hold'em (HULHE).

    Seats are 0 and 1 (OpenSpiel's players); `first_player` is 0-based here and 1-based in the
    game strings, as ACPC writes it.  A no-limit member has `stacks` and no `raise_sizes`; its
    `max_raises` is empty unless it caps the raises; `bets` is its bet abstraction (None: every
    size)."""

    num_ranks: int = 13
    num_suits: int = 4
    hole_cards: int = 2
    board_cards: tuple[int, ...] = (0, 3, 1, 1)
    blinds: tuple[int, int] = (2, 1)
    raise_sizes: tuple[int, ...] = (2, 2, 4, 4)
    max_raises: tuple[int, ...] = (3, 4, 4, 4)
    first_player: tuple[int, ...] = (1, 0, 0, 0)
    betting: str = "limit"
    stacks: tuple[int, int] | None = None
    bets: BetSizes | None = None

    def __post_init__(self) -> None:
        deck = Deck(self.num_ranks, self.num_suits) if (
            1 <= self.num_ranks <= MAX_RANKS and 1 <= self.num_suits <= MAX_SUITS) else None
        if deck is None:
            raise ValueError(f"numRanks must be 1..{MAX_RANKS} and numSuits 1..{MAX_SUITS}, not "
                             f"{self.num_ranks} and {self.num_suits}")
        rounds = len(self.board_cards)
        if not 1 <= rounds <= MAX_ROUNDS:
            raise ValueError(f"numRounds must be 1..{MAX_ROUNDS}, not {rounds}")
        per_round = [("firstPlayer", self.first_player)]
        if self.betting == "limit":
            per_round += [("raiseSize", self.raise_sizes), ("maxRaises", self.max_raises)]
        elif self.betting == "nolimit":
            if self.max_raises:
                per_round.append(("maxRaises", self.max_raises))
        else:
            raise ValueError(f"betting must be limit or nolimit, not {self.betting}")
        for name, values in per_round:
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
        if self.max_raises and min(self.max_raises) < 0:
            raise ValueError(f"maxRaises must be at least 0: {self.max_raises}")
        if not set(self.first_player) <= {0, 1}:
            raise ValueError(f"firstPlayer must be 1 or 2 in every round, not "
                             f"{tuple(p + 1 for p in self.first_player)}")
        if self.betting == "limit":
            if min(self.raise_sizes) <= 0:
                raise ValueError(f"raiseSize must be positive: {self.raise_sizes}")
            if self.stacks is not None or self.bets is not None:
                raise ValueError("a limit game has no stacks and no bet abstraction")
            return
        if self.raise_sizes:
            raise ValueError("a no-limit game has no raiseSize: a raise may be any size")
        if self.stacks is None or len(self.stacks) != 2:
            raise ValueError(f"stack needs one amount per player (2), not {self.stacks}")
        if min(self.stacks[p] - self.blinds[p] for p in (0, 1)) <= 0 or max(self.blinds) <= 0:
            raise ValueError(f"each stack must be more than its blind and a blind positive: "
                             f"stack {_ints(self.stacks)}, blind {_ints(self.blinds)}")

    @property
    def num_rounds(self) -> int:
        return len(self.board_cards)

    @property
    def no_limit(self) -> bool:
        return self.betting == "nolimit"

    @property
    def push_or_fold(self) -> bool:
        """Whether the bet abstraction is push or fold (the small blind all-in or out)."""
        return self.bets is not None and not self.bets.open_limp

    @property
    def heads_up_no_limit_texas(self) -> bool:
        """Heads-up no-limit Texas hold'em at any stacks and bet abstraction: the game PHH's
        ``NT`` variant writes and push or fold restricts."""
        return self.no_limit and replace(self, stacks=HUNL.stacks, bets=None) == HUNL

    @property
    def deck(self) -> Deck:
        return Deck(self.num_ranks, self.num_suits)

    @property
    def num_cards(self) -> int:
        return self.num_ranks * self.num_suits

    @property
    def big_blind(self) -> int:
        return max(self.blinds)

    def raise_cap(self, round_: int) -> int:
        """The most bets and raises round `round_` allows."""
        return self.max_raises[round_] if self.max_raises else UNCAPPED

    def board_dealt(self, round_: int) -> int:
        """Board cards on the table once round `round_` (0-based) is dealt."""
        return sum(self.board_cards[: round_ + 1])

    def with_bets(self, bets: BetSizes | None) -> HoldemRules:
        """The same game with the bet abstraction `bets` (None: the real game, every size)."""
        return replace(self, bets=bets)

    def parameters(self) -> dict[str, str]:
        """The universal_poker parameters, in the order of `game_string` (a no-limit member's
        bet abstraction as ``bettingAbstraction``, which universal_poker takes only for
        ``fullgame``, ``fcpa`` and ``fc``)."""
        values = {
            "betting": self.betting,
            "numPlayers": "2",
            "numRounds": str(self.num_rounds),
            "blind": _ints(self.blinds),
            "firstPlayer": _ints(p + 1 for p in self.first_player),
            "numSuits": str(self.num_suits),
            "numRanks": str(self.num_ranks),
            "numHoleCards": str(self.hole_cards),
            "numBoardCards": _ints(self.board_cards),
        }
        if self.no_limit:
            values["stack"] = _ints(self.stacks or ())
            values["bettingAbstraction"] = self.bets.text if self.bets else FULL_GAME
        else:
            values["raiseSize"] = _ints(self.raise_sizes)
        if self.max_raises:
            values["maxRaises"] = _ints(self.max_raises)
        return {k: values[k] for k in _GAME_STRING_ORDER if k in values}

    @property
    def game_string(self) -> str:
        """What ``pyspiel.load_game`` takes for this game.

        (OpenSpiel reads a list of one number as an integer and refuses it, so a one-round
        member has a string here but no game there, nor has a bet abstraction universal_poker
        does not know: see `openspiel_loadable`.)"""
        inner = ",".join(f"{k}={v}" for k, v in self.parameters().items())
        return f"universal_poker({inner})"

    @property
    def openspiel_loadable(self) -> bool:
        known = self.bets is None or self.bets.text in _OPENSPIEL_ABSTRACTIONS
        return self.num_rounds >= 2 and known

    @property
    def spec(self) -> str:
        """Our short name: ``holdem(...)`` with the parameters that differ from HULHE's (see
        the module docstring); ``holdem()`` is HULHE itself."""
        base = _base_parameters(self.num_rounds, self.betting)
        mine = self.parameters()
        # The number of rounds is numBoardCards' length: it is written whenever it is not
        # HULHE's, even where the lists match HULHE's first rounds.
        fewer_rounds = self.num_rounds != HoldemRules().num_rounds
        changed = [f"{k}={v}" for k, v in mine.items()
                   if k not in ("numPlayers", "numRounds")
                   and ((k == "betting" and self.no_limit)
                        or (k != "betting" and v != base.get(k))
                        or (k == "numBoardCards" and fewer_rounds))]
        return f"holdem({','.join(changed)})"

    def hands(self) -> int:
        """Distinct hole-card hands a player can hold: C(cards, hole cards)."""
        return math.comb(self.num_cards, self.hole_cards)

def _ints(values: object) -> str:
    return " ".join(str(int(v)) for v in values)  # type: ignore[attr-defined]


def _base_parameters(rounds: int, betting: str) -> dict[str, str]:
    """What a spec leaves out: HULHE's parameters (HUNL's for ``betting=nolimit``) with their
    lists cut to `rounds` entries."""
    full = (HUNL if betting == "nolimit" else HoldemRules()).parameters()
    for key in ("firstPlayer", "numBoardCards", "raiseSize", "maxRaises"):
        if key in full:
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
    betting = values["betting"]
    if betting not in ("limit", "nolimit"):
        raise ValueError(f"betting must be limit or nolimit, not betting={betting}")
    if values["numPlayers"] != "2":
        raise ValueError(f"only numPlayers=2 is supported, not {values['numPlayers']}")

    def number(key: str) -> int:
        try:
            return int(values[key])
        except ValueError:
            raise ValueError(f"{key} must be an integer, not {values[key]!r}") from None

    def numbers(key: str) -> tuple[int, ...]:
        try:
            return tuple(int(v) for v in values.get(key, "").split())
        except ValueError:
            raise ValueError(f"{key} must be integers separated by spaces, not "
                             f"{values.get(key)!r}") from None

    rounds = number("numRounds")
    blinds = numbers("blind")
    if len(blinds) != 2:
        raise ValueError(f"blind needs one amount per player (2), not {values['blind']!r}")
    board = numbers("numBoardCards")
    if len(board) != rounds:
        raise ValueError(f"numRounds={rounds} but numBoardCards has {len(board)} entries")
    deal = (number("numRanks"), number("numSuits"), number("numHoleCards"), board)
    blind = (blinds[0], blinds[1])
    first = tuple(p - 1 for p in numbers("firstPlayer"))
    if betting == "limit":
        if not values["maxRaises"]:
            raise ValueError("maxRaises is required: without a cap the raising never ends")
        if values.get("bettingAbstraction", "fcpa") != "fcpa":
            raise ValueError("a limit game has no bet abstraction (only bettingAbstraction=fcpa,"
                             " fold, call and raise)")
        return HoldemRules(*deal, blind, numbers("raiseSize"), numbers("maxRaises"), first)
    if "raiseSize" in given and defaults is not _OPENSPIEL_DEFAULTS:
        raise ValueError("a no-limit game has no raiseSize: a raise may be any size")
    stacks = numbers("stack")
    if len(stacks) != 2:
        raise ValueError(f"stack needs one amount per player (2), not {values['stack']!r}")
    return HoldemRules(*deal, blind, (), numbers("maxRaises"), first, "nolimit",
                       (stacks[0], stacks[1]), parse_bet_sizes(values["bettingAbstraction"]))


def from_game_string(text: str) -> HoldemRules:
    """The member OpenSpiel's ``universal_poker(...)`` string describes (OpenSpiel's defaults
    for what it leaves out)."""
    name, given = split_call(text)
    if name != "universal_poker":
        raise ValueError(f"expected universal_poker(...), not {text!r}")
    return _from_parameters(given, _OPENSPIEL_DEFAULTS, text)


def from_spec(text: str) -> HoldemRules:
    """The member our ``holdem(...)`` spec names (HULHE's parameters, or HUNL's, for what it
    leaves out)."""
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
    return _from_parameters(given, _base_parameters(rounds, given.get("betting", "limit")),
                            text)


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
HUNL = HoldemRules(blinds=(100, 50), raise_sizes=(), max_raises=(), betting="nolimit",
                   stacks=(20_000, 20_000))
"""Heads-up no-limit Texas hold'em as the ACPC played it: blinds 50 and 100, stacks of 200 big
blinds reset every hand, every bet size."""
NO_LIMIT_LEDUC = HoldemRules(num_ranks=3, num_suits=2, hole_cards=1, board_cards=(0, 1),
                             blinds=(1, 1), first_player=(0, 0), raise_sizes=(),
                             max_raises=(), betting="nolimit", stacks=(12, 12))
"""Leduc's deck and rounds with no-limit betting: an ante of 1 each, 12 chips a stack, every
size (DeepStack-Leduc's game counted in antes: ante 100, stacks 1,200); small enough to solve
exactly with every size (9,720 betting sequences)."""

"""The one interface every game implements and every algorithm, the CLI and the app use.

It follows OpenSpiel's Python side: a `Game` describes the rules and hands out an initial
`State`; a `State` is immutable (``apply_action`` returns a new one), so the app can keep any
position around and the solver can share prefixes of the tree without copying.

Beyond OpenSpiel's interface every state also splits what a player knows into a *public* part
(the same for everybody: the action history, a board card) and a *private* part (the player's own
card or die).  The fast solver engine groups histories by their public key and vectorises over the
private keys, which is what makes it fast; the invariant it relies on is

    information_state_key(p) is a function of (public_key(), private_key(p)) and vice versa.

A game also says how a player sees it (`public_view`, `private_pieces`, `action_groups`,
`outcome_text`, and on the `Game` the kind of pieces, a legend and notes), so that the app can
draw any game without knowing which one it is: the app names no game.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal, Protocol, runtime_checkable

CHANCE = -1
"""`current_player()` of a chance node."""
TERMINAL = -2
"""`current_player()` of a finished game."""


# ---- how a player sees a game ------------------------------------------------------------------


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
    """Why the round ended as it did, naming the seats as given (like `State.outcome_text`):
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
    win_chances: tuple[float, float] | None = None
    """Each seat's probability of winning the whole game from the start of this round under
    the solved strategies, where the game knows it (a Dudo match, from its solve's table)."""


@dataclass(frozen=True, slots=True)
class ActionGroup:
    """Choices drawn together, in order: a grid of `columns` buttons (0: one row). Labels
    not legal in the position are drawn disabled, so that the grid keeps its shape."""

    title: str
    labels: tuple[str, ...]
    columns: int = 0


@runtime_checkable
class State(Protocol):
    """A position in a game. Immutable: `apply_action` returns a new state."""

    @property
    def history(self) -> tuple[int, ...]:
        """Every action so far, chance outcomes included, in order."""
        ...

    def current_player(self) -> int:
        """0 or 1 for the player to move, `CHANCE` or `TERMINAL`."""
        ...

    def is_terminal(self) -> bool: ...

    def is_chance(self) -> bool: ...

    def legal_actions(self) -> tuple[int, ...]:
        """Legal action ids in increasing order (chance outcomes at a chance node)."""
        ...

    def action_label(self, action: int) -> str:
        """The game's own word for `action` here (``"check"``, ``"bet"``, ``"1x2"``, ...)."""
        ...

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        """``(outcome, probability)`` pairs at a chance node; empty elsewhere."""
        ...

    def apply_action(self, action: int) -> State:
        """The state after `action`; raises `ValueError` naming the legal actions if illegal."""
        ...

    def returns(self) -> tuple[float, float]:
        """Payoffs of players 0 and 1 at a terminal state (zero-sum)."""
        ...

    def information_state_key(self, player: int | None = None) -> str:
        """Stable string naming what `player` (default: the player to move) knows."""
        ...

    def public_key(self) -> str:
        """Stable string naming what both players know."""
        ...

    def private_key(self, player: int) -> str:
        """Stable string naming what only `player` knows (its card or die)."""
        ...

    def private_view(self, player: int) -> str:
        """Human-readable private information of `player` (``"K♠"``, ``"die 3"``)."""
        ...

    def private_pieces(self, player: int) -> tuple[Piece, ...]:
        """`player`'s private cards, dice or move, as drawn; empty before they are dealt."""
        ...

    def public_view(self) -> PublicView: ...

    def action_groups(self) -> tuple[ActionGroup, ...]:
        """How to lay out the choices of the player to move."""
        ...

    def outcome_text(self, names: tuple[str, str]) -> str:
        """At a terminal state, why it ended as it did, naming the seats `names` (``("you",
        "the bot")``): ``"dudo on 2x5: one 5 and a wild 1 make 2, the bid stands"``."""
        ...


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A hand to write into a hand history: its number in the match, where it ended, and
    what to call the player in each seat."""

    number: int
    state: State
    players: tuple[str, ...]


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


class OpenSpielMapping(Protocol):
    """How our states and actions are named in the OpenSpiel game that equals ours."""

    game_string: str
    """What ``pyspiel.load_game`` takes (``"kuhn_poker"``, ``"universal_poker(...)"``)."""

    def information_state_string(self, state: State, player: int) -> str:
        """What OpenSpiel's ``information_state_string(player)`` returns at `state`."""
        ...

    def action_id(self, state: State, action: int) -> int:
        """OpenSpiel's id of our `action` at `state` (chance outcomes included)."""
        ...


class Game(Protocol):
    """A two-player zero-sum game with perfect recall, and how to show it to a player."""

    name: str
    """Short identifier used by the CLI, the store and the URLs (``"leduc"``)."""
    title: str
    """Human-readable name (``"Leduc hold'em"``)."""
    rules: str
    """The rules in two lines, for the lobby."""
    reference_value: float | None
    """Published value for player 0 (seat 0), for display and tests; None if unknown."""
    pieces: PieceKind
    """What a player's private information is drawn as."""
    simultaneous: bool
    """True if the players choose at once (the sequential tree hides the first move)."""
    seats: tuple[Seat, Seat]
    """How players of the game name seat 0 and seat 1 and when each acts (`IN_TURN` unless
    the game has names of its own: hold'em's blinds)."""
    notes: tuple[str, ...]
    """What a newcomer needs at the table beyond the two lines of rules."""
    history_legend: str
    """How the public part of an information-set key is written."""
    history_example: str
    """A public history to show as an example (``"rc|Qh"``)."""
    openspiel: OpenSpielMapping | None
    """The same game in OpenSpiel, if it has one: exported strategies are judged there."""
    listed: bool
    """Shown in the lobby even before it is solved (a variant that is not is shown once its
    solve is in the store)."""

    @property
    def build_command(self) -> tuple[str, ...]:
        """The ``python -m solver`` arguments that build its strategy into the store."""
        ...

    def initial_state(self) -> State: ...

    def num_distinct_actions(self) -> int:
        """Player action ids are ``0 .. num_distinct_actions() - 1``."""
        ...

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        """`label` drawn as text and pieces (``"Qh"`` as a card, ``"2x5"`` as 2 × a die)."""
        ...

    def describe_history(self, public: str) -> str:
        """A sentence for the public part of an information-set key."""
        ...

    @property
    def hand_history_format(self) -> str | None:
        """The standard hand-history format its hands export to (``"phh"``), if any."""
        ...

    result_unit: ResultUnit | None
    """The unit results are also quoted in (mbb/hand for poker), if any beside chips."""
    hand_classes: HandClasses | None
    """How the range view groups private states into a grid (two-card poker hands)."""

    def hand_histories(self, hands: Sequence[PlayedHand]) -> str:
        """Finished hands in `hand_history_format`, as one file."""
        ...

    style_stats: tuple[StyleStat, ...]
    """The style figures its players know (none for a game without any)."""

    def style_counts(self, state: State, seat: int) -> StyleCounts:
        """Each of `style_stats`' (count, opportunities) for the player in `seat` in the hand
        that reached `state` (finished, or left unfinished)."""
        ...

    def forfeit_payoff(self, state: State, seat: int) -> float:
        """What the player in `seat`, to move at `state`, gets for giving the hand up: a fold
        where the game has one (whether or not folding is legal just here), its worst result
        otherwise."""
        ...


def action_from_label(state: State, label: str) -> int:
    """The action of `state` labelled `label`; `ValueError` naming the legal labels otherwise."""
    for action in state.legal_actions():
        if state.action_label(action) == label:
            return action
    legal = ", ".join(legal_labels(state))
    raise ValueError(f"illegal action {label!r}; legal actions: {legal}")


def private_then_public_key(state: State, player: int | None = None) -> str:
    """The usual `State.information_state_key`: what `player` (default: the player to move)
    alone knows, then what both know, joined by ``|`` (``"Q|pb"``, ``"16|1x2,2x5"``)."""
    p = state.current_player() if player is None else player
    if p not in (0, 1):
        raise ValueError("information_state_key needs a player at chance or terminal states")
    return f"{state.private_key(p)}|{state.public_key()}"


def betting_words(letters: str, facing: bool = False, opened: bool = False) -> str:
    """A round of limit betting written ``c``/``r``/``f`` (check or call, bet or raise, fold)
    in words: ``"rc"`` -> ``"bet, call"``. `facing`: the first to act faces a bet (a blind);
    `opened`: a bet is already in (so the first ``r`` raises)."""
    words = []
    for letter in letters:
        if letter == "f":
            words.append("fold")
        elif letter == "c":
            words.append("call" if facing else "check")
            facing = False
        else:
            words.append("raise" if facing or opened else "bet")
            facing = opened = True
    return ", ".join(words) or "nothing yet"


SUIT_SYMBOLS = {"c": "♣", "d": "♦", "h": "♥", "s": "♠"}


def cards_text(cards: str) -> str:
    """Cards written two characters each (``Ks7d``) with suit symbols: ``K♠ 7♦``."""
    return " ".join(cards[i] + SUIT_SYMBOLS.get(cards[i + 1], cards[i + 1])
                    for i in range(0, len(cards) - 1, 2))


def legal_labels(state: State) -> list[str]:
    return [state.action_label(a) for a in state.legal_actions()]


def play(game: Game, actions: Sequence[int]) -> State:
    """The state reached from the start by `actions` (chance outcomes included)."""
    state = game.initial_state()
    for action in actions:
        state = state.apply_action(action)
    return state


class GameDefaults:
    """What most games share: no notes, a single row of the legal actions, labels drawn as
    text, and histories described by themselves. A game overrides what it needs."""

    simultaneous: bool = False
    seats: tuple[Seat, Seat] = IN_TURN
    openspiel: OpenSpielMapping | None = None
    listed: bool = True

    @property
    def build_command(self) -> tuple[str, ...]:
        return ("solve", getattr(self, "name", ""))
    notes: tuple[str, ...] = ()
    result_unit: ResultUnit | None = None
    hand_classes: HandClasses | None = None
    history_legend: str = ""
    history_example: str = ""

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        return (label,)

    def describe_history(self, public: str) -> str:
        return f"History: {public}" if public else "Opening move: nothing has happened yet"

    @property
    def hand_history_format(self) -> str | None:
        return None

    def hand_histories(self, hands: Sequence[PlayedHand]) -> str:
        raise ValueError(f"{getattr(self, 'name', 'this game')} has no hand-history format")

    style_stats: tuple[StyleStat, ...] = ()

    def style_counts(self, state: State, seat: int) -> StyleCounts:
        return {}

    def forfeit_payoff(self, state: State, seat: int) -> float:
        """A game with a pot: a fold, which gives up what the seat has put in. Otherwise the
        worst result reachable from `state`, found by walking what follows it (for small
        games; a game whose tree is big says its worst result itself)."""
        contributions = state.public_view().contributions
        if contributions is not None:
            return -float(contributions[seat])
        return worst_result(state, seat)


WORST_RESULT_NODES = 100_000
"""Most positions `worst_result` visits before it gives up."""


def worst_result(state: State, seat: int) -> float:
    """The least `seat` can end with from `state`, whatever anybody (chance too) does."""
    stack = [state]
    worst = float("inf")
    visited = 0
    while stack:
        node = stack.pop()
        visited += 1
        if visited > WORST_RESULT_NODES:
            raise ValueError(f"more than {WORST_RESULT_NODES:,} positions follow this one: "
                             "the game must say its worst result itself")
        if node.is_terminal():
            worst = min(worst, node.returns()[seat])
        else:
            stack.extend(node.apply_action(a) for a in node.legal_actions())
    return worst


def legal_action_group(state: State) -> tuple[ActionGroup, ...]:
    """The default layout: the legal actions in one row."""
    return (ActionGroup("Your move", tuple(legal_labels(state))),)

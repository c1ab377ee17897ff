"""How a game is shown to a player: the interface a game's view implements and the app draws.

A game's rules (`solver.games.base.Game` and its `State`) are what the solver, the bot and
the play need, in OpenSpiel's shape; everything a page needs to draw and word a game (its
rules in two lines, its pieces, what a position shows, why a hand ended, its hand histories)
is its `GameView`, beside it, that only the app uses.  Every registered game has one
(`solver.games.get_view`), so the app draws any game without knowing which one it is.

The plain values a view hands out (cards, dice, a public view, a seat's words) are
`solver.games.view_values`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from solver.games.base import Game, State
from solver.games.view_values import (
    IN_TURN,
    ActionGroup,
    AmountChoice,
    HandClasses,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    ResultUnit,
    Seat,
)


@dataclass(frozen=True, slots=True)
class PlayedHand:
    """A hand to write into a hand history: its number in the match, where it ended, and
    what to call the player in each seat."""

    number: int
    state: State
    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class ClassCell:
    """One cell of the grid: its place, its label and a position for each hand of it."""

    row: int
    column: int
    label: str
    states: tuple[State, ...]


SPOT_BOARD_PATTERN = r"^[ ,]*(?:[2-9TJQKAtjqka][cdhs][ ,]*)*$"
"""How a spot's board is written for `GameView.class_spots`: cards as rank then suit (``As Kd
7c``), apart (spaces or commas) or together; empty before the flop. Which cards and how many
depend on the game and the line."""
SPOT_LINE_PATTERN = r"^[cfrCFR |/,-]*$"
"""How a spot's betting line is written: c check or call, r bet or raise, f fold, the rounds
optionally split by ``|`` (or ``/``, ``,``, ``-``, a space). Which lines are legal depends on
the game's betting rules."""


@dataclass(frozen=True, slots=True)
class ClassSpots:
    """A spot of the betting named by a board and a line, and the grid's cells there: what the
    explorer draws for a game whose solve has no public tree (`GameView.class_spots`)."""

    public: str
    """The public history (as the game's keys write it), for `describe_history`."""
    player: int
    """The seat to act."""
    line: str
    """The betting line, normalised to letters."""
    board: str
    """The board, as cards written together."""
    moves: tuple[tuple[str, str], ...]
    """(letter, label) of each legal action of the player to act: the next steps of the line."""
    round: int
    """The betting round (0 is the first)."""
    back: tuple[str, str] | None
    """(board, line) of the spot one action earlier (with the board cards it had not reached
    left out), or None at the start."""
    cells: tuple[ClassCell, ...]


class GameView(Protocol):
    """How a player sees one game: its words, its pieces and its positions."""

    rules: str
    """The rules in two lines, for the lobby."""
    pieces: PieceKind
    """What a player's private information is drawn as."""
    seats: tuple[Seat, Seat]
    """How players of the game name seat 0 and seat 1 and when each acts (`IN_TURN` unless
    the game has names of its own: hold'em's blinds)."""
    notes: tuple[str, ...]
    """What a newcomer needs at the table beyond the two lines of rules."""
    history_legend: str
    """How the public part of an information-set key is written."""
    history_example: str
    """A public history to show as an example (``"rc|Qh"``)."""
    result_unit: ResultUnit | None
    """The unit results are also quoted in (mbb/hand for poker), if any beside chips."""
    wins_and_losses: bool
    """Every hand is won (+1) or lost (-1), so results read as a chance of winning."""
    hand_classes: HandClasses | None
    """How the range view groups private states into a grid (two-card poker hands)."""
    spot_legend: str
    """How a board and a betting line are written, for the form that asks for them."""
    required_figures: tuple[str, ...]
    """The figures (`strategies.figures`) its solve must carry beside the strategy for the
    app to show it: without them the stored solve is incomplete, and the app says so instead
    of playing it."""
    chart_spots: tuple[tuple[str, str, str], ...]
    """The spots whose grids of hand classes players know as charts (push or fold: who goes
    all-in, who calls), each as its title, board and betting line (`class_spots`): the lobby
    shows them."""

    @property
    def hand_history_format(self) -> str | None:
        """The standard hand-history format its hands export to (``"phh"``), if any."""
        ...

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        """`label` drawn as text and pieces (``"Qh"`` as a card, ``"2x5"`` as 2 × a die)."""
        ...

    def describe_history(self, public: str) -> str:
        """A sentence for the public part of an information-set key."""
        ...

    def class_spots(self, board: str, line: str) -> ClassSpots:
        """The grid's positions at the spot a board and a betting line reach (for a solve with
        no public tree to walk); `ValueError` naming what is legal, or if the game has none."""
        ...

    def hand_histories(self, hands: Sequence[PlayedHand]) -> str:
        """Finished hands in `hand_history_format`, as one file."""
        ...

    def win_chances(self, state: State, figures: Mapping[str, Any]
                    ) -> tuple[float, float] | None:
        """Each seat's chance of winning the whole game from the start of the round being
        played, under the solve whose figures are `figures`, where the game knows it (a game
        played in rounds); None otherwise."""
        ...

    def private_view(self, state: State, player: int) -> str:
        """Human-readable private information of `player` (``"K♠"``, ``"die 3"``)."""
        ...

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        """`player`'s private cards, dice or move, as drawn; empty before they are dealt."""
        ...

    def public_view(self, state: State) -> PublicView:
        """What both players see of `state`."""
        ...

    def action_groups(self, state: State) -> tuple[ActionGroup, ...]:
        """How to lay out the choices of the player to move."""
        ...

    def amount_choice(self, state: State) -> AmountChoice | None:
        """The move of the player to move whose size they choose (a no-limit raise), if the
        position has one; its amounts are among the legal actions, one label each, and the
        action groups then hold the other moves."""
        ...

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        """At a terminal state, why it ended as it did, naming the seats `names` (``("you",
        "the bot")``): ``"dudo on 2x5: one 5 and a wild 1 make 2, the bid stands"``."""
        ...


LISTED_AMOUNTS = 100
"""The most sizes a list of legal moves names one by one: beyond (a no-limit raise at deep
stacks, thousands of amounts), the amount choice's range stands for them."""


def offered_labels(view: GameView, state: State) -> list[str]:
    """The labels of the legal moves at `state` as a list gives them to a player: every one,
    except where a size is chosen among more than `LISTED_AMOUNTS` amounts; there the other
    moves (the view's action groups) and the named amounts (the smallest, half the pot, the
    pot, all-in), every amount of the range being legal too."""
    long = _too_long(view, state)
    if long is None:
        return [state.action_label(a) for a in state.legal_actions()]
    others, choice = long
    return others + [choice.label(amount) for _, amount in choice.quick]


def legal_words(view: GameView, state: State) -> str:
    """The legal moves in a sentence, for a message that refuses a move: the labels, with the
    range of sizes where the list names only some (``fold, call, raise to any amount from 200
    to 20000``)."""
    long = _too_long(view, state)
    if long is None:
        return ", ".join(state.action_label(a) for a in state.legal_actions())
    others, choice = long
    return ", ".join([*others, choice.range_words])


def _too_long(view: GameView, state: State) -> tuple[list[str], AmountChoice] | None:
    """Where a size is chosen among more than `LISTED_AMOUNTS` amounts, the other moves' labels
    and the choice; None where every legal move can be listed."""
    choice = view.amount_choice(state)
    if choice is None or choice.high - choice.low < LISTED_AMOUNTS:
        return None
    return [label for group in view.action_groups(state) for label in group.labels], choice


def legal_action_group(state: State) -> tuple[ActionGroup, ...]:
    """The default layout: the legal actions in one row."""
    return (ActionGroup("Your move", tuple(state.action_label(a) for a in state.legal_actions())),)


class ViewDefaults:
    """What most views share: no notes, seats known by their turn, a single row of the legal
    actions, labels drawn as text, histories described by themselves, a position that shows
    nothing public and private keys shown as they are. A view overrides what it needs."""

    def __init__(self, game: Game) -> None:
        self.game = game

    seats: tuple[Seat, Seat] = IN_TURN
    notes: tuple[str, ...] = ()
    result_unit: ResultUnit | None = None
    wins_and_losses: bool = False
    hand_classes: HandClasses | None = None
    spot_legend: str = ""
    history_legend: str = ""
    history_example: str = ""
    required_figures: tuple[str, ...] = ()
    chart_spots: tuple[tuple[str, str, str], ...] = ()

    @property
    def hand_history_format(self) -> str | None:
        return None

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        return (label,)

    def describe_history(self, public: str) -> str:
        return f"History: {public}" if public else "Opening move: nothing has happened yet"

    def class_spots(self, board: str, line: str) -> ClassSpots:
        raise ValueError("this game has no grid of hand classes to explore by board and line")

    def hand_histories(self, hands: Sequence[PlayedHand]) -> str:
        raise ValueError(f"{self.game.name} has no hand-history format")

    def win_chances(self, state: State, figures: Mapping[str, Any]
                    ) -> tuple[float, float] | None:
        return None

    def private_view(self, state: State, player: int) -> str:
        return state.private_key(player)

    def public_view(self, state: State) -> PublicView:
        return PublicView()

    def action_groups(self, state: State) -> tuple[ActionGroup, ...]:
        return legal_action_group(state)

    def amount_choice(self, state: State) -> AmountChoice | None:
        return None

"""The one interface every game implements and every algorithm, the CLI and the app use.

It follows OpenSpiel's Python side: a `Game` describes the rules and hands out an initial
`State`; a `State` is immutable (``apply_action`` returns a new one), so the app can keep any
position around and the solver can share prefixes of the tree without copying.

Beyond OpenSpiel's interface every state also splits what a player knows into a *public* part
(the same for everybody: the action history, a board card) and a *private* part (the player's own
card or die).  The fast solver engine groups histories by their public key and vectorises over the
private keys, which is what makes it fast; the invariant it relies on is

    information_state_key(p) is a function of (public_key(), private_key(p)) and vice versa.

How a player sees a game (its pieces, what a position shows, why a hand ended, its words) is
not here but in its `solver.games.game_view.GameView`, beside it, which only the app uses.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from solver.games.view_values import StyleCounts, StyleStat

CHANCE = -1
"""`current_player()` of a chance node."""
TERMINAL = -2
"""`current_player()` of a finished game."""


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


@runtime_checkable
class PotState(Protocol):
    """A state of a game with a pot (the poker games): what each seat has put in and the
    betting round, which a forfeit and a player's style are counted by."""

    def contributions(self) -> tuple[int, int]:
        """Chips put in by seat 0 and seat 1, antes and blinds included."""
        ...

    def betting_round(self) -> tuple[int, int]:
        """The round being bet (1 is the first) and how many rounds the game has."""
        ...


@dataclass(frozen=True, slots=True)
class BuildPlan:
    """How a game's strategy is built into the store: what the generic code (the CLI's
    ``build``, ``solve --algorithm auto``, the app's background build) reads instead of naming
    games.

    `command` is the ``python -m solver`` arguments that build it (``("solve", "leduc")``, or a
    command of its own: ``("hulhe", "--quiet")``).  `algorithm` is what ``--algorithm auto``
    runs on it: the schedule that reached exploitability 1e-4 in the least time here, and
    `pruning` whether it runs it skipping what the other player does not reach
    (`solver.engine.pruning`: the same iterates, faster where most of the tree goes unreached).
    `opponents`: ``build`` also measures and stores its exploitable opponents
    (`solver.runs.opponents`), for a game solved exactly and quickly.
    `background`: it takes long, so ``python -m solver build`` leaves it out; the app builds it
    in the background at its first start if the lobby lists it (``build --background``), and
    otherwise it is built by hand.  The quick ones (``background=False``) are solved in seconds
    by ``build`` (and into the Docker image).  `supersedes` names the abstractions of earlier
    default bots that this command's bot replaces: a store whose latest solve of the game is
    one of them keeps serving it while the background build makes the new one, which then
    takes its place (a bot built by hand with other settings is left alone).  `thinking` names
    its thinking opponents (`solver.games.opponents.THINKING`), each built after the game by
    the background build, by its own command, where the store lacks it."""

    command: tuple[str, ...]
    algorithm: str = "dcfr"
    background: bool = True
    pruning: bool = False
    opponents: bool = False
    supersedes: tuple[str, ...] = ()
    thinking: tuple[str, ...] = ()


@runtime_checkable
class MatrixGame(Protocol):
    """A game that is one simultaneous move (Rock-Paper-Scissors): regret matching in self-play
    (``--algorithm rm``) solves it as a matrix game."""

    def payoff_matrix(self) -> tuple[tuple[float, ...], ...]:
        """Player 0's payoffs, a row per action of player 0 and a column per action of 1."""
        ...

    @property
    def regret_matching_start(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Where regret matching starts (each player's first strategy)."""
        ...


@runtime_checkable
class CountsItself(Protocol):
    """A game that counts its tree without building it (Dudo, the hold'em family): exact figures
    for members far too big to compile, which ``python -m solver info`` prints and a solve's
    memory check reads before anything is allocated."""

    def sizes(self) -> dict[str, int | dict[str, int]]:
        """Exact counts of the game's tree, without building it."""
        ...


@runtime_checkable
class TimesItsCompile(Protocol):
    """A game whose compile is not in proportion to its tree (push or fold: a table of every
    board, a minute the first time, then read from disk), which says how long it will take."""

    def compile_seconds(self) -> float:
        """About how long compiling the tree will take on a two-core machine, now."""
        ...


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
    """A two-player zero-sum game with perfect recall: its rules, what it is called, and how
    its strategy is built (how it is shown to a player is its `GameView`)."""

    name: str
    """Short identifier used by the CLI, the store and the URLs (``"leduc"``)."""
    title: str
    """Human-readable name (``"Leduc hold'em"``), OpenSpiel's long name."""
    reference_value: float | None
    """Published value for player 0 (seat 0), for display and tests; None if unknown."""
    simultaneous: bool
    """True if the players choose at once (the sequential tree hides the first move)."""
    openspiel: OpenSpielMapping | None
    """The same game in OpenSpiel, if it has one: exported strategies are judged there."""
    listed: bool
    """Shown in the lobby, and built, even before it is solved (a variant that is not is shown
    once its solve is in the store)."""

    @property
    def build(self) -> BuildPlan:
        """How its strategy is built into the store."""
        ...

    def initial_state(self) -> State: ...

    def num_distinct_actions(self) -> int:
        """Player action ids are ``0 .. num_distinct_actions() - 1``."""
        ...

    style_stats: tuple[StyleStat, ...]
    """The style figures its players know (none for a game without any), which a build
    stores for its solve and a player's record adds up."""

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


def legal_labels(state: State) -> list[str]:
    return [state.action_label(a) for a in state.legal_actions()]


def play(game: Game, actions: Sequence[int]) -> State:
    """The state reached from the start by `actions` (chance outcomes included)."""
    state = game.initial_state()
    for action in actions:
        state = state.apply_action(action)
    return state


class GameDefaults:
    """What most games share: players who take turns, no OpenSpiel twin, listed, solved
    exactly by ``python -m solver solve NAME``, no style figures. A game overrides what it
    needs."""

    simultaneous: bool = False
    openspiel: OpenSpielMapping | None = None
    listed: bool = True

    @property
    def build(self) -> BuildPlan:
        """Solved exactly by ``python -m solver solve NAME``, not among the quick games."""
        return BuildPlan(("solve", getattr(self, "name", "")))

    style_stats: tuple[StyleStat, ...] = ()

    def style_counts(self, state: State, seat: int) -> StyleCounts:
        return {}

    def forfeit_payoff(self, state: State, seat: int) -> float:
        """A game with a pot: a fold, which gives up what the seat has put in. Otherwise the
        worst result reachable from `state`, found by walking what follows it (for small
        games; a game whose tree is big says its worst result itself)."""
        if isinstance(state, PotState):
            return -float(state.contributions()[seat])
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


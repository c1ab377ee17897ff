"""The one interface every game implements and every algorithm, the CLI and the app use.

It follows OpenSpiel's Python side: a `Game` describes the rules and hands out an initial
`State`; a `State` is immutable (``apply_action`` returns a new one), so the app can keep any
position around and the solver can share prefixes of the tree without copying.

Beyond OpenSpiel's interface every state also splits what a player knows into a *public* part
(the same for everybody: the action history, a board card) and a *private* part (the player's own
card or die).  The fast solver engine groups histories by their public key and vectorises over the
private keys, which is what makes it fast; the invariant it relies on is

    information_state_key(p) is a function of (public_key(), private_key(p)) and vice versa.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

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

    def private_view(self, player: int) -> str:
        """Human-readable private information of `player` (``"K♠"``, ``"die 3"``)."""
        ...


class Game(Protocol):
    """A two-player zero-sum game with perfect recall."""

    name: str
    """Short identifier used by the CLI, the store and the URLs (``"leduc"``)."""
    title: str
    """Human-readable name (``"Leduc hold'em"``)."""
    rules: str
    """The rules in two lines, for the lobby."""
    reference_value: float | None
    """Published value for player 0 (first to act), for display and tests; None if unknown."""

    def initial_state(self) -> State: ...

    def num_distinct_actions(self) -> int:
        """Player action ids are ``0 .. num_distinct_actions() - 1``."""
        ...


def action_from_label(state: State, label: str) -> int:
    """The action of `state` labelled `label`; `ValueError` naming the legal labels otherwise."""
    for action in state.legal_actions():
        if state.action_label(action) == label:
            return action
    legal = ", ".join(legal_labels(state))
    raise ValueError(f"illegal action {label!r}; legal actions: {legal}")


def legal_labels(state: State) -> list[str]:
    return [state.action_label(a) for a in state.legal_actions()]


def play(game: Game, actions: Sequence[int]) -> State:
    """The state reached from the start by `actions` (chance outcomes included)."""
    state = game.initial_state()
    for action in actions:
        state = state.apply_action(action)
    return state

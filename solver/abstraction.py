"""Abstractions: how a position of the real game maps to an information set of the strategy that
was actually solved.

A game small enough is solved as it is, and a player's information set is its
``information_state_key``. A bigger one is solved in an abstract game — Dudo remembering only the
last few bids, hold'em with hands bucketed by strength — and a bot playing the real game looks its
strategy up under the *abstract* key of its position. Which abstraction a solve used is stored
with it as a descriptor (``"recall=3"``); `abstraction_for` turns the descriptor back into the
mapping, so the store and the app never need to know what an abstraction does.

Modules that define an abstraction register a parser for its kind with `register_kind`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:  # the game modules import this one to register their abstractions
    from solver.games import Game, State


class Abstraction(Protocol):
    descriptor: str
    """What the store keeps (``""`` for the real game itself)."""

    def strategy_key(self, state: State, player: int) -> str:
        """The key under which `player`'s strategy at `state` is stored."""
        ...


class Exact:
    """The real game: a strategy is stored under the information set's own key."""

    descriptor = ""

    def strategy_key(self, state: State, player: int) -> str:
        return state.information_state_key(player)


Parser = Callable[["Game", str], Abstraction]
"""Builds an abstraction of `game` from the parameters after ``kind=`` in a descriptor."""


@dataclass(frozen=True, slots=True)
class AbstractionText:
    """An abstraction in words, for the people who play against a strategy solved in it."""

    what: str
    """What the bot's abstract game keeps and forgets, as the end of "It plays …"."""
    measured: str
    """How exploitable a strategy of it was measured to be in the real game, or that it was
    not (the real game too big to check exactly)."""


Describer = Callable[[str], AbstractionText]
"""Says in words what the parameters after ``kind=`` in a descriptor make."""

_KINDS: dict[str, Parser] = {}
_DESCRIBERS: dict[str, Describer] = {}


def register_kind(kind: str, parser: Parser, describer: Describer | None = None) -> None:
    _KINDS[kind] = parser
    if describer is not None:
        _DESCRIBERS[kind] = describer


def describe(descriptor: str | None) -> AbstractionText | None:
    """A stored descriptor in words (without building the abstraction, which may mean big
    tables); None for the real game."""
    if not descriptor:
        return None
    kind, _, parameters = descriptor.partition("=")
    describer = _DESCRIBERS.get(kind)
    if describer is None:
        return AbstractionText(f"an abstract game ({descriptor})",
                               "How exploitable it is has not been measured.")
    return describer(parameters)


def abstraction_for(game: Game, descriptor: str | None) -> Abstraction:
    """The abstraction a solve of `game` used, from its stored descriptor (empty: none)."""
    if not descriptor:
        return Exact()
    kind, sep, parameters = descriptor.partition("=")
    parser = _KINDS.get(kind)
    if not sep or parser is None:
        known = ", ".join(sorted(_KINDS)) or "none registered"
        raise ValueError(f"unknown abstraction {descriptor!r} for {game.name!r}; kinds: {known}")
    return parser(game, parameters)

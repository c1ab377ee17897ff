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

_KINDS: dict[str, Parser] = {}


def register_kind(kind: str, parser: Parser) -> None:
    _KINDS[kind] = parser


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

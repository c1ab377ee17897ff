"""Abstractions: how a position of the real game maps to an information set of the strategy that
was actually solved.

A game small enough is solved as it is, and a player's information set is its
``information_state_key``. A bigger one is solved in an abstract game — Dudo remembering only the
last few bids, hold'em with hands bucketed by strength — and a bot playing the real game looks its
strategy up under the *abstract* key of its position. Which abstraction a solve used is stored
with it as a descriptor (``"recall=3"``); `abstraction_for` turns the descriptor back into the
mapping, so the store and the app never need to know what an abstraction does.

The kinds that ship are listed here (`KINDS`): ``recall`` (`solver.abstractions.dudo_recall`),
``buckets``, ``ehs2`` and ``hist`` (`solver.abstractions.holdem`); a plug-in (or a test) adds
its own with `register_kind`.

Example::

    from solver.abstractions import abstraction_for
    from solver.games import get_game

    game = get_game("dudo-2v2")
    recall = abstraction_for(game, "recall=3")           # as a stored solve describes it
    recall.strategy_key(state, player)                    # "16|2x3,3x4,2x1": the last 3 bids
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from solver.abstractions.dudo_recall.remembered_bids import describe_recall, parse_recall
from solver.abstractions.holdem.buckets import describe_buckets, parse_buckets
from solver.abstractions.holdem.percentiles import (
    HIST_KIND,
    describe_histograms,
    describe_percentiles,
    parse_histograms,
    parse_percentiles,
)
from solver.abstractions.holdem.percentiles import KIND as PERCENTILES_KIND
from solver.abstractions.words import AbstractionText, Describer
from solver.games.base import Game, State


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


Parser = Callable[[Game, str], Abstraction]
"""Builds an abstraction of `game` from the parameters after ``kind=`` in a descriptor."""

KINDS: dict[str, Parser] = {
    "recall": parse_recall,
    "buckets": parse_buckets,
    PERCENTILES_KIND: parse_percentiles,
    HIST_KIND: parse_histograms,
}
"""The descriptor kinds that ship, and the parser of each (`register_kind` adds one)."""
DESCRIBERS: dict[str, Describer] = {
    "recall": describe_recall,
    "buckets": describe_buckets,
    PERCENTILES_KIND: describe_percentiles,
    HIST_KIND: describe_histograms,
}
"""How each kind that ships is said in words (`describe`)."""

_KINDS: dict[str, Parser] = dict(KINDS)
_DESCRIBERS: dict[str, Describer] = dict(DESCRIBERS)
_PARSED: dict[tuple[str, str], Abstraction] = {}
"""The abstractions parsed so far, by game and descriptor: one per solve, so that what an
abstraction keeps (a re-solving bot's re-solves) serves every move, hint and analysis."""


def register_kind(kind: str, parser: Parser, describer: Describer | None = None) -> None:
    """Make `kind` a descriptor kind that `abstraction_for` parses with `parser` (and
    `describe` says in words with `describer`)."""
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
    known = _PARSED.get((game.name, descriptor))
    if known is not None:
        return known
    kind, sep, parameters = descriptor.partition("=")
    parser = _KINDS.get(kind)
    if not sep or parser is None:
        kinds = ", ".join(sorted(_KINDS)) or "none registered"
        raise ValueError(f"unknown abstraction {descriptor!r} for {game.name!r}; kinds: {kinds}")
    parsed = _PARSED[(game.name, descriptor)] = parser(game, parameters)
    return parsed

"""Abstractions whose strategy is computed at play time, and the kinds that do so.

Most abstractions only map a position to the key under which a stored strategy is looked up
(`solver.abstractions`).  A re-solving bot computes its probabilities when it is asked, from
the stored tables of its blueprint; it says so by offering `play_time_policy`
(`ComputedAtPlayTime`), which the app's bot calls instead of looking a key up, so the app needs
to know nothing of the game or the method.  Importing this module registers every such kind.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from solver.abstractions.holdem import translated  # noqa: F401  (registers the kind)
from solver.games.base import State
from solver.resolving import kind  # noqa: F401  (registers the kind)
from strategies.tables import TableStrategy


@runtime_checkable
class ComputedAtPlayTime(Protocol):
    """An abstraction that plays by computing: the probabilities of the legal actions of the
    player to move (in the state's order), from the solve's stored tables."""

    descriptor: str

    def strategy_key(self, state: State, player: int) -> str: ...

    def play_time_policy(self, state: State, table: TableStrategy) -> tuple[float, ...]: ...

    def play_time_policies(self, states: Sequence[State], table: TableStrategy
                           ) -> list[tuple[float, ...]]:
        """`play_time_policy` of each of `states`, positions that differ only in the private
        cards of the player to move, in one computation (what the explorer's grid asks)."""
        ...

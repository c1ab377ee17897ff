"""Dudo played with a short memory: the abstraction behind the solves too big to make exactly.

A player remembers its own dice, the dice counts and only the last few bids (Neller & Hnath 2011
remembered three).  A solve made so is stored under keys of that form, ``16|2x3,3x4,2x1`` (the
last three bids), and in a match with the round's dice counts in front, ``5v4:12356|...``
(opener's count first); its descriptor says how much each round remembers:

* ``recall=3``: three bids, in every round;
* ``recall=2;1v1=all;1v2=all;2v1=all;2v2=3``: two bids, except where a round is named (``all``:
  every bid, the real game).

The descriptor kind ``recall`` is registered with `solver.abstractions`, so the app's bot turns
a stored descriptor back into this mapping without knowing what it does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar, runtime_checkable

from solver.abstractions.words import AbstractionText
from solver.games.base import Game, State

T = TypeVar("T")
Memory = int | None
"""Bids remembered; None: all of them."""


def remembered(bids: Sequence[T], memory: Memory) -> tuple[T, ...]:
    """The bids a player with `memory` keeps in mind: the last `memory` of them."""
    return tuple(bids) if memory is None or len(bids) <= memory else tuple(bids[-memory:])


@runtime_checkable
class RoundPosition(Protocol):
    """A Dudo state that can say where it stands in its round (a Dudo game, or a round of a
    match)."""

    def round_position(self, player: int) -> tuple[str, tuple[int, int], str, tuple[str, ...]]:
        """(key prefix, the round's dice counts with the opener's first, `player`'s dice as a
        key, the round's bids so far)."""
        ...


class Recall:
    """Remember `default` bids, or as `rounds` says for a round's dice counts."""

    def __init__(self, default: Memory,
                 rounds: Mapping[tuple[int, int], Memory] | None = None) -> None:
        self.default = default
        self.rounds = dict(rounds or {})
        parts = [f"recall={_memory_text(default)}"]
        parts += [f"{a}v{b}={_memory_text(m)}" for (a, b), m in sorted(self.rounds.items())]
        self.descriptor = ";".join(parts)

    def __repr__(self) -> str:
        return f"Recall({self.descriptor!r})"

    def memory(self, counts: tuple[int, int]) -> Memory:
        return self.rounds.get(counts, self.default)

    def strategy_key(self, state: State, player: int) -> str:
        if not isinstance(state, RoundPosition):
            raise ValueError(f"{type(state).__name__} is not a Dudo position")
        prefix, counts, dice, bids = state.round_position(player)
        return f"{prefix}{dice}|{','.join(remembered(bids, self.memory(counts)))}"


def _memory_text(memory: Memory) -> str:
    return "all" if memory is None else str(memory)


def parse_memory(text: str) -> Memory:
    if text == "all":
        return None
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"a memory is a number of bids (1 or more) or 'all', not {text!r}")
    return int(text)


def parse_recall(game: Game, parameters: str) -> Recall:
    """The `Recall` of a descriptor's parameters: ``3`` or ``2;1v1=all;2v2=3``."""
    if not isinstance(game.initial_state(), RoundPosition):
        raise ValueError(f"the recall abstraction is for Dudo games, not {game.name!r}")
    default, *rest = parameters.split(";")
    rounds: dict[tuple[int, int], Memory] = {}
    for part in rest:
        counts, sep, memory = part.partition("=")
        a, v, b = counts.partition("v")
        if not (sep and v and a.isdigit() and b.isdigit()):
            raise ValueError(f"a round is written AvB=memory (2v1=all), not {part!r}")
        rounds[(int(a), int(b))] = parse_memory(memory)
    return Recall(parse_memory(default), rounds)


MEASURED = {1: "0.17 to 0.48", 2: "about 0.09", 3: "about 0.02", 4: "0.003 to 0.005"}
"""What forgetting cost, measured exactly (`python -m solver recall-cost`, docs/games/dudo.md): the
exploitability in the real game of a strategy remembering that many bids, on the Dudo games
small enough to check (one die each, one against two, two against one)."""


def describe_recall(parameters: str) -> AbstractionText:
    """``3`` or ``2;1v1=all;2v2=3`` in words."""
    default, *rest = parameters.split(";")

    def bids(text: str) -> str:
        return "every bid" if text == "all" else "the last bid" if text == "1" else \
            f"the last {text} bids"

    what = f"a game in which a player remembers its dice, the dice counts and only {bids(default)}"
    rounds = [part.partition("=") for part in rest]
    if rounds:
        what += " of a round (" + "; ".join(
            f"{bids(memory)} with {counts.replace('v', ' against ')} dice"
            for counts, _, memory in rounds) + ")"
    memories = sorted({int(m) for m in [default, *(r[2] for r in rounds)] if m.isdigit()})
    costs = "; ".join(f"remembering {m} bid{'s' if m > 1 else ''}, by {MEASURED[m]}"
                      for m in memories if m in MEASURED)
    measured = ("Not measured in this game, which is too big to check exactly."
                + (f" On the Dudo games small enough to check, a strategy was exploitable, "
                   f"{costs} a hand (the stake is 1)." if costs else ""))
    plain = f"a player remembers its dice but only {bids(default)}"
    return AbstractionText(what, measured, plain if not rounds else plain + ", or more in "
                           "some rounds")


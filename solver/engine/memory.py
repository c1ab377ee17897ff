"""What a solve needs in memory, checked against what the machine has before anything big is
allocated.

An exact solve of Dudo with two dice each asked for all 24 GB of the machine within 75 seconds
and was killed by the kernel; nothing said why. Every solve now computes, from the game's exact
counts (`python -m solver info` prints them, without building anything), how many bytes its
tree, its solver and the rows it stores will take, and refuses to start if that is more than the
memory available now, naming the way that fits instead.

The figures are upper bounds measured rather than derived: bytes per information set, per
(information set, action) pair, per (public node, private state) slot and per public node,
fitted on solves of this code (peak resident memory, `tests/solver/engine/test_memory.py`
checks that the estimate stays above it) plus the interpreter with numpy and numba loaded.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import psutil

LIMIT_ENV = "SOLVER_MEMORY_LIMIT"
"""Bytes (``24G``, ``512M`` or a plain number) to treat as the memory available: to share a
machine with other work, and for the tests, which check the refusals of a 24 GB machine."""

BASE_BYTES = 400 << 20
"""The interpreter with numpy, numba, SQLAlchemy and the compiled kernels: 240-290 MB measured
for the small games, rounded up."""

INFOSET_BYTES = 800
"""Per information set: its key and its row in Python (the tuples of probabilities, values and
reach that go to the store), the tree's per-set arrays."""
ACTION_BYTES = 120
"""Per (information set, action) pair: the solver's regrets, average and current strategy, the
best response's action values, and the stored row's floats."""
SLOT_BYTES = 100
"""Per (public node, private state) slot: the tree's slot arrays, reach and values."""
NODE_BYTES = 400
"""Per public node: the tree's node arrays, its key and label.

Peak resident memory of ``solve GAME --iterations 3`` (storing included) and the estimate from
these figures, in GiB: dudo-1v2 4.50 (5.34), dudo-2v2 with four-faced dice 1.07 (1.31),
``holdem(numRanks=5,numSuits=2,numBoardCards=0 1 1)`` 2.26 (3.00); the small games 0.23-0.27
(about 0.40)."""


def parse_bytes(text: str) -> int:
    """``24G``, ``512M``, ``100K`` or a number of bytes."""
    text = text.strip().upper().removesuffix("B")
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}.get(text[-1:], 1)
    number = text[:-1] if scale > 1 else text
    value = float(number) * scale
    if not value > 0:
        raise ValueError(f"{LIMIT_ENV} must be a positive size like 24G, not {text!r}")
    return int(value)


def available_memory() -> int:
    """Bytes this process may still use: what the kernel reports available (free memory and
    the caches it can drop), less any container limit's headroom, or `LIMIT_ENV`."""
    limit = os.environ.get(LIMIT_ENV, "").strip()
    if limit:
        return parse_bytes(limit)
    available = int(psutil.virtual_memory().available)
    cgroup = Path("/sys/fs/cgroup")
    try:
        high = (cgroup / "memory.max").read_text().strip()
        used = int((cgroup / "memory.current").read_text().strip())
    except (OSError, ValueError):
        return available
    if high.isdigit():
        available = min(available, int(high) - used)
    return max(0, available)


def gib(n: float) -> str:
    return f"{n / (1 << 30):.1f} GB" if n >= 1 << 30 else f"{n / (1 << 20):.0f} MB"


@dataclass(frozen=True, slots=True)
class MemoryEstimate:
    """What a piece of work needs: `bytes`, and the counts they come from."""

    what: str
    """The work, as a sentence's subject: ``"solving dudo-2v2 exactly"``."""
    bytes: int
    detail: str
    """The sizes behind the figure."""
    instead: str = ""
    """What to do instead when it does not fit."""

    def text(self) -> str:
        return f"{self.what} needs about {gib(self.bytes)} of memory ({self.detail})"


class NotEnoughMemoryError(ValueError):
    """A solve that would not fit in the memory available, refused before it started."""


def check(estimate: MemoryEstimate, available: int | None = None) -> None:
    """Refuse `estimate` (`NotEnoughMemoryError`) if it is more than `available` bytes
    (default: `available_memory()` now)."""
    have = available_memory() if available is None else available
    if estimate.bytes > have:
        advice = f"; {estimate.instead}" if estimate.instead else ""
        raise NotEnoughMemoryError(f"{estimate.text()}, and {gib(have)} is available, so it was "
                                   f"not started{advice}")


MEASURED_INFOSET_BYTES = 200
MEASURED_ACTION_BYTES = 40
"""A tree compiled only to measure a strategy in it (no solver, no rows): its keys and arrays,
the strategy and the best response's action values."""


def tree_bytes(infosets: int, actions: int, slots: int, nodes: int, *,
               solved: bool = True) -> int:
    """An exact solve of a tree of these sizes, its evaluation and its stored rows; or, not
    `solved`, the tree built only to measure a strategy in it."""
    per_set, per_action = ((INFOSET_BYTES, ACTION_BYTES) if solved
                           else (MEASURED_INFOSET_BYTES, MEASURED_ACTION_BYTES))
    return (BASE_BYTES + per_set * infosets + per_action * actions + SLOT_BYTES * slots
            + NODE_BYTES * nodes)


def exact_estimate(game: str, sizes: dict[str, object]) -> MemoryEstimate:
    """An exact solve of `game` from its counts (``python -m solver info``); a game that does
    not count its (information set, action) pairs is taken to have three actions a set."""
    infosets = _count(sizes, "information_sets")
    actions = _count(sizes, "information_set_actions", 3 * infosets)
    slots, nodes = _count(sizes, "slots"), _count(sizes, "public_nodes")
    return MemoryEstimate(
        f"solving {game} exactly", tree_bytes(infosets, actions, slots, nodes),
        f"{infosets:,} information sets, {actions:,} (information set, action) pairs, "
        f"{slots:,} (public node, private state) slots, {nodes:,} public nodes")


def _count(sizes: dict[str, object], key: str, default: int | None = None) -> int:
    value = sizes.get(key, default)
    if not isinstance(value, int):
        raise ValueError(f"the game's sizes have no {key}")
    return value

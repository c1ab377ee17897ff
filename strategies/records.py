"""What the strategy store hands out and takes in: its records (a solve's row, an information
set's strategy, a node of the public tree, a point of the convergence trace), its errors, and
where the store is by default.  No database here: the solver and the app share these types."""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

ENV_VAR = "STRATEGY_STORE"
DEFAULT_FILENAME = "strategies.sqlite"
BUILD_HINT = "run `python -m solver build`"


def default_store_path() -> Path:
    """``$STRATEGY_STORE`` if set (and non-empty), else ``strategies/strategies.sqlite``."""
    override = os.environ.get(ENV_VAR, "").strip()
    if override:
        return Path(override).expanduser()
    return Path(__file__).resolve().parent / DEFAULT_FILENAME


class StoreError(Exception):
    """Base class of the strategy store's errors."""


class StoreMissingError(StoreError):
    """The store file does not exist (and ``create`` was not requested)."""


class StoreSchemaError(StoreError):
    """The file is not a strategy store, or one with another schema version."""


@dataclass(frozen=True, slots=True)
class SolveInfo:
    id: int
    game: str
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float
    value: float
    created: datetime  # UTC-aware
    solver_version: str
    abstraction: str = ""
    """`solver.abstractions` descriptor of the abstract game solved; empty for the real game."""
    value_ci95: float | None = None
    """Half-width of the 95% interval of `value` where it is a sampled estimate; None if exact."""


@dataclass(frozen=True, slots=True)
class InfosetStrategy:
    key: str
    player: int
    labels: tuple[str, ...]
    probabilities: tuple[float, ...]
    values: tuple[float, ...] | None = None
    """Q(I, a) per action under the stored profile; None where the solve has none."""
    value: float | None = None
    """V(I): the information set's value under the profile."""
    reach: float | None = None
    """The probability that the profile reaches the information set, chance included."""
    node: int | None = None
    """The node of the solve's public tree it belongs to (`PublicNode.idx`), if stored."""


@dataclass(frozen=True, slots=True)
class PublicNode:
    """A node of a solve's public tree (`strategies.models.NodeRow`)."""

    idx: int
    public: str
    parent: int
    label: str
    kind: str
    actor: int


@dataclass(frozen=True, slots=True)
class TracePoint:
    iteration: int
    seconds: float
    exploitability: float
    value: float


def split_key(key: str) -> tuple[str, str]:
    """``"Ks|rc"`` -> (``"Ks"``, ``"rc"``): the private part before the first ``|`` and the
    public history after it; a key without ``|`` is all public."""
    private, sep, public = key.partition("|")
    return (private, public) if sep else ("", key)

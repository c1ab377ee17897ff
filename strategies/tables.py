"""A strategy laid out as tables, for solves with millions of information sets.

An abstract solve of a big game (hold'em's bucket abstraction) has a strategy that is a grid:
every *public* part of a key (a betting sequence) crossed with every *private* part of its group
(the buckets of its round).  Stored as one row per information set it would take gigabytes and
minutes to load; as a table per group of quantised probabilities it takes a few megabytes and
milliseconds, and a key is still answered in microseconds: split it at its first ``|``, find the
public part's row and the private part's column, read the slots of the legal actions.

`TableStrategy` is that layout, and what the store keeps of it (`StrategyStore.save_table_solve`)
are blobs: ``layout`` (JSON: the public parts with their player, action labels, group, row and
action slots; the private names of each group) and ``table/<g>`` (each group's
(rows, privates, slots) array of uint8, zlib-compressed ``.npy``).  Probabilities are quantised
to 255ths by largest remainders, so that each distribution still sums to exactly one: an error
of at most 1/255 per action (the solver's tests measure what it costs).
"""

from __future__ import annotations

import io
import json
import zlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

LEVELS = 255
"""A probability is stored as a multiple of 1/LEVELS."""


@dataclass(frozen=True, slots=True)
class PublicPart:
    """A public part of the keys: who acts, the labels of the legal actions, and where its
    probabilities are (group, row, and the slot of each action)."""

    player: int
    labels: tuple[str, ...]
    group: int
    row: int
    slots: tuple[int, ...]


def quantise(probabilities: NDArray[np.floating], levels: int = LEVELS) -> NDArray[np.uint8]:
    """Rows (last axis) of probabilities -> integers summing to `levels` per row, each within 1
    of ``levels * p`` (largest remainders).  Rows summing to zero stay zero."""
    p = np.asarray(probabilities, np.float64)
    totals = p.sum(axis=-1, keepdims=True)
    p = np.where(totals > 0, p / np.where(totals > 0, totals, 1.0), 0.0)
    scaled = p * levels
    base = np.floor(scaled)
    short = np.where(totals[..., 0] > 0, levels - base.sum(axis=-1), 0).astype(np.int64)
    order = np.argsort(-(scaled - base), axis=-1, kind="stable")
    ranks = np.argsort(order, axis=-1, kind="stable")
    base += ranks < short[..., None]
    return base.astype(np.uint8)


@dataclass(frozen=True, slots=True, eq=False)
class TableStrategy:
    """Public parts, private names per group, and per group a (rows, privates, slots) table."""

    publics: dict[str, PublicPart]
    privates: tuple[tuple[str, ...], ...]
    tables: tuple[NDArray[Any], ...]
    """Quantised (uint8, `quantise`) as stored; float tables read the same way."""
    _columns: tuple[dict[str, int], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if len(self.privates) != len(self.tables):
            raise ValueError(f"{len(self.privates)} groups of private names but "
                             f"{len(self.tables)} tables")
        for g, (names, table) in enumerate(zip(self.privates, self.tables, strict=True)):
            if table.ndim != 3 or table.shape[1] != len(names):
                raise ValueError(f"group {g}: a table of shape (rows, {len(names)}, slots) is "
                                 f"needed, not {table.shape}")
        object.__setattr__(self, "_columns", tuple({name: i for i, name in enumerate(names)}
                                                   for names in self.privates))

    @property
    def num_infosets(self) -> int:
        return sum(len(self.privates[p.group]) for p in self.publics.values())

    def lookup(self, key: str) -> tuple[PublicPart, tuple[float, ...]] | None:
        """The public part of `key` and the probabilities of its legal actions, or None."""
        private, sep, public = key.partition("|")
        if not sep:
            return None
        part = self.publics.get(public)
        if part is None:
            return None
        column = self._columns[part.group].get(private)
        if column is None:
            return None
        return part, self.probabilities(part, column)

    def probabilities(self, part: PublicPart, column: int) -> tuple[float, ...]:
        counts = [int(self.tables[part.group][part.row, column, s]) for s in part.slots]
        total = sum(counts)
        if total == 0:
            return tuple(1.0 / len(counts) for _ in counts)
        return tuple(c / total for c in counts)

    def page(self, *, prefix: str = "", contains: str = "", private: str | None = None,
             public_prefix: str = "", offset: int = 0, limit: int | None = None
             ) -> tuple[int, list[tuple[str, PublicPart, tuple[float, ...]]]]:
        """How many keys match (as `strategies.store.StrategyStore.infoset_page` filters
        them), and (key, public part, probabilities) of those from `offset` on, at most
        `limit`: public parts in the order stored, then each one's private names in order."""
        total = 0
        out: list[tuple[str, PublicPart, tuple[float, ...]]] = []
        stop = None if limit is None else offset + max(0, limit)
        for public, part in self.publics.items():
            if not public.startswith(public_prefix):
                continue
            names = self.privates[part.group]
            columns: range | list[int]
            if private is not None:
                column = self._columns[part.group].get(private)
                columns = [] if column is None else [column]
            else:
                columns = range(len(names))
            if not (prefix or contains):  # count the window's keys without writing them
                lo = max(offset - total, 0)
                hi = len(columns) if stop is None else max(min(stop - total, len(columns)), lo)
                out.extend((f"{names[c]}|{public}", part, self.probabilities(part, c))
                           for c in columns[lo:hi])
                total += len(columns)
                continue
            for column in columns:
                key = f"{names[column]}|{public}"
                if not (key.startswith(prefix) and contains in key):
                    continue
                if offset <= total and (stop is None or total < stop):
                    out.append((key, part, self.probabilities(part, column)))
                total += 1
        return total, out

    # ---- bytes --------------------------------------------------------------------------------

    def blobs(self) -> dict[str, bytes]:
        layout = {
            "publics": [[key, p.player, list(p.labels), p.group, p.row, list(p.slots)]
                        for key, p in self.publics.items()],
            "privates": [list(names) for names in self.privates],
        }
        out = {"layout": zlib.compress(json.dumps(layout).encode())}
        for g, table in enumerate(self.tables):
            buffer = io.BytesIO()
            np.save(buffer, np.ascontiguousarray(table, np.uint8), allow_pickle=False)
            out[f"table/{g}"] = zlib.compress(buffer.getvalue(), 6)
        return out

    @classmethod
    def from_blobs(cls, blobs: dict[str, bytes]) -> TableStrategy:
        layout = json.loads(zlib.decompress(blobs["layout"]))
        publics = {key: PublicPart(int(player), tuple(labels), int(group), int(row),
                                   tuple(slots))
                   for key, player, labels, group, row, slots in layout["publics"]}
        privates = tuple(tuple(names) for names in layout["privates"])
        tables = tuple(np.load(io.BytesIO(zlib.decompress(blobs[f"table/{g}"])),
                               allow_pickle=False) for g in range(len(privates)))
        return cls(publics, privates, tables)


def dequantise(table: NDArray[Any], slots: Sequence[int]) -> NDArray[np.float64]:
    """A table's probabilities over `slots` (rows normalised; all-zero rows uniform)."""
    cells = table[..., list(slots)].astype(np.float64)
    totals = cells.sum(axis=-1, keepdims=True)
    return np.where(totals > 0, cells / np.where(totals > 0, totals, 1.0), 1.0 / len(slots))

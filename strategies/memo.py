"""What a strategy store remembers between reads, and when that goes stale.

Everything here is valid for one value of ``PRAGMA data_version`` on the store's lookup
connection; the value changes whenever any other connection (a pooled one of the same process,
or another process such as the solver rebuilding the store) commits, and then it is all dropped.
Not thread-safe: `strategies.store.StrategyStore` calls it with its lock held.
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict

from strategies import sql
from strategies.records import InfosetStrategy, SolveInfo
from strategies.tables import TableStrategy


class Memo:
    """The lookups of one store: latest solve ids, decoded solves and tables, rows already
    read."""

    def __init__(self, lookup: sqlite3.Connection) -> None:
        self.lookup = lookup
        self.data_version: int | None = None
        self.latest: dict[tuple[str, str], int | None] = {}
        """(game, opponent) -> latest solve id (None: no solve)"""
        self.game_of: dict[int, str] = {}
        """solve id -> game"""
        self.solves: OrderedDict[int, dict[str, InfosetStrategy]] = OrderedDict()
        """solve id -> decoded strategy, filled by `strategy()`; least recently used first"""
        self.seen: dict[int, dict[str, InfosetStrategy]] = {}
        """solve id -> the infosets `infoset()` has looked up so far (bots revisit them)"""
        self.infos: dict[int, SolveInfo] = {}
        """solve id -> its row, as `latest_solve()` returns it"""
        self.labels: dict[str, tuple[str, ...]] = {}
        """JSON text of an action list -> decoded labels (few distinct lists per game)"""
        self.tables: dict[int, TableStrategy | None] = {}
        """solve id -> its strategy tables (None: a solve stored as rows)"""
        self.opponents: dict[str, list[SolveInfo]] = {}
        """game -> the newest solve of each of its exploitable opponents"""
        self.games: list[str] | None = None
        """the games with a solve, sorted (the lobby asks on every new match)"""

    def clear(self) -> None:
        """Forget everything (the decoded action lists only when they are many)."""
        self.data_version = None
        self.latest.clear()
        self.game_of.clear()
        self.solves.clear()
        self.seen.clear()
        self.infos.clear()
        self.tables.clear()
        self.opponents.clear()
        self.games = None
        if len(self.labels) > 10_000:
            self.labels.clear()

    def revalidate(self) -> None:
        """Forget everything if another connection has committed since the last call."""
        version = self.lookup.execute("PRAGMA data_version").fetchone()[0]
        if version != self.data_version:
            self.clear()
            self.data_version = version

    def solve_id(self, game: str, solve_id: int | None, opponent: str = "") -> int | None:
        """Revalidate; then ``solve_id`` (checked to be a solve of ``game``) or, if None, the
        latest solve of ``game`` (of its `opponent`, if not empty)."""
        self.revalidate()
        if solve_id is None:
            try:
                return self.latest[game, opponent]
            except KeyError:
                row = self.lookup.execute(sql.SELECT_LATEST, (game, opponent)).fetchone()
                latest = self.latest[game, opponent] = None if row is None else row[0]
                return latest
        owner = self.game_of.get(solve_id)
        if owner is None:
            row = self.lookup.execute(sql.SELECT_GAME, (solve_id,)).fetchone()
            if row is None:
                raise KeyError(f"no solve with id {solve_id}")
            owner = self.game_of[solve_id] = row[0]
        if owner != game:
            raise KeyError(f"solve {solve_id} is a solve of {owner!r}, not of {game!r}")
        return solve_id

    def table(self, sid: int) -> TableStrategy | None:
        """The tables of solve `sid`, decoded on first use."""
        if sid in self.tables:
            return self.tables[sid]
        rows = self.lookup.execute(sql.SELECT_BLOBS, (sid,)).fetchall()
        table = TableStrategy.from_blobs({name: bytes(data) for name, data in rows}) if rows \
            else None
        self.tables[sid] = table
        return table

    def decode_labels(self, text: str) -> tuple[str, ...]:
        """Decoded action list, shared between infosets."""
        labels = self.labels.get(text)
        if labels is None:
            labels = self.labels[text] = tuple(json.loads(text))
        return labels

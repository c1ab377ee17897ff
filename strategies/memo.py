"""What a strategy store remembers between reads, and when that goes stale.

What a commit can change (the latest solve of each game and opponent, the games, a solve's
figures) is valid for one value of ``PRAGMA data_version`` on the store's lookup connection; the
value changes whenever any other connection (a pooled one of the same process, or another process
such as the solver building a game) commits, and then it is dropped. What belongs to one solve
(its rows, tables, decoded strategy, counts) never changes: it is kept across commits for the
solves still the latest of their game or opponent, so that a build storing one game leaves the
other games' reads as warm as they were. Not thread-safe: `strategies.store.StrategyStore` calls
it with its lock held.
"""

from __future__ import annotations

import json
import sqlite3
from collections import OrderedDict
from typing import Any

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
        """solve id -> its strategy tables (None: a solve stored as rows), decoded by
        `strategies.store.StrategyStore._tables`"""
        self.opponents: dict[str, list[SolveInfo]] = {}
        """game -> the newest solve of each of its exploitable opponents"""
        self.games: list[str] | None = None
        """the games with a solve, sorted (the lobby asks on every new match)"""
        self.figures: dict[int, dict[str, Any]] = {}
        """solve id -> its figures (`strategies.figures`), decoded"""
        self.counts: dict[tuple[str, int], int] = {}
        """(table, solve id) -> the solve's rows in it"""

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
        self.figures.clear()
        self.counts.clear()
        if len(self.labels) > 10_000:
            self.labels.clear()

    def changed(self) -> None:
        """A commit: forget what it can have changed, and what belongs to a solve that is no
        longer the latest of its game or opponent (replaced or deleted)."""
        keep = {row[0] for row in self.lookup.execute(sql.SELECT_LATEST_IDS)}
        self.latest.clear()
        self.opponents.clear()
        self.games = None
        self.figures.clear()
        for cache in (self.solves, self.seen, self.infos, self.tables, self.game_of):
            for sid in [sid for sid in cache if sid not in keep]:
                del cache[sid]
        self.counts = {k: v for k, v in self.counts.items() if k[1] in keep}

    def revalidate(self) -> None:
        """Take in the commits of other connections since the last call (`changed`)."""
        version = self.lookup.execute("PRAGMA data_version").fetchone()[0]
        if version != self.data_version:
            if self.data_version is not None:
                self.changed()
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

    def figures_of(self, sid: int) -> dict[str, Any]:
        """The figures of solve `sid`, decoded on first use."""
        known = self.figures.get(sid)
        if known is None:
            rows = self.lookup.execute(sql.SELECT_FIGURES, (sid,)).fetchall()
            known = self.figures[sid] = {name: json.loads(data) for name, data in rows}
        return known

    def decode_labels(self, text: str) -> tuple[str, ...]:
        """Decoded action list, shared between infosets."""
        labels = self.labels.get(text)
        if labels is None:
            labels = self.labels[text] = tuple(json.loads(text))
        return labels

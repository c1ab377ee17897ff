"""Access to the strategy store that never takes the app down.

A missing or corrupt store is logged at start-up and reported by ``/healthz``; every request that
needs a strategy then gets a :class:`StrategyUnavailableError` (HTTP 503) naming the problem and
the fix. The store is opened again on demand, so building it while the app runs brings the games
online without a restart. A game whose strategy is not built yet (being built in the background,
waiting, failed) is a :class:`GameNotReadyError` (409) saying so, with its build's progress.

Messages that leave the app never name a path of the server: the store's file is named by its
name alone (the logs keep the whole path).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from app.services.errors import GameNotReadyError, StrategyUnavailableError
from solver.engine.progress import estimate, minutes
from solver.games import game_names, get_game
from solver.runs.build_status import build_report
from strategies import (
    InfosetStrategy,
    PublicNode,
    SolveInfo,
    StoreError,
    StrategyStore,
    TracePoint,
)

log = logging.getLogger("app.strategies")

BUILD_HINT = "run `python -m solver build`"
_PATH = re.compile(r"(?<![\w.:/~-])(?:~|[A-Za-z]:)?(?:[/\\][\w.@+~-]+){2,}[/\\]?")
"""An absolute path (``/srv/app/data/x.sqlite``, ``C:\\data\\x``) of two parts or more."""


def without_paths(text: str, *known: Path) -> str:
    """`text` with the server's paths replaced by their last part: the `known` ones first (so
    that one with spaces goes whole), then anything that looks like an absolute path."""
    for path in known:
        for form in {str(path), str(path.resolve())}:
            if len(form) > 1:
                text = text.replace(form, path.name or form)
    return _PATH.sub(lambda m: Path(m.group(0).rstrip("/\\")).name, text)
RETRY_SECONDS = 2.0
"""How often a store that failed to open is tried again."""

_STORE_FAILURES = (StoreError, sqlite3.Error, SQLAlchemyError, OSError)


@dataclass(frozen=True, slots=True)
class StoreStatus:
    path: Path
    error: str | None
    ready: tuple[str, ...]
    """Games with a stored solve."""
    unsolved: tuple[str, ...]
    """Games the lobby lists that have no stored solve."""


class StrategySource:
    """The app's handle on the strategy store at `path`. Thread-safe."""

    def __init__(self, path: Path | str, build_status: Path | None = None) -> None:
        self.path = Path(path)
        self.build_status = build_status
        """Where a background build of the store reports its progress (`solver.engine.progress`)."""
        self._lock = threading.Lock()
        self._store: StrategyStore | None = None
        self._error: str | None = None
        self._tried = float("-inf")

    @classmethod
    def from_store(cls, store: StrategyStore) -> StrategySource:
        """Wrap an already open store (scripts and tests)."""
        source = cls(store.path)
        source._store = store
        return source

    # ---- the store itself ----------------------------------------------------------------

    def open(self) -> str | None:
        """Try to open the store now; the error message if that fails (it is also logged)."""
        with self._lock:
            return self._open_locked(force=True)

    def _open_locked(self, force: bool = False) -> str | None:
        if self._store is not None:
            return None
        now = time.monotonic()
        if not force and now - self._tried < RETRY_SECONDS:
            return self._error
        self._tried = now
        try:
            self._store = StrategyStore.open(self.path)
        except _STORE_FAILURES as exc:
            message = self.public(str(exc) or type(exc).__name__)
            if message != self._error:
                log.error("strategy store %s unavailable: %s", self.path, exc)
            self._error = message
            return message
        if self._error is not None:
            log.info("strategy store %s is available again", self.path)
        self._error = None
        return None

    def store(self) -> StrategyStore:
        """The open store; `StrategyUnavailableError` if it cannot be opened."""
        with self._lock:
            error = self._open_locked()
            store = self._store
        if store is None:
            raise StrategyUnavailableError(
                f"the strategy store is unavailable: {error or 'not opened'}"
            )
        return store

    def close(self) -> None:
        with self._lock:
            store, self._store = self._store, None
        if store is not None:
            store.close()

    def public(self, text: str) -> str:
        """`text` fit for an answer: without the server's paths (`without_paths`)."""
        return without_paths(text, self.path, self.path.parent)

    def _failed(self, exc: BaseException) -> StrategyUnavailableError:
        """A read failed mid-flight (file replaced, corrupted): drop the handle, reopen later."""
        log.error("reading the strategy store %s failed: %s", self.path, exc)
        message = self.public(f"reading the strategy store {self.path.name} failed ({exc}); if "
                              f"the file was damaged, {BUILD_HINT} to rebuild it")
        with self._lock:
            store, self._store = self._store, None
            self._error = message
            self._tried = time.monotonic()
        if store is not None:
            store.close()
        return StrategyUnavailableError(message)

    # ---- reads -----------------------------------------------------------------------------

    def latest_solve(self, game: str) -> SolveInfo | None:
        store = self.store()
        try:
            return store.latest_solve(game)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def solve(self, game: str) -> SolveInfo:
        """The latest solve of `game`; `StrategyUnavailableError` (503) if there is none."""
        info = self.latest_solve(game)
        if info is None:
            raise self._unsolved(game)
        return info

    def _unsolved(self, game: str) -> GameNotReadyError:
        """Why `game` has no strategy to play yet, with its background build's progress."""
        found = self.building().get(game)
        report: dict[str, Any] = found or {}
        title = get_game(game).title
        state = report.get("state")
        if state == "building":
            where = f": {report['step']}" if report.get("step") else ""
            if report.get("phase") and report.get("phases"):
                where += f" (step {report['phase']} of {report['phases']})"
            done = (f", {report['fraction']:.0%} done" if report.get("fraction") is not None
                    else "")
            left = (f", about {minutes(report['remaining_seconds'])} left"
                    if report.get("remaining_seconds") else "")
            why = f"{title} is being built in the background{where}{done}{left}"
        elif state == "waiting":
            starts = (f" (it starts in about {minutes(report['starts_in_seconds'])})"
                      if report.get("starts_in_seconds") else "")
            why = f"{title} is waiting its turn in the background build{starts}"
        elif state == "failed":
            why = (f"{title} is not built: its background build failed ({report['message']}); "
                   "the app tries again when it next starts")
        else:
            why = (f"{title} is not built on this server yet; `python -m solver build --games "
                   f"{game}` builds it")
        return GameNotReadyError(f"no solved strategy for {game!r} yet: {why}. It can be "
                                 "played once it is built; the other games can be played "
                                 "meanwhile", game, found)

    def require(self, game: str) -> int:
        """The latest solve id of `game`; `StrategyUnavailableError` (503) if there is none.
        The check before a match or a hand: cheaper than :meth:`solve`."""
        store = self.store()
        try:
            solve_id = store.latest_solve_id(game)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc
        if solve_id is None:
            raise self._unsolved(game)
        return solve_id

    def infoset(self, game: str, key: str) -> InfosetStrategy | None:
        store = self.store()
        try:
            return store.infoset(game, key)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def strategy(self, game: str) -> dict[str, InfosetStrategy]:
        store = self.store()
        try:
            return store.strategy(game)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def infoset_page(self, game: str, *, prefix: str = "", contains: str = "",
                     private: str | None = None, public_prefix: str = "",
                     node: int | None = None, offset: int = 0, limit: int | None = None
                     ) -> tuple[int, list[InfosetStrategy]]:
        store = self.store()
        try:
            return store.infoset_page(game, prefix=prefix, contains=contains, private=private,
                                      public_prefix=public_prefix, node=node, offset=offset,
                                      limit=limit)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def nodes(self, game: str, *, parent: int | None = None, idx: int | None = None
              ) -> list[PublicNode]:
        store = self.store()
        try:
            return store.nodes(game, parent=parent, idx=idx)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def trace(self, solve_id: int) -> list[TracePoint]:
        store = self.store()
        try:
            return store.trace(solve_id)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def building(self) -> dict[str, dict[str, Any]]:
        """The games a background build still has to build, with its report on each: the
        one it builds (``state`` building, with how far it has come and how long it and the
        whole build still take), those after it (waiting, with when each starts) and those
        that failed (with why; a build whose process died is one)."""
        report = build_report(self.build_status) if self.build_status is not None else None
        if not report:
            return {}
        games: dict[str, dict[str, Any]] = {}
        current = report.get("current")
        ahead = None
        if current:
            now = time.time()
            progress = estimate(report, now)
            done, total = report.get("done"), report.get("total")
            games[str(current)] = {
                "state": "building", "step": report.get("step"),
                "phase": progress["phase"], "phases": progress["phases"],
                "fraction": progress["fraction"],
                "step_fraction": done / total if total and done is not None else None,
                "remaining_seconds": progress["remaining_seconds"],
                "build_remaining_seconds": progress["build_remaining_seconds"]}
            ahead = progress["remaining_seconds"]
        estimates = report.get("estimates") or {}
        for name in report.get("pending", []):
            games[str(name)] = {"state": "waiting", "starts_in_seconds": ahead}
            took = estimates.get(name)
            ahead = ahead + float(took) if ahead is not None and took is not None else None
        for name, message in (report.get("failed") or {}).items():
            games[str(name)] = {"state": "failed", "message": self.public(str(message))}
        return games

    def status(self) -> StoreStatus:
        """For ``/healthz`` and the logs at start-up."""
        try:
            store = self.store()
            solved = set(store.games())
        except StrategyUnavailableError as exc:
            return StoreStatus(self.path, exc.message, (), _listed())
        except _STORE_FAILURES as exc:
            return StoreStatus(self.path, self._failed(exc).message, (), _listed())
        ready = tuple(g for g in game_names() if g in solved)
        return StoreStatus(self.path, None, ready,
                           tuple(g for g in _listed() if g not in solved))


def _listed() -> tuple[str, ...]:
    return tuple(g for g in game_names() if get_game(g).listed)

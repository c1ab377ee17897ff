"""Access to the strategy store that never takes the app down.

A missing or corrupt store is logged at start-up and reported by ``/healthz``; every request that
needs a strategy then gets a :class:`StrategyUnavailableError` naming the problem and
the fix. The store is opened again on demand, so building it while the app runs brings the games
online without a restart. A game whose strategy is not built yet (being built in the background,
waiting, failed) is a :class:`GameNotReadyError` saying so, with its build's progress.

Messages that leave the app never name a path of the server: the store's file is named by its
name alone (the logs keep the whole path).
"""

from __future__ import annotations

import logging
import re
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy.exc import SQLAlchemyError

from app.core.errors import GameNotReadyError, StrategyUnavailableError
from solver.abstractions import abstraction_for
from solver.abstractions.play_time import ComputedAtPlayTime
from solver.engine.estimates import Span, estimate, pace, waiting, words
from solver.games import game_names, get_game, get_view
from solver.runs.build_status import build_report
from strategies import (
    InfosetStrategy,
    PublicNode,
    SolveInfo,
    StoreError,
    StrategyStore,
    TracePoint,
)
from strategies.figures import WORDS as FIGURE_WORDS
from strategies.tables import TableStrategy

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
    incomplete: dict[str, str] = field(default_factory=dict)
    """Games whose stored solve lacks a piece it needs, with why (not among `ready`)."""


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
        self.warming = False
        """Whether the app warms each new solve (`app.services.bots.warm`): until one is warm,
        requests run off the event loop (`light`)."""
        self._warm: set[int] = set()
        self._light: tuple[object, bool] | None = None
        self._computed: dict[int, bool] = {}

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

    # ---- what may run on the event loop -------------------------------------------------------

    def mark_warm(self, solve_id: int) -> None:
        """The solve `solve_id` has been warmed (`app.services.bots.warm`)."""
        with self._lock:
            self._warm.add(solve_id)
            self._light = None

    def cold_games(self) -> list[str]:
        """The stored games whose latest solve has not been warmed."""
        return [game for game, sid in self._latest_ids().items() if sid not in self._warm]

    def light(self) -> bool:
        """Whether a request may do its work on the event loop: every stored game's latest
        solve is warm (if the app warms them) and none computes its strategy at play time
        (a re-solving bot: a decision takes a fraction of a second). When not, requests run
        in the thread pool, so that a slow one never holds up the others nor ``/healthz``.
        Worked out again only when the store changes, or a solve is warmed."""
        try:
            store = self.store()
            key = (id(store), store.data_version(), len(self._warm))
            known = self._light
            if known is not None and known[0] == key:
                return known[1]
            latest = self._latest_ids()
            light = (not (self.warming and any(s not in self._warm for s in latest.values()))
                     and not any(self._computes(g, s) for g, s in latest.items()))
        except (StrategyUnavailableError, *_STORE_FAILURES):
            return True  # every read fails at once: nothing to hold the loop
        self._light = (key, light)
        return light

    def _latest_ids(self) -> dict[str, int]:
        store = self.store()
        known = set(game_names())
        try:
            ids = {game: store.latest_solve_id(game) for game in store.games() if game in known}
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc
        return {game: sid for game, sid in ids.items() if sid is not None}

    def _computes(self, game: str, solve_id: int) -> bool:
        """Whether the solve's strategy is computed at play time (cached per solve)."""
        known = self._computed.get(solve_id)
        if known is None:
            info = self.latest_solve(game)
            try:
                abstraction = abstraction_for(get_game(game), info.abstraction if info else "")
            except (ValueError, KeyError):
                abstraction = None
            known = self._computed[solve_id] = isinstance(abstraction, ComputedAtPlayTime)
        return known

    # ---- reads -----------------------------------------------------------------------------

    def latest_solve(self, game: str) -> SolveInfo | None:
        store = self.store()
        try:
            return store.latest_solve(game)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def solve(self, game: str) -> SolveInfo:
        """The latest solve of `game`; `GameNotReadyError` if there is none,
        `StrategyUnavailableError` if it lacks a figure it needs."""
        info = self.latest_solve(game)
        if info is None:
            raise self._unsolved(game)
        if (why := self._lacking(game, info.id)) is not None:
            raise StrategyUnavailableError(why)
        return info

    def _unsolved(self, game: str) -> GameNotReadyError:
        """Why `game` has no strategy to play yet, with its background build's progress."""
        found = self.building().get(game)
        report: dict[str, Any] = found or {}
        title = get_game(game).title
        state = report.get("state")
        if state == "building":
            where = f": {report['doing']}" if report.get("doing") else ""
            if report.get("phase") and report.get("phases"):
                where += f" (step {report['phase']} of {report['phases']})"
            done = (f", {report['fraction']:.0%} done" if report.get("fraction") is not None
                    else "")
            left = _span(report, "remaining")
            why = (f"{title} is being built in the background{where}{done}"
                   + (f", {words(left)} left" if left is not None else ""))
        elif state == "waiting":
            starts = _span(report, "starts_in")
            why = (f"{title} is waiting its turn in the background build"
                   + (f" (it starts in {words(starts)})" if starts is not None else ""))
        elif state == "failed":
            why = (f"{title} is not built: its background build failed ({report['message']}); "
                   "the app tries again when it next starts")
        else:
            why = (f"{title} has not been built on this server yet; `python -m solver build "
                   f"--games {game}` builds it")
        why += ". It can be played once it is built; the other games can be played meanwhile"
        return GameNotReadyError(f"no solved strategy for {game!r} yet: {why}", game, found, why)

    def require(self, game: str) -> int:
        """The latest solve id of `game`; `StrategyUnavailableError` if there is none.
        The check before a match or a hand: cheaper than :meth:`solve`."""
        store = self.store()
        try:
            solve_id = store.latest_solve_id(game)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc
        if solve_id is None:
            raise self._unsolved(game)
        if (why := self._lacking(game, solve_id)) is not None:
            raise StrategyUnavailableError(why)
        return solve_id

    def infoset(self, game: str, key: str, solve_id: int | None = None
                ) -> InfosetStrategy | None:
        """The information set `key` of the latest solve of `game`, or of its solve
        `solve_id` (an exploitable opponent)."""
        store = self.store()
        try:
            return store.infoset(game, key, solve_id)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def opponent(self, game: str, opponent: str) -> SolveInfo | None:
        """The latest solve of the exploitable `opponent` of `game`, or None."""
        store = self.store()
        try:
            return store.latest_solve(game, opponent)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def opponents(self, game: str) -> list[SolveInfo]:
        """The exploitable opponents of `game` stored, the most exploitable first."""
        store = self.store()
        try:
            return store.opponents(game)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def table_strategy(self, game: str) -> TableStrategy | None:
        """The latest solve's strategy tables, or None if it is stored as rows."""
        store = self.store()
        try:
            return store.table_strategy(game)
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

    def node_count(self, solve_id: int) -> int:
        """How many nodes of its public tree the solve `solve_id` stored (0: none)."""
        store = self.store()
        try:
            return store.node_count(solve_id)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def figures(self, solve_id: int) -> dict[str, Any]:
        """The figures stored with the solve `solve_id` (`strategies.figures`), by name."""
        store = self.store()
        try:
            return store.figures(solve_id)
        except _STORE_FAILURES as exc:
            raise self._failed(exc) from exc

    def incomplete(self) -> dict[str, str]:
        """The stored games whose latest solve lacks a figure its game needs
        (`GameView.required_figures`), each with why and how to build it again."""
        out = {}
        for name in game_names():
            if get_view(name).required_figures and (info := self.latest_solve(name)):
                why = self._lacking(name, info.id)
                if why is not None:
                    out[name] = why
        return out

    def _lacking(self, game: str, solve_id: int) -> str | None:
        """Why the solve `solve_id` of `game` cannot be played, if it lacks a figure."""
        needed = get_view(game).required_figures
        if not needed:
            return None
        missing = [name for name in needed if name not in self.figures(solve_id)]
        if not missing:
            return None
        command = " ".join(get_game(game).build.command)
        return (f"the stored solve of {get_game(game).title} is incomplete: it lacks "
                f"{' and '.join(FIGURE_WORDS.get(m, m) for m in missing)} (a store of an older "
                f"version kept it in a file beside it, which was not there when the store "
                f"was upgraded); `python -m solver {command}` builds it again")

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
        ahead: Span | None = None
        if current:
            progress = estimate(report, time.time())
            done, total = report.get("done"), report.get("total")
            ahead = progress["left"]
            games[str(current)] = {
                "state": "building", "step": report.get("step"), "making": report.get("making"),
                "phase_name": progress["phase_name"], "doing": progress["phase_words"],
                "phase": progress["phase"], "phases": progress["phases"],
                "fraction": progress["fraction"],
                "step_fraction": done / total if total and done is not None else None,
                **_fields("remaining", progress["left"]),
                **_fields("build_remaining", progress["build_left"])}
        at = pace(report.get("measured") or [])
        estimates = report.get("estimates") or {}
        for name in report.get("pending", []):
            games[str(name)] = {"state": "waiting", **_fields("starts_in", ahead)}
            took = estimates.get(name)
            ahead = ahead + waiting(took, at) if ahead is not None and took is not None else None
        for name, message in (report.get("failed") or {}).items():
            games[str(name)] = {"state": "failed", "message": self.public(str(message))}
        return games

    def status(self) -> StoreStatus:
        """For ``/healthz`` and the logs at start-up."""
        try:
            store = self.store()
            solved = set(store.games())
            incomplete = self.incomplete()
        except StrategyUnavailableError as exc:
            return StoreStatus(self.path, exc.message, (), _listed())
        except _STORE_FAILURES as exc:
            return StoreStatus(self.path, self._failed(exc).message, (), _listed())
        ready = tuple(g for g in game_names() if g in solved and g not in incomplete)
        return StoreStatus(self.path, None, ready,
                           tuple(g for g in _listed() if g not in solved), incomplete)


def _fields(name: str, span: Span | None) -> dict[str, float | None]:
    """A span as a build report's fields: ``<name>_seconds`` (the likely figure), ``_low`` and
    ``_high``."""
    if span is None:
        return {f"{name}_seconds": None, f"{name}_low": None, f"{name}_high": None}
    return {f"{name}_seconds": span.mid, f"{name}_low": span.low, f"{name}_high": span.high}


def _span(report: dict[str, Any], name: str) -> Span | None:
    """The span a build report's fields keep (`_fields`), or None if it has none."""
    low = report.get(f"{name}_low")
    if low is None:
        return None
    return Span(float(low), report.get(f"{name}_seconds"), report.get(f"{name}_high"))


def _listed() -> tuple[str, ...]:
    return tuple(g for g in game_names() if get_game(g).listed)

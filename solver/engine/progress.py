"""Progress of long work, on the terminal and, for a build running in the background, in a file.

Every long computation of the solver shows a tqdm bar made by `progress_bar`. When the
environment names a status file (``SOLVER_STATUS_FILE``, set by ``python -m solver build
--background``), the bar also writes where it stands there as JSON, at most twice a second, so
that the app can show a newcomer how far the build of a game has come while it serves the games
that are ready.

A build is a few phases (`declare_phases`: their names, planned seconds and plain words), each
entered by `phase` whether or not a bar follows, so that the status never sits on the last bar
of a phase that is over while the next one works without one; each phase that ends adds its
planned and actual seconds to what the build has measured of this machine's pace
(``measured``), from which `solver.engine.estimates` tells how far the current game has come
and how long it and the whole background build still take. With
``SOLVER_PLAIN_PROGRESS`` set (a build writing to a log file) the bars draw nothing and a plain
line says where the work stands every minute instead of runs of carriage returns.
"""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from tqdm import tqdm

from solver.engine import estimates
from solver.engine.estimates import minutes

STATUS_ENV = "SOLVER_STATUS_FILE"
PLAIN_ENV = "SOLVER_PLAIN_PROGRESS"
WRITE_INTERVAL = 0.5
"""Seconds between two writes of the status file by one bar."""
PLAIN_INTERVAL = 60.0
"""Seconds between two plain progress lines of one bar."""


def write_status(path: Path, status: dict[str, Any]) -> None:
    """Replace the status file at once (a reader never sees half of it)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    temporary.write_text(json.dumps(status), encoding="utf-8")
    temporary.replace(path)


def read_status(path: Path) -> dict[str, Any] | None:
    """The status a build wrote, or None if there is none (or it cannot be read)."""
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return loaded if isinstance(loaded, dict) else None


def _status_path() -> Path | None:
    target = os.environ.get(STATUS_ENV, "").strip()
    return Path(target) if target else None


def _plain() -> bool:
    return bool(os.environ.get(PLAIN_ENV, "").strip())


def say(text: str) -> None:
    """A plain progress line, time-stamped, for a build's log (only with `PLAIN_ENV` set)."""
    if _plain():
        print(f"[{time.strftime('%H:%M:%S')}] {text}", file=sys.stderr, flush=True)


class Phase(NamedTuple):
    """A phase of a build: its name (the solver's), its planned seconds, what it does in words a
    player understands, and whether it runs for a fixed time (a solve of so many minutes)."""

    name: str
    seconds: float
    words: str = ""
    fixed: bool = False


def declare_phases(phases: Sequence[Phase]) -> None:
    """The phases of the build that starts now."""
    path = _status_path()
    if path is None:
        return
    status = read_status(path) or {}
    status.update(phases=[[p.name, float(p.seconds), p.words, p.fixed] for p in phases],
                  phase=None, phase_started=None, **_NO_STEP, updated=time.time())
    write_status(path, status)


_NO_STEP: dict[str, Any] = {"step": None, "done": None, "total": None, "unit": None,
                            "rate": None, "remaining_seconds": None}


def finish_phase(status: dict[str, Any], now: float) -> None:
    """Add the phase under way in `status` to what the build has measured of this machine's
    pace (``measured``: planned and actual seconds of each finished phase of a variable
    length), as it ends."""
    index, started = status.get("phase"), status.get("phase_started")
    phases = status.get("phases") or []
    if not isinstance(index, int) or not 0 <= index < len(phases) or started is None:
        return
    entry = phases[index]
    if len(entry) > 3 and entry[3]:
        return  # a fixed length says nothing of the pace
    status["measured"] = [*(status.get("measured") or []),
                          [float(entry[1]), max(0.0, now - float(started))]]
    status["phase"] = None


def phase(name: str) -> None:
    """Enter the phase called `name` (one of those declared, or one more); the one it follows
    is over."""
    path = _status_path()
    status = (read_status(path) or {}) if path is not None else {}
    now = time.time()
    finish_phase(status, now)
    names = [str(p[0]) for p in status.get("phases") or []]
    index = names.index(name) if name in names else None
    if index is not None:
        entry = status["phases"][index]
        fixed = bool(entry[3]) if len(entry) > 3 else False
        span = estimates.planned(float(entry[1]), estimates.pace(status.get("measured") or []),
                                 fixed)
        say(f"{name} ({estimates.words(span)})")
    else:
        say(name)
    if path is None:
        return
    status.update({**_NO_STEP, "phase": index, "phase_name": name, "phase_started": now,
                   "step": name, "updated": now})
    write_status(path, status)


class StatusBar(tqdm):  # type: ignore[type-arg]
    """A tqdm bar that also reports to the status file named by `SOLVER_STATUS_FILE`, merging
    its fields (``step``, ``done``, ``total``, ``unit``, ``rate``, ``remaining_seconds``) into
    what the build wrote there."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._status_path = _status_path()
        self._written = 0.0
        self._said = time.monotonic()
        if _plain():  # lines in a log, not a bar's carriage returns
            kwargs["disable"] = True
        # Kept here too: a bar disabled on the terminal (--quiet) still reports.
        self._step = str(kwargs.get("desc") or "")
        self._total = kwargs.get("total")
        self._unit = str(kwargs.get("unit") or "it")
        # A resumed run starts at `initial`: it counts towards done, not towards the rate.
        self._initial = float(kwargs.get("initial") or 0)
        self._count = self._initial
        self._started = time.monotonic()
        self._closed = False
        super().__init__(*args, **kwargs)
        self._report(force=True, say=False)  # the status says at once which step this is

    def update(self, n: float | None = 1) -> bool | None:
        self._count += n or 0
        shown: bool | None = super().update(n)
        self._report(force=False)
        return shown

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._report(force=True)
        super().close()

    def _report(self, force: bool, say: bool = True) -> None:
        now = time.monotonic()
        elapsed = now - self._started
        work = self._count - self._initial
        rate = work / elapsed if elapsed > 0 and work else None
        total = self._total
        remaining = ((total - self._count) / rate) if total and rate else None
        if say and _plain() and (force or now - self._said >= PLAIN_INTERVAL):
            self._said = now
            left = f", about {minutes(remaining)} left" if remaining else ""
            globals()["say"](f"{self._step}: {self._count:,.0f}"
                             + (f"/{total:,.0f}" if total else "") + f" {self._unit}{left}")
        if self._status_path is None:
            return
        if not force and now - self._written < WRITE_INTERVAL:
            return
        self._written = now
        status = read_status(self._status_path) or {}
        status.update(step=self._step, done=float(self._count),
                      total=float(total) if total else None, unit=self._unit,
                      rate=rate, remaining_seconds=remaining, updated=time.time())
        write_status(self._status_path, status)


def progress_bar(*args: Any, **kwargs: Any) -> StatusBar:
    """`tqdm(...)`, reporting to the status file when a background build runs."""
    return StatusBar(*args, **kwargs)

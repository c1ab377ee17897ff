"""Progress of long work, on the terminal and, for a build running in the background, in a file.

Every long computation of the solver shows a tqdm bar made by `progress_bar`. When the
environment names a status file (``SOLVER_STATUS_FILE``, set by ``python -m solver build
--background``), the bar also writes where it stands there as JSON, at most twice a second, so
that the app can show a newcomer how far the build of a game has come while it serves the games
that are ready.

A build is a few phases (`declare_phases`: their names and estimated seconds), each entered by
`phase` whether or not a bar follows, so that the status never sits on the last bar of a phase
that is over while the next one works without one; `estimate` turns that into the current
game's fraction and the time left for it and for the whole background build. With
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
from typing import Any

from tqdm import tqdm

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


def minutes(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def declare_phases(phases: Sequence[tuple[str, float]]) -> None:
    """The phases of the build that starts now, with their estimated seconds."""
    path = _status_path()
    if path is None:
        return
    status = read_status(path) or {}
    status.update(phases=[[name, float(seconds)] for name, seconds in phases], phase=None,
                  phase_started=None, **_NO_STEP, updated=time.time())
    write_status(path, status)


_NO_STEP: dict[str, Any] = {"step": None, "done": None, "total": None, "unit": None,
                            "rate": None, "remaining_seconds": None}


def phase(name: str) -> None:
    """Enter the phase called `name` (one of those declared, or one more)."""
    path = _status_path()
    status = (read_status(path) or {}) if path is not None else {}
    names = [str(n) for n, _ in status.get("phases") or []]
    index = names.index(name) if name in names else None
    expected = f" (about {minutes(status['phases'][index][1])})" if index is not None else ""
    say(f"{name}{expected}")
    if path is None:
        return
    now = time.time()
    status.update({**_NO_STEP, "phase": index, "phase_name": name, "phase_started": now,
                   "step": name, "updated": now})
    write_status(path, status)


def estimate(status: dict[str, Any], now: float | None = None) -> dict[str, Any]:
    """How far the game being built has come and how long it and the whole background build
    still take, from a status file's fields: the current phase's remaining time (its bar's,
    measured and counted down since it was written, or else what is left of the phase's
    estimate), the later phases' estimates, and the estimates of the games still waiting."""
    now = time.time() if now is None else now
    since = max(0.0, now - float(status.get("updated") or now))
    step_left = status.get("remaining_seconds")
    step_left = max(0.0, float(step_left) - since) if step_left is not None else None
    phases = [(str(n), float(t)) for n, t in status.get("phases") or []]
    index = status.get("phase")
    fraction = None
    if phases and isinstance(index, int) and 0 <= index < len(phases):
        in_phase = now - float(status.get("phase_started") or now)
        current = step_left if step_left is not None else max(0.0, phases[index][1] - in_phase)
        left: float | None = current + sum(t for _, t in phases[index + 1:])
    else:
        left = step_left
        done, total = status.get("done"), status.get("total")
        fraction = done / total if total and done is not None else None
    started = status.get("started")
    if left is not None and started is not None:
        elapsed = max(0.0, now - float(started))
        fraction = elapsed / (elapsed + left) if elapsed + left > 0 else None
    pending = status.get("pending_seconds")
    return {"fraction": fraction, "remaining_seconds": left,
            "build_remaining_seconds": (left + float(pending)
                                        if left is not None and pending is not None else None),
            "phase": index + 1 if isinstance(index, int) else None,
            "phases": len(phases) or None}


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

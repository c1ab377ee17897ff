"""Progress of long work, on the terminal and, for a build running in the background, in a file.

Every long computation of the solver shows a tqdm bar made by `progress_bar`. When the
environment names a status file (``SOLVER_STATUS_FILE``, set by ``python -m solver build
--background``), the bar also writes where it stands there as JSON, at most twice a second, so
that the app can show a newcomer how far the build of a game has come while it serves the games
that are ready.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from tqdm import tqdm

STATUS_ENV = "SOLVER_STATUS_FILE"
WRITE_INTERVAL = 0.5
"""Seconds between two writes of the status file by one bar."""


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


class StatusBar(tqdm):  # type: ignore[type-arg]
    """A tqdm bar that also reports to the status file named by `SOLVER_STATUS_FILE`, merging
    its fields (``step``, ``done``, ``total``, ``unit``, ``rate``, ``remaining_seconds``) into
    what the build wrote there."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        target = os.environ.get(STATUS_ENV, "").strip()
        self._status_path = Path(target) if target else None
        self._written = 0.0
        # Kept here too: a bar disabled on the terminal (--quiet) still reports.
        self._step = str(kwargs.get("desc") or "")
        self._total = kwargs.get("total")
        self._unit = str(kwargs.get("unit") or "it")
        self._count = 0.0
        self._started = time.monotonic()
        super().__init__(*args, **kwargs)

    def update(self, n: float | None = 1) -> bool | None:
        self._count += n or 0
        shown: bool | None = super().update(n)
        self._report(force=False)
        return shown

    def close(self) -> None:
        self._report(force=True)
        super().close()

    def _report(self, force: bool) -> None:
        if self._status_path is None:
            return
        now = time.monotonic()
        if not force and now - self._written < WRITE_INTERVAL:
            return
        self._written = now
        elapsed = now - self._started
        rate = self._count / elapsed if elapsed > 0 and self._count else None
        total = self._total
        remaining = ((total - self._count) / rate) if total and rate else None
        status = read_status(self._status_path) or {}
        status.update(step=self._step, done=float(self._count),
                      total=float(total) if total else None, unit=self._unit,
                      rate=rate, remaining_seconds=remaining, updated=time.time())
        write_status(self._status_path, status)


def progress_bar(*args: Any, **kwargs: Any) -> StatusBar:
    """`tqdm(...)`, reporting to the status file when a background build runs."""
    return StatusBar(*args, **kwargs)

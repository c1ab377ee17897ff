"""What the app reads of the background build (`solver.runs.background`): the games it has
still to build, and where it stands, from its status file and its lock.

The build holds a lock (``<status>.lock``) while it works; `build_report` tells whether a build
the status file says is under way still has a process behind it, so that a build killed with
the app, or any other way, shows as stopped, and the next start tries again. Light on purpose:
the app imports it, and nothing of the solvers.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Any

from solver.engine.progress import read_status
from solver.games import game_names, get_game
from strategies import StoreError, StrategyStore

STOPPED = ("the build stopped before it finished (the process was stopped or killed); the next "
           "start of the app tries again")


def background_games(store_path: str | os.PathLike[str] | None) -> list[str]:
    """The lobby's games that take long (`BuildPlan.background`) and the store does not hold
    yet, or holds as an earlier default bot that their build replaces
    (`BuildPlan.supersedes`): what a background build makes, in the lobby's order."""
    latest: dict[str, str | None] = {}
    try:
        with StrategyStore.open(Path(store_path) if store_path else None) as store:
            for name in store.games():
                info = store.latest_solve(name)
                latest[name] = info.abstraction if info is not None else None
    except StoreError:
        latest = {}
    out = []
    for name in game_names():
        plan = get_game(name).build
        if not (get_game(name).listed and plan.background):
            continue
        if name not in latest or latest[name] in plan.supersedes:
            out.append(name)
    return out


def background_opponents(store_path: str | os.PathLike[str] | None) -> list[tuple[str, str]]:
    """The thinking opponents (`BuildPlan.thinking`) of the lobby's games that the store does
    not hold yet, as (game, opponent) pairs in the lobby's order: what a background build
    makes after the games."""
    held: set[tuple[str, str]] = set()
    try:
        with StrategyStore.open(Path(store_path) if store_path else None) as store:
            for name in store.games():
                held.update((name, o.opponent) for o in store.opponents(name))
    except StoreError:
        held = set()
    return [(name, opponent) for name in game_names() if get_game(name).listed
            for opponent in get_game(name).build.thinking if (name, opponent) not in held]


def lock_path(status_path: Path | None) -> Path:
    assert status_path is not None
    return status_path.with_suffix(".lock")


def _held(path: Path) -> bool:
    """Whether some process holds the lock at `path` (a shared lock taken and let go at once:
    it fails while a build holds its exclusive one)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # closing lets go of a lock taken here
    return False


def build_report(status_path: Path) -> dict[str, Any] | None:
    """The status a background build wrote, or None; a build it says is under way whose
    process is gone (killed with the app, by the kernel, or any other way) is reported as
    stopped: its game failed with `STOPPED`, and the games after it no longer wait."""
    report = read_status(status_path)
    if not report or not report.get("current") or _held(lock_path(status_path)):
        return report
    failed = dict(report.get("failed") or {})
    failed[str(report["current"])] = STOPPED
    for game in report.get("pending") or []:
        failed.setdefault(str(game), STOPPED)
    return {**report, "current": None, "pending": [], "failed": failed, "stopped": True}

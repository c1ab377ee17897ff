"""``python -m solver build --background``: the lobby's long builds, one after the other, each in
a process of its own, reporting to a status file the app reads.

A store of an earlier version first gets the style figures its solves lack
(`solver.runs.figures`). A build that runs out of memory is killed by the kernel without a
word; in a process of its own that leaves this one alive to say so (the lobby shows the game as
failed, with why) and to go on with the next game. Before a game starts, its plan
(`solver.runs.run_plan`) is checked against the memory available, so one that cannot fit is refused
with a message instead of being killed 75 seconds in. The builds write plain progress lines
(``SOLVER_PLAIN_PROGRESS``) to the log.

This process holds a lock (``<status>.lock``) while it works; `solver.runs.build_status` tells a
reader (the app) whether a build the status file says is under way still has a process behind
it.
"""

from __future__ import annotations

import fcntl
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from solver.engine import estimates
from solver.engine.progress import PLAIN_ENV, STATUS_ENV, finish_phase, read_status, write_status
from solver.games import game_names, get_game
from solver.games.opponents import THINKING
from solver.runs.build_status import background_games, background_opponents, lock_path
from solver.runs.figures import lacking_style
from solver.runs.run_plan import RunPlan

LOCK_ATTEMPTS = 50
"""Tries (10 ms apart) to take the lock: a reader checking it holds it for a moment."""

Planner = Callable[[Sequence[str]], RunPlan]
"""The plan of ``python -m solver`` arguments, without running them (the CLI parses them)."""


def command_of(game: str, store: str | None) -> list[str]:
    """The ``python -m solver`` arguments that build `game` into `store`."""
    return [*get_game(game).build.command, *(["--store", store] if store else [])]


def build_in_background(plan_of: Planner, store: str | None, status_path: Path | None,
                        only: Sequence[str] | None = None) -> int:
    """Build the games `background_games` names (those of `only`, if given), in the lobby's
    order, each followed by its thinking opponents the store lacks (`background_opponents`;
    the status names the game and, as ``making``, the opponent), each by its own command in a
    process of its own, reporting to `status_path`; `plan_of` tells what each command will
    take before it runs.  One such build at a time per status file: a second one finds the
    first at work and leaves.  A build that fails (refused, killed, an error) is reported and
    the build goes on with the next (an opponent's failure in the log alone: its game plays on
    without it)."""
    lock = _exclusive(lock_path(status_path)) if status_path is not None else None
    if status_path is not None and lock is None:
        print("another background build is at work", file=sys.stderr)
        return 0
    if lacking_style(store):  # a store of an earlier version: its figures first (minutes)
        _say("working out the style figures the stored solves lack: python -m solver figures")
        problem = _run(["figures", *(["--store", store] if store else [])], None, ("figures",))
        _say(f"the figures failed: {problem}" if problem is not None else "figures stored")
    games = [g for g in background_games(store) if not only or g in only]
    opponents = [(g, o) for g, o in background_opponents(store) if not only or g in only]
    jobs = []
    for game in [g for g in game_names() if g in games or g in dict(opponents)]:
        if game in games:
            jobs.append(_Job(game, command_of(game, store), tuple(get_game(game).build.command)))
        for name in (o for g, o in opponents if g == game):
            thinking = THINKING[name]
            jobs.append(_Job(game, [*thinking.command, *(["--store", store] if store else [])],
                             thinking.command, thinking.title))
    plans: dict[int, RunPlan] = {}
    failed: dict[str, str] = {}
    for index, job in enumerate(jobs):
        try:
            plans[index] = plan_of(job.command)
        except (ValueError, SystemExit) as error:
            why = f": {error}" if isinstance(error, ValueError) else ""
            failed[job.game] = (f"its build command `python -m solver {' '.join(job.shown)}` "
                                f"cannot run{why}")
    started = time.time()
    measured: list[list[float]] = []  # (planned, actual) seconds of each finished phase
    for position, job in enumerate(jobs):
        if position not in plans:
            continue
        later = [i for i in range(position + 1, len(jobs)) if i in plans]
        plan = plans[position]
        if status_path is not None:
            write_status(status_path, {
                "current": job.game, "making": job.making,
                "pending": [jobs[i].game for i in later if jobs[i].making is None],
                "failed": failed, "position": position + 1, "of": len(jobs),
                "started": time.time(), "build_started": started, "measured": measured,
                "estimates": {jobs[i].game: _split(plans[i]) for i in [position, *later]
                              if i == position or jobs[i].making is None}})
        span = estimates.waiting(_split(plan), estimates.pace(measured))
        what = job.making or job.game
        _say(f"building {what}: python -m solver {' '.join(job.command)} "
             f"({estimates.words(span)}; {plan.estimate.text()})")
        problem = _run(job.command, status_path, job.shown)
        if status_path is not None:
            measured = _measured(status_path, finished=problem is None)
        if problem is not None:
            if job.making is None:
                failed[job.game] = problem
            _say(f"{what} failed: {problem}")
        else:
            _say(f"{what} built")
    if status_path is not None:
        write_status(status_path, {"current": None, "pending": [], "failed": failed,
                                   "finished": time.time(), "measured": measured})
    return 1 if failed else 0


@dataclass(frozen=True, slots=True)
class _Job:
    """One build: a game's, or (`making` its title) one of its thinking opponents'; `shown`
    is its command as a message names it (without the store's path)."""

    game: str
    command: list[str]
    shown: tuple[str, ...]
    making: str | None = None


def _split(plan: RunPlan) -> list[float]:
    """A game's plan as the status file keeps it: the seconds that scale with the machine's
    pace, and those of a fixed length."""
    return [round(plan.seconds - plan.fixed_seconds, 1), round(plan.fixed_seconds, 1)]


def _measured(status_path: Path, finished: bool) -> list[list[float]]:
    """What the build has measured of this machine's pace once a game's process is over: its
    phases', with its last one if it finished (a phase cut short says nothing)."""
    status = read_status(status_path) or {}
    if finished:
        finish_phase(status, time.time())
    return [[float(p), float(a)] for p, a in status.get("measured") or []]


def _say(text: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {text}", flush=True)


def _run(command: list[str], status_path: Path | None, shown: Sequence[str]) -> str | None:
    """Run ``python -m solver COMMAND`` in a process of its own (which refuses by itself to
    start what does not fit in memory), its output into ours; None if it built, else what
    went wrong: its last error line, or the signal that killed it (`shown` is the command as
    a message names it: without the store's path)."""
    env = {**os.environ, PLAIN_ENV: "1"}
    if status_path is not None:
        env[STATUS_ENV] = str(status_path)
    process = subprocess.Popen([sys.executable, "-m", "solver", *command], env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               errors="replace", bufsize=1)
    last_error = None
    assert process.stdout is not None
    try:
        for line in process.stdout:
            sys.stdout.write(line)
            sys.stdout.flush()
            if line.startswith("error: "):
                last_error = line.removeprefix("error: ").strip()
        code = process.wait()
    except BaseException:  # interrupted with the app: stop the build too
        process.terminate()
        process.wait()
        raise
    if code == 0:
        return None
    if code < 0:
        name = signal.Signals(-code).name
        why = (", most likely by the kernel for lack of memory" if -code == signal.SIGKILL
               else "")
        return f"the build process was killed ({name}{why})"
    return last_error or f"`python -m solver {' '.join(shown)}` exited with {code}"


def _exclusive(path: Path) -> int | None:
    """An open lock file held exclusively for the rest of the process, or None if another
    process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    for _ in range(LOCK_ATTEMPTS):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return fd
        except OSError:
            time.sleep(0.01)
    os.close(fd)
    return None

"""Building the store: the quick games, each long game by its own command, and the background
build of the long ones the lobby lists.

What to build and how comes from the games (`solver.games.base.BuildPlan`): a quick game is
solved here; a game with a command of its own (``hulhe``, ``match``, ``recall``) has it run by
the runner the caller passes, the CLI's ``main`` (a command is ``python -m solver`` arguments).
"""

from __future__ import annotations

import fcntl
import os
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from solver.algorithms.solve import resolve_algorithm
from solver.engine.progress import STATUS_ENV, write_status
from solver.games import BUILD_DEFAULTS, game_names, get_game
from solver.runs.store_solve import StorePath
from strategies import StoreError, StrategyStore

Runner = Callable[[Sequence[str]], int]
"""Runs ``python -m solver`` arguments in this process; its exit code (the CLI's ``main``)."""


def own_command(game: str, store_path: str | None, quiet: bool) -> list[str] | None:
    """The command that builds `game` when it is not a plain ``solve`` (holdem: ``hulhe``),
    with the store (and ``--quiet``) passed on; None for a game `build` solves itself."""
    command = get_game(game).build.command
    if command[:1] == ("solve",):
        return None
    own = [*command, *(["--store", store_path] if store_path else [])]
    if quiet and "--quiet" not in own:
        own.append("--quiet")
    return own


def build_algorithm(game: str, algorithm: str) -> str:
    """`algorithm` for `game`; ``auto``: the one the game declares."""
    return resolve_algorithm(get_game(game), algorithm)


def default_games() -> tuple[str, ...]:
    """What ``build`` builds when no game is named: the quick games."""
    return BUILD_DEFAULTS


def background_games(store_path: StorePath) -> list[str]:
    """The lobby's games that take long (`BuildPlan.background`) and the store does not hold
    yet: what a background build makes, in the lobby's order."""
    try:
        with StrategyStore.open(Path(store_path) if store_path else None) as store:
            solved = set(store.games())
    except StoreError:
        solved = set()
    return [g for g in game_names() if get_game(g).listed and get_game(g).build.background
            and g not in solved]


def build_in_background(run: Runner, store_path: str | None, status_file: str | None,
                        only: Sequence[str] = ()) -> int:
    """Build, one after the other, the strategies of the lobby's games that take long (see
    `background_games`; `only` those if given), each by its game's own command run by `run`,
    reporting to the status file (its progress bars write there too, `solver.engine.progress`).
    One such build at a time per status file: a second one finds the first at work and leaves.
    A game that fails is reported and the build goes on with the next."""
    status_path = Path(status_file) if status_file else None
    lock = _exclusive(status_path.with_suffix(".lock")) if status_path else None
    if status_path is not None and lock is None:
        print("another background build is at work", file=sys.stderr)
        return 0
    games = [g for g in background_games(store_path) if not only or g in only]
    failed: dict[str, str] = {}
    if status_path is not None:
        os.environ[STATUS_ENV] = str(status_path)
    for position, game in enumerate(games):
        if status_path is not None:
            write_status(status_path, {"current": game, "pending": games[position + 1:],
                                       "failed": failed, "position": position + 1,
                                       "of": len(games), "started": time.time()})
        command = [*get_game(game).build.command, *(["--store", store_path]
                                                    if store_path else [])]
        print(f"building {game}: python -m solver {' '.join(command)}", flush=True)
        try:
            code = run(command)
        except SystemExit as exit_:  # a command its parser refused
            code = exit_.code if isinstance(exit_.code, int) else 1
        except Exception as error:  # reported, and the next game is built
            code, failed[game] = 1, f"{type(error).__name__}: {error}"
        if code != 0:
            failed.setdefault(game, f"`python -m solver {' '.join(command)}` exited with {code}")
    if status_path is not None:
        write_status(status_path, {"current": None, "pending": [], "failed": failed,
                                   "finished": time.time()})
    return 1 if failed else 0


def _exclusive(path: Path) -> int | None:
    """An open lock file held exclusively for the rest of the process, or None if another
    process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd

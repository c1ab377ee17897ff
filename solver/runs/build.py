"""Building the store: the quick games here, each long game by its own command.

What to build and how comes from the games (`solver.games.base.BuildPlan`): a quick game is
solved here; a game with a command of its own (``hulhe``, ``match``, ``recall``) has it run by
the runner the caller passes, the CLI's ``main`` (a command is ``python -m solver`` arguments).
The lobby's long games are built in the background, each in a process of its own
(`solver.runs.background`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from solver.algorithms.solve import resolve_algorithm
from solver.games import BUILD_DEFAULTS, get_game

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

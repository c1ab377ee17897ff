"""The source files a game's compiled tree depends on: the module that defines the game's class
and every module of `solver` it imports, directly or not (read from the `import` statements, so
nothing is imported to find them).

A package is followed only when a name is imported from its ``__init__`` itself: ``from
solver.games.holdem import rules`` reads ``holdem/rules.py``, not the registry in
``solver/games/__init__.py`` that imports every game, so editing one game leaves the others'
sources as they were.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

ROOT_PACKAGE = "solver"
_ROOT = Path(__file__).resolve().parents[2]


def module_file(name: str) -> Path | None:
    """The file of module `name` of `solver` (a package's ``__init__.py``), or None."""
    if name != ROOT_PACKAGE and not name.startswith(ROOT_PACKAGE + "."):
        return None
    base = _ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


@functools.cache
def _imported(name: str, path: Path) -> frozenset[str]:
    """The modules of `solver` that module `name` (at `path`) imports at its top level or in
    its functions (read once a process: the games share most of theirs)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[:len(parts) - node.level + 1])
                source = f"{base}.{node.module}" if node.module else base
            else:
                source = node.module or ""
            submodules = {f"{source}.{alias.name}" for alias in node.names
                          if module_file(f"{source}.{alias.name}") is not None}
            found.update(submodules)
            if len(submodules) < len(node.names):  # some names are the package's own
                found.add(source)
    return frozenset(module for module in found if module_file(module) is not None)


@functools.cache
def module_closure(name: str) -> tuple[Path, ...]:
    """The files of module `name` and of every module of `solver` it imports, transitively,
    sorted."""
    seen: dict[str, Path] = {}
    pending = [name]
    while pending:
        module = pending.pop()
        path = module_file(module)
        if module in seen or path is None:
            continue
        seen[module] = path
        pending.extend(_imported(module, path) - seen.keys())
    return tuple(sorted(seen.values()))


def game_sources(game: object) -> tuple[Path, ...]:
    """The source files that decide `game`'s tree: its class's module and what that imports
    within `solver` (`module_closure`)."""
    return module_closure(type(game).__module__)

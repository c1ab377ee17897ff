"""The shape of the code: no import circles, no import hidden in a function to dodge one, no
module over 450 lines, an engine that knows no game, generic code that names none, and no file
name of the solver that names two things.

The import graph is read from the source with `ast` (nothing is imported): an edge for every
``import`` or ``from ... import`` at module level of a module of `app/`, `solver/` or
`strategies/`, to the most specific project module it names (``from solver.engine import
kernels`` is an edge to ``solver.engine.kernels``).  Imports under ``if TYPE_CHECKING:`` are
not edges: they never run (they let a state and its game name each other's types).  Importing a
submodule also runs its packages' ``__init__`` first; that implicit edge is not drawn (a package
whose ``__init__`` imports its submodules would be a circle with each of them), so every module
is also imported first, on its own, in a fresh interpreter.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from solver.games import game_names
from tests.conftest import REPO_ROOT

PACKAGES = ("app", "solver", "strategies")
MAX_LINES = 450
LAZY_MODULES = {"alembic", "distributed", "pokerkit", "pyspiel", "scipy", "open_spiel", "sklearn",
                "zxcvbn"}
"""Third-party modules that may be imported inside a function, because they take a second or
more to import (or are optional) and most commands never need them (zxcvbn: a tenth of a second
and 12 MB per process, for the common passwords a sign-up checks; sklearn: only a build of
hold'em's buckets clusters).  Project modules never may."""


@dataclass
class Module:
    name: str
    path: Path
    tree: ast.Module
    imports: set[str] = field(default_factory=set)
    """Project modules imported at module level (outside ``if TYPE_CHECKING:``)."""
    local: list[tuple[int, str]] = field(default_factory=list)
    """(line, imported name) of every import inside a function."""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Module]:
    found = {}
    for package in PACKAGES:
        for path in sorted((REPO_ROOT / package).rglob("*.py")):
            name = _module_name(path)
            found[name] = Module(name, path, ast.parse(path.read_text(encoding="utf-8")))
    for module in found.values():
        _read_imports(module, found)
    return found


def _resolve(name: str, modules: dict[str, Module]) -> str | None:
    """The most specific project module that `name` (a dotted import) is, or is in."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def _imported(node: ast.Import | ast.ImportFrom, module: Module,
              modules: dict[str, Module]) -> Iterator[str]:
    """The dotted names an import statement imports (before resolving)."""
    if isinstance(node, ast.Import):
        yield from (alias.name for alias in node.names)
        return
    if node.level:
        package = module.name if module.path.name == "__init__.py" else module.name.rpartition(
            ".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        base = f"{package}.{node.module}" if node.module else package
    else:
        base = node.module or ""
    for alias in node.names:
        full = f"{base}.{alias.name}"
        yield full if full in modules else base


def _is_type_checking(node: ast.If) -> bool:
    return "TYPE_CHECKING" in ast.unparse(node.test)


def _read_imports(module: Module, modules: dict[str, Module]) -> None:
    def visit(body: list[ast.stmt], in_function: bool) -> None:
        for node in body:
            if isinstance(node, ast.Import | ast.ImportFrom):
                for name in _imported(node, module, modules):
                    if in_function:
                        module.local.append((node.lineno, name))
                    elif (target := _resolve(name, modules)) is not None:
                        module.imports.add(target)
                continue
            if isinstance(node, ast.If) and _is_type_checking(node) and not in_function:
                visit(node.orelse, in_function)
                continue
            inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            for child in ast.iter_child_nodes(node):
                if isinstance(child, ast.stmt):
                    visit([child], inner)
                elif isinstance(child, ast.ExceptHandler):
                    visit(child.body, inner)

    visit(module.tree.body, False)


MODULES = _modules()


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), and self-imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1 or v in graph[v]:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_the_graph_is_read() -> None:
    assert len(MODULES) > 100
    assert "solver.engine.tree" in MODULES["solver.engine.compile"].imports
    assert "solver.engine.kernels" in MODULES["solver.algorithms.cfr"].imports


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"a"}}) == [["a"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_circles() -> None:
    cycles = _cycles({name: module.imports for name, module in MODULES.items()})
    assert not cycles, "import circles:\n" + "\n".join(" -> ".join(c) for c in cycles)


def test_no_project_import_inside_a_function() -> None:
    found = [f"{module.path.relative_to(REPO_ROOT)}:{line}: {imported}"
             for module in MODULES.values() for line, imported in module.local
             if imported.split(".")[0] in PACKAGES]
    assert not found, "project modules imported inside functions:\n" + "\n".join(found)


def test_every_lazy_import_is_a_heavy_one_and_says_why() -> None:
    """The few third-party imports left inside functions are of the heavy or optional modules
    and carry a comment saying why (the standard library's are not counted)."""
    found = []
    for module in MODULES.values():
        lines = module.path.read_text(encoding="utf-8").splitlines()
        for line, imported in module.local:
            top = imported.split(".")[0]
            if top in sys.stdlib_module_names or top in PACKAGES:
                continue
            if top not in LAZY_MODULES or "#" not in lines[line - 1]:
                found.append(f"{module.path.relative_to(REPO_ROOT)}:{line}: {imported}")
    assert not found, "lazy imports that are not heavy, or say not why:\n" + "\n".join(found)


def test_no_module_over_the_limit() -> None:
    sizes = {module.path.relative_to(REPO_ROOT): len(module.path.read_text(
        encoding="utf-8").splitlines()) for module in MODULES.values()}
    over = {str(path): n for path, n in sizes.items() if n > MAX_LINES}
    assert not over, f"modules over {MAX_LINES} lines: {over}"


def test_solver_has_no_loose_modules() -> None:
    """Every module of the solver lives in the folder of its role; at the top only the
    package, its entry point and the CLI."""
    loose = sorted(p.name for p in (REPO_ROOT / "solver").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]
    assert (REPO_ROOT / "solver" / "cli" / "__init__.py").is_file()


SHARED_NAMES: dict[str, tuple[str, ...]] = {
    "__init__": ("solver",),
    "base": ("solver/games", "solver/evaluation"),  # the interface its folder's modules share
    "game": ("solver/games",),  # a game family's `Game`
    "rules": ("solver/games",),  # a game family's rules
    "view": ("solver/games",),  # a game family's `GameView`
    "tree": ("solver/engine", "solver/games"),  # the public tree, and a family's compiler of it
    "names": ("solver/algorithms", "solver/games"),  # a thing's short names in words
    "words": ("solver/abstractions", "solver/games"),  # a thing in words, for the pages
    "policy": ("solver/algorithms", "solver/evaluation", "solver/games"),  # a strategy's answers
    "style": ("solver/evaluation", "solver/games"),  # style figures
    "opponents": ("solver/games", "solver/runs"),  # opponents bent from the equilibrium
    "solve": ("solver/algorithms", "solver/abstractions"),  # a solve to its stopping rule
}
"""The file names that recur under `solver/`, each naming the same thing wherever it does, and
the folders it may recur in.  A name (its plural alike: ``plan`` and ``plans``) that recurs
anywhere else names two things, as ``memory`` did (the machine's, and the bids a Dudo player
remembers) and ``resolving_eval`` (a measurement and the command that ran it)."""


def _recurring_names(paths: list[Path]) -> dict[str, list[Path]]:
    """The module paths under `solver/` by their file name, plural and singular as one, of the
    names that more than one module bears."""
    by_name: dict[str, list[Path]] = {}
    for path in paths:
        by_name.setdefault(path.stem.removesuffix("s"), []).append(path)
    return {name: found for name, found in by_name.items() if len(found) > 1}


def _misnamed(paths: list[Path]) -> list[str]:
    """The recurring names of `paths` (relative to the repository) that `SHARED_NAMES` does
    not allow where they stand."""
    allowed = {name.removesuffix("s"): (name, folders) for name, folders in SHARED_NAMES.items()}
    found: list[str] = []
    for name, recurring in sorted(_recurring_names(paths).items()):
        shared, folders = allowed.get(name, ("", ()))
        bearers = ", ".join(str(p) for p in recurring)
        found.extend(f"{path} ({bearers})" for path in recurring
                     if path.stem != shared or not any(path.is_relative_to(f) for f in folders))
    return found


def test_the_name_rule_finds_what_main_had() -> None:
    """Before each name said one thing: two `resolving_eval.py`, two `memory.py`, `plan.py`
    beside `plans.py`, and `tree.py` holding the values of exact solves."""
    before = [Path(p) for p in (
        "solver/runs/resolving_eval.py", "solver/evaluation/holdem/resolving_eval.py",
        "solver/engine/memory.py", "solver/abstractions/dudo_recall/memory.py",
        "solver/runs/plan.py", "solver/cli/plans.py", "solver/engine/tree.py",
        "solver/games/dudo/tree.py", "solver/evaluation/values/tree.py",
        "solver/games/dudo/game.py", "solver/games/holdem/game.py")]
    assert _misnamed(before) == [
        "solver/engine/memory.py (solver/engine/memory.py, "
        "solver/abstractions/dudo_recall/memory.py)",
        "solver/abstractions/dudo_recall/memory.py (solver/engine/memory.py, "
        "solver/abstractions/dudo_recall/memory.py)",
        "solver/runs/plan.py (solver/runs/plan.py, solver/cli/plans.py)",
        "solver/cli/plans.py (solver/runs/plan.py, solver/cli/plans.py)",
        "solver/runs/resolving_eval.py (solver/runs/resolving_eval.py, "
        "solver/evaluation/holdem/resolving_eval.py)",
        "solver/evaluation/holdem/resolving_eval.py (solver/runs/resolving_eval.py, "
        "solver/evaluation/holdem/resolving_eval.py)",
        "solver/evaluation/values/tree.py (solver/engine/tree.py, solver/games/dudo/tree.py, "
        "solver/evaluation/values/tree.py)"]


def test_a_file_name_names_one_thing() -> None:
    """Two modules of the solver share a file name only where it names the same thing (a game
    family's rules, the public tree): otherwise a reader who knows one has the other wrong."""
    paths = [module.path.relative_to(REPO_ROOT) for module in MODULES.values()
             if module.name.startswith("solver")]
    found = _misnamed(paths)
    assert not found, "file names that name two things (rename one, or add it to " \
        "SHARED_NAMES where it is one thing):\n" + "\n".join(found)


def test_the_engine_knows_no_game() -> None:
    """The engine compiles a `Game` it is handed: it imports the interface of games and nothing
    else of them, the registry least of all."""
    found = [f"{name} imports {target}" for name, module in MODULES.items()
             if name.startswith("solver.engine.")
             for target in module.imports
             if target.startswith("solver.games") and target != "solver.games.base"]
    assert not found, "\n".join(found)


APP_ROOMS: dict[str, set[str]] = {
    "app.core": set(),
    "app.db": {"app.core"},
    "app.schemas": {"app.core"},
    "app.services.bots": {"app.core", "app.db", "app.schemas"},
    "app.services.analysis": {"app.core", "app.db", "app.schemas", "app.services.bots"},
    "app.services.play": {"app.core", "app.db", "app.schemas", "app.services.bots",
                          "app.services.analysis"},
    "app.services.players": {"app.core", "app.db", "app.schemas", "app.services.bots",
                             "app.services.analysis", "app.services.play"},
    "app.services": {"app.core", "app.db", "app.schemas"},
    "app.api": {"app.core", "app.schemas", "app.services", "app.deps"},
    "app.web": {"app.core", "app.schemas", "app.services", "app.deps", "app.api.errors"},
    "app.deps": {"app.core", "app.schemas", "app.services"},
}
"""What each room of the app may import of the app besides itself: settings and the domain's
errors at the bottom, then the play database, then the services (their rooms in the order of
`app.services`' table, none importing the package itself), then the two front ends (which
never touch the database but through the services, nor each other)."""


def _room(name: str) -> str | None:
    return next((room for room in sorted(APP_ROOMS, key=len, reverse=True)
                 if name == room or name.startswith(room + ".")), None)


def _app_room_breaches() -> list[str]:
    found = []
    for name, module in MODULES.items():
        room = _room(name)
        if room is None:
            continue
        allowed = APP_ROOMS[room] | {room}
        for target in sorted(module.imports):
            if not target.startswith("app"):
                continue
            if not any(target == a or target.startswith(a + ".") for a in allowed):
                found.append(f"{name} imports {target}")
    return found


def test_each_room_of_the_app_imports_only_the_rooms_below_it() -> None:
    breaches = _app_room_breaches()
    assert not breaches, "\n".join(breaches)


def test_the_room_check_sees_a_breach() -> None:
    assert _room("app.db.hand_store") == "app.db"
    assert _room("app.main") is None
    assert _room("app.services.play.hands") == "app.services.play"
    engine = MODULES["app.db.engine"]
    engine.imports.add("app.services")
    try:
        assert "app.db.engine imports app.services" in _app_room_breaches()
    finally:
        engine.imports.discard("app.services")


def test_the_app_does_not_reach_into_the_cli() -> None:
    found = [f"{name} imports {target}" for name, module in MODULES.items()
             if name.startswith("app") for target in module.imports
             if target.startswith("solver.cli")]
    assert not found, "\n".join(found)


def _string_constants(tree: ast.Module) -> Iterator[tuple[ast.Constant, str]]:
    """The string literals of a module's code, each with its text; docstrings (of modules,
    classes, functions and attributes: a string that is a statement of its own) left out."""
    prose = {id(node.value) for node in ast.walk(tree)
             if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                and id(node) not in prose:
            yield node, node.value


GENERIC = ("solver.engine", "solver.algorithms", "solver.resolving.resolve",
           "solver.resolving.subtree", "solver.resolving.continual", "solver.runs.build",
           "solver.runs.background", "solver.runs.build_status", "solver.runs.store_solve",
           "solver.runs.dask", "solver.runs.sizes", "solver.evaluation.stored")


@pytest.mark.parametrize("prefix", GENERIC)
def test_generic_code_names_no_game(prefix: str) -> None:
    """What suits a game (its fastest algorithm, its build command, whether it builds in the
    background, its payoff matrix) is declared by the game, so generic code holds no game's
    name."""
    names = set(game_names())
    families = {name.split("-")[0] for name in names}
    found = []
    for name, module in MODULES.items():
        if name != prefix and not name.startswith(prefix + "."):
            continue
        for node, text in _string_constants(module.tree):
            words = text.replace("(", " ").replace(",", " ").split()
            if any(w in names or w in families for w in words):
                found.append(f"{module.path.relative_to(REPO_ROOT)}:{node.lineno}: {text!r}")
    assert not found, "\n".join(found)


def _import_alone(names: list[str], packages: tuple[str, ...], cwd: Path,
                  ) -> subprocess.CompletedProcess[str]:
    """Run tests/import_alone.py on `names`, from `cwd`, the root of their sources."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    return subprocess.run([sys.executable, "-m", "tests.import_alone", ",".join(packages),
                           *names], cwd=cwd, env=env, capture_output=True, text=True,
                          check=False, timeout=600)


@pytest.mark.slow  # about 200 imports of a part of the project each (40 CPU seconds)
def test_every_module_imports_on_its_own() -> None:
    """Each module imported first, in a fresh interpreter state: no import order hides a
    circle through a package's ``__init__``."""
    # `__main__` modules run when imported; alembic runs the migrations' scripts itself.
    names = sorted(name for name in MODULES
                   if not name.endswith("__main__") and not name.startswith("app.db.migrations"))
    result = _import_alone(names, PACKAGES, REPO_ROOT)
    assert result.returncode == 0, result.stdout + result.stderr


def test_a_module_that_imports_only_after_another_is_reported(tmp_path: Path) -> None:
    """The check imports each module in a state of its own: a module that needs another to
    have been imported first fails there, even when a module before it in the list has
    imported what it needs; a module whose own package imports what it needs does not (a
    fresh interpreter imports the package first too)."""
    package = tmp_path / "alonepkg"
    (package / "sub").mkdir(parents=True)
    sources = {
        "__init__.py": "",
        "sets.py": "import json\nimport alonepkg\nalonepkg.SET_HERE = 1\n",
        "needs.py": "from alonepkg import SET_HERE\n",
        "fine.py": "from alonepkg.sets import json\n",
        "sub/__init__.py": "from alonepkg import sets\n",
        "sub/inner.py": "from alonepkg import SET_HERE\n",
        "sub/needs_too.py": "from alonepkg.sub import SET_BY_FINE\n",
        "sub/fine.py": "import alonepkg.sub\nalonepkg.sub.SET_BY_FINE = 1\n",
    }
    for name, source in sources.items():
        (package / name).write_text(source)
    names = ["alonepkg", "alonepkg.sets", "alonepkg.needs", "alonepkg.fine", "alonepkg.sub",
             "alonepkg.sub.fine", "alonepkg.sub.inner", "alonepkg.sub.needs_too"]
    result = _import_alone(names, ("alonepkg",), tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    reported = [line.split(":")[0] for line in result.stdout.splitlines() if line]
    assert reported == ["alonepkg.needs", "alonepkg.sub.needs_too"], result.stdout
    assert "ImportError" in result.stdout and "SET_HERE" in result.stdout

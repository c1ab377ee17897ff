"""The shape of the code: no import circles, no import hidden in a function to dodge one, no
module over 450 lines, an engine that knows no game, and generic code that names none.

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
LAZY_MODULES = {"alembic", "distributed", "pokerkit", "pyspiel", "scipy", "open_spiel"}
"""Third-party modules that may be imported inside a function, because they take a second or
more to import (or are optional) and most commands never need them.  Project modules never may."""


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


def test_the_engine_knows_no_game() -> None:
    """The engine compiles a `Game` it is handed: it imports the interface of games and nothing
    else of them, the registry least of all."""
    found = [f"{name} imports {target}" for name, module in MODULES.items()
             if name.startswith("solver.engine.")
             for target in module.imports
             if target.startswith("solver.games") and target != "solver.games.base"]
    assert not found, "\n".join(found)


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


GENERIC = ("solver.engine", "solver.algorithms", "solver.runs.build", "solver.runs.background",
           "solver.runs.build_status", "solver.runs.store_solve", "solver.runs.dask",
           "solver.runs.sizes", "solver.evaluation.stored")


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


def test_every_module_imports_on_its_own() -> None:
    """Each module imported first, in a fresh interpreter state: no import order hides a
    circle through a package's ``__init__``."""
    # `__main__` modules run when imported; alembic runs the migrations' scripts itself.
    names = sorted(name for name in MODULES
                   if not name.endswith("__main__") and not name.startswith("app.migrations"))
    script = (
        "import importlib, sys\n"
        f"names = {names!r}\n"
        "failed = []\n"
        "for name in names:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] in "
        f"{PACKAGES!r}]:\n"
        "        del sys.modules[loaded]\n"
        "    try:\n"
        "        importlib.import_module(name)\n"
        "    except Exception as error:\n"
        "        failed.append(f'{name}: {type(error).__name__}: {error}')\n"
        "print('\\n'.join(failed))\n"
        "sys.exit(1 if failed else 0)\n")
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                            text=True, check=False, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr

"""Import each named module on its own, as the first module of its project in the process.

Usage: ``python -m tests.import_alone PACKAGES MODULE...`` from the root of the source tree,
PACKAGES being the project's top-level packages, comma-separated (``app,solver,strategies``).
Prints ``module: error`` for each module that fails to import on its own; exits 1 if any does.

One interpreter imports the third-party modules the project imports at module level, and
compiles the project's sources, but imports no project module itself; each module is then
imported in a child forked from it (a copy of that state), as many at a time as there are
cores. A module that imports only because another was imported before it (a name another
module sets on a package, an order that hides a circle through a package's ``__init__``) fails
in its child as it would in a fresh interpreter, without paying each time for the import of
numpy, SQLAlchemy or FastAPI and for compiling the same sources again.
"""

from __future__ import annotations

import ast
import importlib
import importlib.machinery
import os
import sys
import tempfile
import traceback
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from types import CodeType

MESSAGE_LIMIT = 4000
"""Characters of a failure reported (a traceback's message can be long)."""


def source_path(name: str, root: Path) -> Path:
    """The source file of module `name` under `root` (a package's ``__init__.py``)."""
    base = root.joinpath(*name.split("."))
    package = base / "__init__.py"
    return package if package.is_file() else base.with_suffix(".py")


def third_party_imports(tree: ast.Module, packages: tuple[str, ...]) -> Iterator[str]:
    """The absolute imports of modules outside `packages` that run when the module is imported:
    at module level, in classes and in ``try``/``if`` blocks, not in functions nor under
    ``if TYPE_CHECKING:``."""
    def visit(nodes: list[ast.stmt]) -> Iterator[str]:
        for node in nodes:
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module] if node.module and not node.level else []
            elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            elif isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
                yield from visit(node.orelse)
                continue
            else:
                for child in ast.iter_child_nodes(node):
                    if isinstance(child, ast.stmt):
                        yield from visit([child])
                    elif isinstance(child, ast.ExceptHandler):
                        yield from visit(child.body)
                continue
            yield from (n for n in names if n.split(".")[0] not in packages)

    yield from visit(tree.body)


def preload(paths: list[Path], packages: tuple[str, ...]) -> dict[Path, tuple[bytes, CodeType]]:
    """Import the third-party modules the sources import (those that import: a missing one
    fails in the child that needs it) and compile every source once."""
    compiled = {}
    external: set[str] = set()
    for path in paths:
        source = path.read_bytes()
        tree = ast.parse(source, filename=str(path))
        external.update(third_party_imports(tree, packages))
        compiled[path] = (source, compile(tree, str(path), "exec", dont_inherit=True))
    for name in sorted(external):
        try:
            importlib.import_module(name)
        except Exception:  # the child importing the project module that needs it says so
            continue
    return compiled


def reuse_compiled(compiled: dict[Path, tuple[bytes, CodeType]]) -> None:
    """Let the import system take the code of a source compiled by :func:`preload` (the same
    bytes at the same path) instead of compiling it again in every child."""
    loader = importlib.machinery.SourceFileLoader
    compile_source = loader.source_to_code
    by_name = {str(path): entry for path, entry in compiled.items()}

    def source_to_code(self: importlib.machinery.SourceFileLoader, data: bytes,
                       path: str, *, _optimize: int = -1) -> CodeType:
        entry = by_name.get(path)
        if entry is not None and entry[0] == data and _optimize == -1:
            return entry[1]
        return compile_source(self, data, path, _optimize=_optimize)

    loader.source_to_code = source_to_code  # type: ignore[assignment,method-assign]


def members(names: list[str]) -> dict[str | None, list[str]]:
    """The modules of `names` under each package of `names` (None: under none of them), each
    under its nearest package in the list."""
    listed = set(names)
    found: dict[str | None, list[str]] = {}
    for name in names:
        package: str | None = name.rpartition(".")[0]
        while package and package not in listed:
            package = package.rpartition(".")[0]
        found.setdefault(package or None, []).append(name)
    return found


def report(log: int, name: str, message: str) -> None:
    """Append a failure to the log (one ``write`` to a file opened for appending: the lines of
    processes writing at once do not interleave)."""
    line = f"{name}\t{message[:MESSAGE_LIMIT]}".replace("\n", " | ")
    os.write(log, (line + "\n").encode())


def imported(name: str, log: int) -> bool:
    try:
        importlib.import_module(name)
    except BaseException as error:  # a module may raise anything, SystemExit too
        report(log, name, f"{type(error).__name__}: {error}")
        return False
    return True


def fork(work: Callable[[], bool]) -> int:
    """Run `work` in a child process; its pid. The child exits 0 if `work` says it succeeded,
    1 if it says not (and has reported why), 2 if it raised."""
    pid = os.fork()
    if pid == 0:
        status = 2
        try:
            status = 0 if work() else 1
        except BaseException:
            traceback.print_exc()
        finally:
            sys.stderr.flush()
            os._exit(status)
    return pid


def check_members(package: str | None, tree: dict[str | None, list[str]], log: int,
                  jobs: int) -> None:
    """In a process where `package` and the packages above it are imported, and no other
    module of the project, import each module of `package` in a child of its own (`jobs` at
    a time); a subpackage's child then checks the subpackage's modules the same way. Importing
    ``a.b.c`` imports ``a`` then ``a.b`` first, so the child starts where a fresh interpreter
    importing the module would be when it reaches the module itself."""
    modules = tree.get(package, [])
    running: dict[int, str] = {}
    for name in [m for m in modules if m not in tree]:
        if len(running) == jobs:
            finished(running, log)
        running[fork(partial(imported, name, log))] = name
    while running:
        finished(running, log)
    for name in [m for m in modules if m in tree]:
        def subpackage(name: str = name) -> bool:
            if not imported(name, log):
                return False
            check_members(name, tree, log, jobs)
            return True
        running[fork(subpackage)] = name
        finished(running, log)


def finished(running: dict[int, str], log: int) -> None:
    """Wait for one child; a child that ended without reporting why is reported."""
    pid, status = os.wait()
    name = running.pop(pid)
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):
        report(log, name, f"the process importing it ended with {code}")


def check(names: list[str], packages: tuple[str, ...], root: Path,
          jobs: int) -> dict[str, str]:
    """Each module of `names` that fails to import on its own, with the error (the modules of
    a package that fails are not checked)."""
    loaded = sorted(m for m in sys.modules if m.split(".")[0] in packages)
    if loaded:
        raise RuntimeError(f"project modules imported before the check: {loaded}")
    reuse_compiled(preload([source_path(name, root) for name in names], packages))
    sys.stdout.flush()
    sys.stderr.flush()
    handle, path = tempfile.mkstemp(prefix="import-alone-")
    os.close(handle)
    log = os.open(path, os.O_WRONLY | os.O_APPEND)
    try:
        check_members(None, members(names), log, jobs)
    finally:
        os.close(log)
        lines = Path(path).read_text(errors="replace").splitlines()
        os.unlink(path)
    return dict(line.split("\t", 1) for line in lines)


def main(argv: list[str]) -> int:
    packages = tuple(argv[0].split(","))
    jobs = len(os.sched_getaffinity(0))
    failed = check(argv[1:], packages, Path.cwd(), jobs)
    print("\n".join(f"{name}: {error}" for name, error in sorted(failed.items())))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Arrays that take a while to build, kept on disk between processes.

The folder is ``$SOLVER_CACHE`` or ``~/.cache/solved-bots``, as for compiled game trees.  A
cached item is named after a digest of the code that computes it, so changing that code builds
afresh instead of reading stale numbers; the digest is of the syntax tree without docstrings,
so editing prose or layout does not throw away the hand-strength tables (a 40 s build).  Files
are written to a temporary name and renamed, so a reader never sees half a file, and two
processes building at once both end with a whole one.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from numpy.typing import NDArray


def cache_dir() -> Path:
    return Path(os.environ.get("SOLVER_CACHE", Path.home() / ".cache" / "solved-bots"))


def _code(source: str | Path) -> bytes:
    """The Python file's syntax tree, less docstrings and bare strings; comments and line
    numbers are not in the tree."""
    tree = ast.parse(Path(source).read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list):
            node.body = [s for s in body if not (  # type: ignore[attr-defined]
                isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                and isinstance(s.value.value, str))] or [ast.Pass()]
    return ast.dump(tree).encode()


def source_digest(*sources: str | Path, extra: Iterable[object] = ()) -> str:
    """16 hex digits of the code of the Python files `sources` and the values `extra`."""
    digest = hashlib.sha256()
    for source in sources:
        digest.update(_code(source))
    for value in extra:
        digest.update(repr(value).encode())
    return digest.hexdigest()[:16]


def save_atomic(path: Path, array: NDArray[np.generic]) -> None:
    """Write `array` as ``.npy`` to `path` through a temporary file and a rename."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(temporary, "wb") as f:
            np.save(f, array)
        temporary.replace(path)
    finally:
        with contextlib.suppress(FileNotFoundError):
            temporary.unlink()


def load(path: Path, *, mmap: bool = False) -> NDArray[np.generic] | None:
    """The array in `path`, or None when it is missing or unreadable (then it is rebuilt).

    With `mmap` the file is mapped rather than read: the pages load as they are touched and are
    shared by every process that maps the same file."""
    try:
        loaded: np.ndarray = np.load(path, mmap_mode="r" if mmap else None, allow_pickle=False)
        return loaded
    except (OSError, ValueError):
        return None

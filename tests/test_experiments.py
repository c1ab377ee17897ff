"""The runs outside the packages: `benchmarks/` and `experiments/` run as modules
(``python -m experiments.luck``), so no file puts a folder on ``sys.path``; and each folder's
README names every module in it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

SKIPPED_FOLDERS = {"node_modules", "__pycache__"}


def _python_files() -> list[Path]:
    return [path for path in sorted(REPO_ROOT.rglob("*.py"))
            if not any(part.startswith(".") or part in SKIPPED_FOLDERS
                       for part in path.relative_to(REPO_ROOT).parts)]


def _touches_sys_path(tree: ast.AST) -> bool:
    return any(isinstance(node, ast.Attribute) and node.attr == "path"
               and isinstance(node.value, ast.Name) and node.value.id == "sys"
               for node in ast.walk(tree))


def test_the_sys_path_finder_finds_it() -> None:
    assert _touches_sys_path(ast.parse("import sys\nsys.path.insert(0, '.')"))
    assert not _touches_sys_path(ast.parse("import os\nos.path.join('a', 'b')"))


@pytest.mark.slow
def test_no_file_changes_sys_path() -> None:
    files = _python_files()
    assert REPO_ROOT / "benchmarks" / "vs_openspiel.py" in files
    offenders = [str(path.relative_to(REPO_ROOT)) for path in files
                 if _touches_sys_path(ast.parse(path.read_bytes(), str(path)))]
    assert offenders == [], "run these as modules (python -m folder.name) instead"


@pytest.mark.parametrize("folder", ["benchmarks", "experiments"])
def test_the_readme_names_every_module(folder: str) -> None:
    modules = {path.stem for path in (REPO_ROOT / folder).glob("*.py")} - {"__init__"}
    readme = (REPO_ROOT / folder / "README.md").read_text()
    named = set(re.findall(r"^\| `(\w+)`", readme, flags=re.MULTILINE))
    assert modules and (REPO_ROOT / folder / "__init__.py").exists()
    assert modules - named == set(), f"{folder}/README.md's table does not name these"
    assert named - modules == set(), f"{folder}/README.md names modules that are not there"

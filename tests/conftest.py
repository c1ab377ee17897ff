"""Fixtures shared by every test folder."""

from __future__ import annotations

import dataclasses
import fcntl
import os
import sqlite3
import subprocess
import sys
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

from strategies import InfosetStrategy, StrategyStore

REPO_ROOT = Path(__file__).resolve().parents[1]


BROWSER_TESTS = REPO_ROOT / "tests" / "browser"
POSTGRES_FIXTURES = {"pg_server", "pg_url"}
SLOW_FIXTURES = {"match_store", "browser_store", "resolving_store", "resolving_stores"}
"""Fixtures that build something for their tests (a whole Dudo match: about 40 s; a re-solving
hold'em store: 80 to 100 s on two busy cores)."""


def uses_postgresql(item: pytest.Item) -> bool:
    """Whether a test runs on PostgreSQL: it asks for the server, or one of its parameters
    (``database_url``'s, a deployment's) says ``postgresql``."""
    if POSTGRES_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    callspec = getattr(item, "callspec", None)
    values = callspec.params.values() if callspec is not None else ()
    return any(v == "postgresql" or (isinstance(v, tuple) and "postgresql" in v)
               for v in values)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The tiers (the markers of pyproject.toml) that follow from where a test lives and what
    it uses: ``browser`` for tests/browser, ``postgres`` for the tests on PostgreSQL, ``slow``
    for the tests of a build fixture; a single slow test says so itself (``@pytest.mark.slow``)."""
    for item in items:
        if BROWSER_TESTS in item.path.parents:
            item.add_marker(pytest.mark.browser)
        if uses_postgresql(item):
            item.add_marker(pytest.mark.postgres)
        if SLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    _name_each_case(items)


def _name_each_case(items: list[pytest.Item]) -> None:
    """Give each case its own id where a plugin leaves several under one: pytest 9.2 builds a
    test's id from its callspec, and schemathesis' cases have none, so every operation's case
    gets the bare function's id. pytest-xdist hands a worker an id, so a shared id would run
    one case in place of all of them."""
    counts = Counter(item.nodeid for item in items)
    for item in items:
        name = getattr(item, "name", "")
        if counts[item.nodeid] > 1 and "[" in name and not item.nodeid.endswith("]"):
            params = name.split("[", 1)[1].removesuffix("]")
            item._id = dataclasses.replace(item._id, params=params)


def stored_infoset(store: StrategyStore, game: str, key: str,
                   solve_id: int | None = None) -> InfosetStrategy:
    """`store.infoset`, for an infoset the store must have: the test fails if it has none."""
    found = store.infoset(game, key, solve_id)
    assert found is not None, f"no stored strategy of {game} at {key!r} (solve {solve_id})"
    return found


def copy_store(source: Path, target: Path, *, drop: tuple[str, ...] = ()) -> Path:
    """A consistent copy of a store (SQLite backup), without the solves of `drop`."""
    src, dst = sqlite3.connect(source), sqlite3.connect(target)
    try:
        src.backup(dst)
    finally:
        src.close()
        dst.close()
    with StrategyStore.open(target) as store:
        for game in drop:
            for solve in store.solves(game):
                store.delete_solve(solve.id)
    return target


def built_once(tmp_path_factory: pytest.TempPathFactory, name: str,
               build: Callable[[Path], None]) -> Path:
    """The file `build` writes, built once per test run: with several pytest-xdist workers,
    the first to get here builds it in the folder they share while the others wait on a lock,
    then take it (a build that failed is tried again by the next)."""
    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # the run's folder, above each worker's own
    folder = root / f"built-{name}"
    folder.mkdir(exist_ok=True)
    path, done = folder / "strategies.sqlite", folder / "done"
    with (folder / "lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            path.unlink(missing_ok=True)
            build(path)
            done.touch()
    return path


def _solver(*arguments: str, what: str) -> None:
    """Run ``python -m solver`` with `arguments`; the test fails if it does."""
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run([sys.executable, "-m", "solver", *arguments], cwd=REPO_ROOT,
                            env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        pytest.fail(f"{what} failed:\n{result.stderr}")


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete strategy store (every game solved)."""
    existing = os.environ.get("TEST_STRATEGY_STORE", "").strip()
    if existing:
        path = Path(existing).expanduser()
        if not path.is_file():
            pytest.fail(f"TEST_STRATEGY_STORE={existing} does not exist")
        return path
    return built_once(tmp_path_factory, "store", lambda path: _solver(
        "build", "--store", str(path), "--quiet", what="building the strategy store"))


@pytest.fixture(scope="session")
def match_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The complete store plus a quick build of a whole Dudo match: every round remembering one
    bid, three iterations a round (a weak bot, but one with a strategy for every position;
    the real build is `python -m solver match`), about 40 s. Its table of winning chances is
    stored with the solve, inside the store."""
    def build(path: Path) -> None:
        copy_store(store_path, path)
        _solver("match", "--max-dice", "5", "--recall", "1", "--iterations", "3",
                "--target-exploitability", "0.01", "--workers", "1", "--quiet",
                "--store", str(path), what="building the Dudo match")

    return built_once(tmp_path_factory, "match", build)

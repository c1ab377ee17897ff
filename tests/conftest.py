"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from strategies import InfosetStrategy, StrategyStore

REPO_ROOT = Path(__file__).resolve().parents[1]


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


@pytest.fixture(scope="session")
def store_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A complete strategy store (every game solved)."""
    existing = os.environ.get("TEST_STRATEGY_STORE", "").strip()
    if existing:
        path = Path(existing).expanduser()
        if not path.is_file():
            pytest.fail(f"TEST_STRATEGY_STORE={existing} does not exist")
        return path
    path = tmp_path_factory.mktemp("store") / "strategies.sqlite"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "solver", "build", "--store", str(path), "--quiet"],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"building the strategy store failed:\n{result.stderr}")
    return path


@pytest.fixture(scope="session")
def match_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The complete store plus a quick build of a whole Dudo match: every round remembering one
    bid, three iterations a round (a weak bot, but one with a strategy for every position;
    the real build is `python -m solver match`), about 40 s. Its table of win chances lies
    beside it, where the app looks for it."""
    path = copy_store(store_path, tmp_path_factory.mktemp("match") / "strategies.sqlite")
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    result = subprocess.run(
        [sys.executable, "-m", "solver", "match", "--max-dice", "5", "--recall", "1",
         "--iterations", "3", "--target-exploitability", "0.01", "--workers", "1", "--quiet",
         "--store", str(path)],
        cwd=REPO_ROOT, env=env, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        pytest.fail(f"building the Dudo match failed:\n{result.stderr}")
    return path

"""Fixtures shared by every test folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


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

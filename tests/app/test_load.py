"""The load test's short version: ``benchmarks/load_test.py`` (locust, headless) for 10 s with
20 simulated API players against uvicorn with 2 workers on SQLite. Zero errors: every request
answered as expected (no 409 from a player's own sequential moves, no 5xx) and no traceback in
the server's log. No timing is asserted (the machine's load varies); the full 60 s run and its
figures are in docs/performance.md."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.app.server import REPO_ROOT


@pytest.mark.slow  # a 10 s locust run against two workers, plus their start
def test_short_load_run_has_no_errors(store_path: Path) -> None:
    command = [sys.executable, "-m", "benchmarks.load_test", "--workers", "2",
               "--users", "20", "--spawn-rate", "10", "--time", "10s", "--think", "0.2-0.6",
               "--store", str(store_path), "--json"]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=300, check=False,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.stdout.strip(), result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert report["errors"] == 0, report["failures"]
    assert report["server_tracebacks"] == 0
    assert result.returncode == 0, result.stderr[-3000:]
    endpoints = report["by_endpoint"]
    assert set(endpoints) == {"/api/v1/matches", "/api/v1/matches/[id]/hands",
                              "/api/v1/hands/[id]/actions"}
    # Meaningful: players went through many whole hands.
    assert endpoints["/api/v1/matches"]["requests"] >= 20
    assert endpoints["/api/v1/matches/[id]/hands"]["requests"] >= 40
    assert report["action"]["requests"] >= 80

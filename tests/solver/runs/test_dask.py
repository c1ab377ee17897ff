"""The local Dask cluster of the long builds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from solver.engine.progress import STATUS_ENV, progress_bar, read_status
from solver.runs.dask import dask_client


def test_a_local_workers_bars_leave_the_drivers_status_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    status = tmp_path / "status.json"
    status.write_text(json.dumps({"step": "solving", "done": 3.0}), encoding="utf-8")
    monkeypatch.setenv(STATUS_ENV, str(status))

    def a_workers_bar() -> str | None:
        import os

        with progress_bar(total=4, desc="hand buckets", unit="round", disable=True) as bar:
            for _ in range(4):
                bar.update(1)
        return os.environ.get(STATUS_ENV)

    with dask_client(workers=1) as client:
        seen = client.submit(a_workers_bar, pure=False).result()
    assert seen == ""
    assert read_status(status) == {"step": "solving", "done": 3.0}
    # The driver's own bar still reports there.
    with progress_bar(total=2, desc="solving", unit="epoch", disable=True) as bar:
        bar.update(2)
    written = read_status(status)
    assert written is not None and written["step"] == "solving" and written["done"] == 2.0

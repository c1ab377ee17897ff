from __future__ import annotations

from pathlib import Path

import pytest

from solver.engine.progress import STATUS_ENV, progress_bar, read_status, write_status


def test_a_bar_reports_to_the_status_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                          ) -> None:
    status = tmp_path / "status.json"
    write_status(status, {"game": "dudo-match", "position": 1, "of": 2})
    monkeypatch.setenv(STATUS_ENV, str(status))
    with progress_bar(total=40, desc="rounds", unit="round", disable=True) as bar:
        for _ in range(40):
            bar.update(1)
    written = read_status(status)
    assert written is not None
    assert written["game"] == "dudo-match" and written["of"] == 2  # kept
    assert (written["step"], written["done"], written["total"], written["unit"]) == (
        "rounds", 40.0, 40.0, "round")


def test_without_a_status_file_nothing_is_written(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STATUS_ENV, raising=False)
    with progress_bar(total=3, disable=True) as bar:
        bar.update(3)
    assert list(tmp_path.iterdir()) == []
    assert read_status(tmp_path / "missing.json") is None

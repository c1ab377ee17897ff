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


def test_a_resumed_bar_counts_from_where_it_was(tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """A run resumed from a checkpoint (tqdm's `initial`) reports the work done before it as
    done, and its time left from the rate of this run's work alone."""
    status = tmp_path / "status.json"
    monkeypatch.setenv(STATUS_ENV, str(status))
    with progress_bar(total=100, initial=80, desc="solving", disable=True) as bar:
        bar.update(10)
    written = read_status(status)  # as the bar's last report (on closing) left it
    assert written is not None
    assert (written["done"], written["total"]) == (90.0, 100.0)
    # 10 left at this run's rate, which counts only the 10 done since it started.
    assert written["rate"] is not None and written["remaining_seconds"] == pytest.approx(
        10 / written["rate"])


def test_without_a_status_file_nothing_is_written(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(STATUS_ENV, raising=False)
    with progress_bar(total=3, disable=True) as bar:
        bar.update(3)
    assert list(tmp_path.iterdir()) == []
    assert read_status(tmp_path / "missing.json") is None

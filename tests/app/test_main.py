"""The app's start: the background build it starts covers a game's thinking opponents too, so a
store that holds every game but lacks one gets it built (and says so)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

import app.__main__ as main_module
from app.core.config import Settings


def test_a_missing_thinking_opponent_starts_the_background_build(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    started: list[list[str]] = []

    class Process:
        def __init__(self, command: list[str], **_: Any) -> None:
            started.append(command)

    monkeypatch.setattr(main_module, "background_games", lambda store: [])
    monkeypatch.setattr(main_module, "lacking_style", lambda store: [])
    monkeypatch.setattr(main_module, "background_opponents", lambda store: [])
    monkeypatch.setattr(subprocess, "Popen", Process)
    settings = Settings.from_env({"STRATEGY_STORE": str(tmp_path / "s.sqlite"),
                                  "APP_DATA_DIR": str(tmp_path / "data")})
    assert main_module.start_background_build(settings) is None and not started
    monkeypatch.setattr(main_module, "background_opponents",
                        lambda store: [("nolimit-leduc", "deepstack")])
    assert main_module.start_background_build(settings) is not None
    assert started and started[0][2:4] == ["solver", "build"]
    assert "Building nolimit-leduc's opponent deepstack in the background" in (
        capsys.readouterr().out)

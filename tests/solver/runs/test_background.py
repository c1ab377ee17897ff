"""The background build of the lobby's long games (``python -m solver build --background``):
each game in a process of its own, its progress in the status file and plain lines in the log,
failures reported with why, and a build whose process died shown as stopped."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from solver.cli import main
from solver.engine.progress import read_status, write_status
from solver.games import GAMES_ENV, unregister_game
from solver.runs.build_status import STOPPED, build_report, lock_path
from strategies import StrategyStore
from tests.conftest import REPO_ROOT

PLUGIN = """
import os
import signal
import sys

from solver.games import register_game
from solver.games.base import BuildPlan
from tests.solver.games.kuhn4 import Kuhn4Game, Kuhn4View


class Broken(Kuhn4Game):
    name = "kuhn4-broken"

    @property
    def build(self):
        return BuildPlan(("solve", "kuhn4-broken", "--iterations", "0"))


class Killed(Kuhn4Game):
    name = "kuhn4-killed"


# Its build is killed by SIGKILL as it starts, as the kernel kills a build that runs out of
# memory (in the build's own process, not in the test's).
if "kuhn4-killed" in sys.argv[1:3] and os.getpid() != int(os.environ["TEST_PARENT_PID"]):
    os.kill(os.getpid(), signal.SIGKILL)

register_game("kuhn4", Kuhn4Game, Kuhn4View)
register_game("kuhn4-broken", Broken, Kuhn4View)
register_game("kuhn4-killed", Killed, Kuhn4View)
"""


@pytest.mark.slow
def test_background_build_reports_its_progress(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    """The long builds of the lobby's games run one after the other by their own commands,
    each in a process of its own (games of a plug-in module too), writing where they stand to
    the status file and plain lines to the log; one whose command cannot run, and one killed
    as the kernel kills a build out of memory, are reported with why, and the next is built; a
    second background build at the same time leaves at once."""
    (tmp_path / "bg_games.py").write_text(PLUGIN)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(tmp_path), str(REPO_ROOT)]))
    monkeypatch.setenv(GAMES_ENV, "bg_games")
    monkeypatch.setenv("TEST_PARENT_PID", str(os.getpid()))
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path / "cache"))
    monkeypatch.syspath_prepend(str(tmp_path))
    importlib.import_module("bg_games")  # the games of this process too
    store, status = tmp_path / "s.sqlite", tmp_path / "data" / "build-status.json"
    try:
        code = main(["build", "--background", "--games", "kuhn4-broken", "kuhn4-killed", "kuhn4",
                     "--store", str(store), "--status-file", str(status)])
        out = capsys.readouterr()
        assert code == 1 and "building kuhn4:" in out.out
        assert "\r" not in out.out + out.err  # plain lines for the log
        assert "compiling the tree" in out.out and "storing" in out.out  # its phases
        report = read_status(status)
        assert report is not None and report["current"] is None and report["pending"] == []
        # What it measured of this machine's pace: planned and actual seconds of each phase
        # of the build that finished, its last one too (the killed one measured nothing).
        measured = report["measured"]
        assert len(measured) == 3 and all(p > 0 and a >= 0 for p, a in measured), measured
        assert sorted(report["failed"]) == ["kuhn4-broken", "kuhn4-killed"]
        assert "cannot run" in report["failed"]["kuhn4-broken"]
        assert "killed (SIGKILL" in report["failed"]["kuhn4-killed"]
        assert "memory" in report["failed"]["kuhn4-killed"]
        with StrategyStore.open(store) as opened:
            assert opened.latest_solve("kuhn4") is not None
            assert opened.latest_solve("kuhn4-killed") is None
        assert main(["build", "--background", "--store", str(store), "--status-file",
                     str(status), "--games", "kuhn4"]) == 0  # nothing left to build
    finally:
        for name in ("kuhn4", "kuhn4-broken", "kuhn4-killed"):
            unregister_game(name)
        sys.modules.pop("bg_games", None)


def test_a_background_build_whose_process_died_is_reported_stopped(tmp_path: Path) -> None:
    """The status file says a game is being built: while a process holds the build's lock it
    is; once none does (the build was killed with the app, or by the kernel) the game shows as
    stopped, with the games that waited for it."""
    status = tmp_path / "build-status.json"
    write_status(status, {"current": "dudo-match", "pending": ["dudo-2v2"], "failed": {}})
    holder = subprocess.Popen(
        [sys.executable, "-c", "import fcntl, os, sys, time; "
         f"fd = os.open({str(lock_path(status))!r}, os.O_RDWR | os.O_CREAT); "
         "fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)"],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        alive = build_report(status)
        assert alive is not None and alive["current"] == "dudo-match" and not alive["failed"]
    finally:
        holder.kill()
        holder.wait()
    dead = build_report(status)
    assert dead is not None and dead["current"] is None and dead["stopped"] is True
    assert dead["failed"] == {"dudo-match": STOPPED, "dudo-2v2": STOPPED}


def test_a_store_holding_a_superseded_bot_builds_its_successor(tmp_path: Path) -> None:
    """A game whose build replaces an earlier default bot (`BuildPlan.supersedes`) is built in
    the background over a store that holds that bot (which the app keeps serving meanwhile),
    but not over one that holds a bot built with other settings, nor once the new one is
    stored."""
    from solver.games import register_game
    from solver.games.base import BuildPlan
    from solver.runs.build_status import background_games
    from tests.solver.games.kuhn4 import Kuhn4Game, Kuhn4View

    class Upgraded(Kuhn4Game):
        name = "kuhn4-upgraded"

        @property
        def build(self) -> BuildPlan:
            return BuildPlan(("solve", "kuhn4-upgraded"), supersedes=("recall=1",))

    register_game("kuhn4-upgraded", Upgraded, Kuhn4View)
    store = tmp_path / "s.sqlite"
    try:
        assert "kuhn4-upgraded" in background_games(store)  # not in the store at all
        for abstraction, rebuilt in (("recall=1", True), ("recall=2", False), ("", False)):
            with StrategyStore.open(store, create=True) as opened:
                opened.save_solve("kuhn4-upgraded", "dcfr", 1, 0.1, 0.5, 0.0, [], [], "t",
                                  abstraction=abstraction)
            assert ("kuhn4-upgraded" in background_games(store)) is rebuilt, abstraction
    finally:
        unregister_game("kuhn4-upgraded")


def test_a_games_thinking_opponents_are_built_right_after_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """In the lobby's order, each game is followed by the thinking opponents the store lacks
    (a game already built has only those), the status naming the game and, as ``making``, the
    opponent."""
    from solver.games.opponents import DEEPSTACK
    from solver.runs import background
    from solver.runs.run_plan import deepstack_plan

    monkeypatch.setattr(background, "background_games", lambda store: ["nolimit-leduc", "holdem"])
    monkeypatch.setattr(background, "background_opponents",
                        lambda store: [("nolimit-leduc", DEEPSTACK.name)])
    status = tmp_path / "build-status.json"
    ran: list[tuple[str, str | None, str | None]] = []

    def run(command: list[str], status_path: Path | None, shown: object) -> None:
        report = read_status(status) or {}
        ran.append((command[0], report.get("current"), report.get("making")))

    monkeypatch.setattr(background, "_run", run)
    assert background.build_in_background(lambda command: deepstack_plan(10, 1), None,
                                          status) == 0
    assert ran == [("solve", "nolimit-leduc", None),
                   ("deepstack", "nolimit-leduc", DEEPSTACK.title), ("hulhe", "holdem", None)]
    monkeypatch.setattr(background, "background_games", lambda store: ["holdem"])
    ran.clear()
    status = tmp_path / "again" / "build-status.json"  # this process holds the first's lock
    assert background.build_in_background(lambda command: deepstack_plan(10, 1), None,
                                          status) == 0
    assert [r[0] for r in ran] == ["deepstack", "hulhe"]  # the lobby's order

"""The tiers of the suite: `tests/conftest.py` marks a test `browser`, `postgres` or `slow` from
where it lives and what it uses, so that `scripts/test --fast` leaves exactly those out."""

from __future__ import annotations

import multiprocessing
import os
import subprocess
import sys
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest
from _pytest.nodeid import NodeId

from tests.conftest import REPO_ROOT, built_once, pytest_collection_modifyitems

FAST_TIER = "not slow and not browser and not postgres"


@dataclass
class CallSpec:
    params: dict[str, Any]


@dataclass
class FakeItem:
    """What the hook reads of a collected test, and the markers it adds."""
    path: Path
    fixturenames: list[str] = field(default_factory=list)
    callspec: CallSpec | None = None
    markers: set[str] = field(default_factory=set)
    _id: NodeId = field(default_factory=lambda: NodeId(path="f.py", names=("test_one",)))
    name: str = ""

    @property
    def nodeid(self) -> str:
        return str(self._id)

    def add_marker(self, marker: pytest.MarkDecorator) -> None:
        self.markers.add(marker.name)


def _marked(*items: FakeItem) -> list[set[str]]:
    pytest_collection_modifyitems(cast("list[pytest.Item]", list(items)))
    return [item.markers for item in items]


def test_the_browser_tests_are_marked_by_their_folder() -> None:
    browser = FakeItem(REPO_ROOT / "tests" / "browser" / "test_play.py", ["page"])
    app = FakeItem(REPO_ROOT / "tests" / "app" / "test_pages.py", ["make_app"])
    assert _marked(browser, app) == [{"browser"}, set()]


def test_the_postgresql_cases_are_marked_and_the_sqlite_ones_not() -> None:
    on = {"postgresql": CallSpec({"database_url": "postgresql"}),
          "sqlite": CallSpec({"database_url": "sqlite"}),
          "deployment": CallSpec({"deployment": ("postgresql", 2, 1, "app")}),
          "sqlite deployment": CallSpec({"deployment": ("sqlite", 1, 2, "uvicorn")})}
    items = [FakeItem(REPO_ROOT / "tests" / "app" / "test_api.py", ["database_url"], spec)
             for spec in on.values()]
    server = FakeItem(REPO_ROOT / "tests" / "app" / "test_many_instances.py", ["pg_url"])
    assert _marked(*items, server) == [{"postgres"}, set(), {"postgres"}, set(), {"postgres"}]


def test_the_tests_of_a_build_fixture_are_slow() -> None:
    match = FakeItem(REPO_ROOT / "tests" / "app" / "test_match_page.py",
                     ["make_app", "match_store", "store_path"])
    store = FakeItem(REPO_ROOT / "tests" / "app" / "test_pages.py", ["store_path"])
    assert _marked(match, store) == [{"slow"}, set()]


def test_cases_a_plugin_names_alike_get_their_own_ids() -> None:
    """pytest-xdist runs tests by id: two cases under one id would run one of them twice."""
    path = REPO_ROOT / "tests" / "app" / "test_fuzz_api.py"
    alike = [FakeItem(path, _id=NodeId.parse("f.py::test_api"), name=f"test_api[{op}]")
             for op in ("GET /a", "POST /a")]
    own = FakeItem(path, _id=NodeId.parse("f.py::test_one[x]"), name="test_one[x]")
    pytest_collection_modifyitems(cast("list[pytest.Item]", [*alike, own]))
    assert [item.nodeid for item in (*alike, own)] == [
        "f.py::test_api[GET /a]", "f.py::test_api[POST /a]", "f.py::test_one[x]"]


@pytest.mark.slow
def test_the_fuzzing_cases_are_collected_under_distinct_ids() -> None:
    done = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q",
                           "-p", "no:cacheprovider", "tests/app/test_fuzz_api.py"],
                          cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
                          check=False)
    ids = [line for line in done.stdout.splitlines() if "::" in line]
    assert len(ids) > 30, done.stdout + done.stderr
    assert len(set(ids)) == len(ids), [i for i in ids if ids.count(i) > 1][:3]


def test_the_markers_are_registered_and_strict() -> None:
    """An unregistered or misspelt marker is an error, not a silent new tier."""
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        options = tomllib.load(f)["tool"]["pytest"]["ini_options"]
    registered = {line.split(":")[0] for line in options["markers"]}
    assert {"slow", "browser", "postgres"} <= registered
    assert "--strict-markers" in options["addopts"].split()
    assert all(name in registered for name in FAST_TIER.replace("not ", "").split(" and "))


def test_the_test_command_runs_every_tier_and_fast_leaves_three_out() -> None:
    script = (REPO_ROOT / "scripts" / "test").read_text()
    assert f'tier=(-m "{FAST_TIER}")' in script
    assert '"${tier[@]}"' in script and "tier=()" in script
    assert "scripts/test" in (REPO_ROOT / ".ci" / "run").read_text()


@dataclass
class WorkerTemp:
    """A pytest-xdist worker's `tmp_path_factory`: its own folder inside the run's."""
    basetemp: Path

    def getbasetemp(self) -> Path:
        return self.basetemp


def _build_as_worker(run: Path, worker: str) -> None:
    os.environ["PYTEST_XDIST_WORKER"] = worker
    (run / worker).mkdir()

    def build(path: Path) -> None:
        with (run / "builds").open("a") as log:
            log.write(f"{worker}\n")
        time.sleep(0.5)  # the other worker arrives while this one builds
        path.write_text(worker)

    built = built_once(cast("pytest.TempPathFactory", WorkerTemp(run / worker)), "x", build)
    with (run / "got").open("a") as log:
        log.write(built.read_text() + "\n")


def test_workers_build_a_shared_fixture_once(tmp_path: Path) -> None:
    """Two workers asking at once for what `built_once` builds: one builds, both get it."""
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_build_as_worker, args=(tmp_path, f"gw{i}"))
               for i in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
        assert worker.exitcode == 0
    builder = (tmp_path / "builds").read_text().split()
    assert len(builder) == 1
    assert (tmp_path / "got").read_text().split() == builder * 2

"""The locks of the Python dependencies (`requirements/*.txt`, made by `scripts/lock`) agree with
pyproject.toml: every requirement of the project is pinned, with hashes, at a version its range
allows, and no lock holds a package as the project's own that pyproject.toml no longer asks for.

(A lock is made for Linux x86_64 and Python 3.11, CI's; requirements with markers are judged
there.)"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from typing import Any, cast

import pytest
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

from tests.conftest import REPO_ROOT

LOCKS = {"lock.txt": (), "test-lock.txt": ("test",), "bench-lock.txt": ("bench",)}
"""Each lock and the extras it adds to the project's dependencies."""
# Every field of packaging's Environment (a TypedDict) is a string.
ENVIRONMENT: dict[str, str] = {
    **cast("dict[str, str]", default_environment()),
    "python_version": "3.11", "python_full_version": "3.11.0",
    "sys_platform": "linux", "platform_system": "Linux", "os_name": "posix",
    "platform_machine": "x86_64", "implementation_name": "cpython",
    "platform_python_implementation": "CPython"}
OWN = "solved-bots (pyproject.toml)"
"""How a lock says that the project itself asks for a package."""


@dataclass(frozen=True)
class Pin:
    version: Version
    hashes: int
    wanted_by: tuple[str, ...]


def _project() -> dict[str, Any]:
    with open(REPO_ROOT / "pyproject.toml", "rb") as f:
        project: dict[str, Any] = tomllib.load(f)["project"]
    return project


def _requirements(extras: tuple[str, ...]) -> list[Requirement]:
    project = _project()
    texts: list[str] = list(project["dependencies"])
    optional: dict[str, list[str]] = project["optional-dependencies"]
    for extra in extras:
        texts += optional[extra]
    wanted = [Requirement(text) for text in texts]
    return [r for r in wanted if r.marker is None or r.marker.evaluate(ENVIRONMENT)]


def _pins(lock: str) -> dict[str, Pin]:
    """Package -> its pin: ``name==version \\`` lines, their ``--hash`` lines and ``# via``."""
    pins: dict[str, Pin] = {}
    text = (REPO_ROOT / "requirements" / lock).read_text(encoding="utf-8")
    for block in re.split(r"\n(?=[A-Za-z0-9])", text):
        head = re.match(r"([A-Za-z0-9._-]+)(?:\[[^\]]*\])?==([^\s;\\]+)", block)
        if head is None:
            continue
        via = re.findall(r"#\s+(?:via\s+)?([^\n#]+?)\s*$", block, flags=re.MULTILINE)
        pins[canonicalize_name(head.group(1))] = Pin(
            Version(head.group(2)), block.count("--hash=sha256:"),
            tuple(v.strip() for v in via if v.strip() != "via"))
    return pins


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_every_requirement_is_pinned_within_its_range_with_hashes(lock: str) -> None:
    pins = _pins(lock)
    assert len(pins) > 30
    problems = []
    for requirement in _requirements(LOCKS[lock]):
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            problems.append(f"{requirement}: not in the lock")
        elif not requirement.specifier.contains(pin.version, prereleases=True):
            problems.append(f"{requirement}: the lock pins {pin.version}")
    problems += [f"{name}=={pin.version}: no hashes" for name, pin in pins.items()
                 if pin.hashes == 0]
    assert not problems, f"requirements/{lock} and pyproject.toml disagree (run scripts/lock):\n" \
        + "\n".join(problems)


@pytest.mark.parametrize("lock", sorted(LOCKS))
def test_the_lock_holds_nothing_the_project_no_longer_asks_for(lock: str) -> None:
    wanted = {canonicalize_name(r.name) for r in _requirements(LOCKS[lock])}
    own = {name for name, pin in _pins(lock).items() if OWN in pin.wanted_by}
    assert own, "the lock no longer says which packages the project asks for"
    assert own == wanted, (f"requirements/{lock}: asked for by the project but not locked as "
                           f"such {sorted(wanted - own)}; locked but no longer asked for "
                           f"{sorted(own - wanted)} (run scripts/lock)")


def test_the_pin_reader_reads_a_lock() -> None:
    pins = _pins("test-lock.txt")
    assert pins["numba"].hashes > 1 and OWN in pins["numba"].wanted_by
    assert pins["pytest"].version >= Version("8")

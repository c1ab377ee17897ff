"""The REST examples of the README's quick start and of docs/api.md, each run as it is written
against a live server (``python -m app`` on a port of its own, named to the example by ``PORT`` as
a reader's environment would), and docs/api.md's description of the hand view's pieces checked
against what the API returns."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.app.server import REPO_ROOT, Server, start_server

README = REPO_ROOT / "README.md"
API_DOC = REPO_ROOT / "docs" / "api.md"
EXAMPLES = {"README": (README, "## The REST API"), "api.md": (API_DOC, "## A scripted client")}
"""Where each example is: the file, and the heading of the section whose first Python block it
is."""


def rest_example(where: str) -> str:
    """The first Python block of the section `where` names."""
    path, heading = EXAMPLES[where]
    parts = path.read_text(encoding="utf-8").split(f"\n{heading}\n", 1)
    assert len(parts) == 2, f"no section {heading!r} in {path.name}"
    found = re.search(r"```python\n(.*?)```", parts[1], re.S)
    assert found is not None, f"no Python example in {path.name}'s section {heading!r}"
    return found.group(1)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, store_path: Path) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("readme")
    running = start_server(tmp, database_url=f"sqlite:///{tmp / 'app.sqlite'}", store=store_path,
                           launcher="app")
    try:
        yield running
    finally:
        running.stop()


@pytest.mark.parametrize("where", sorted(EXAMPLES))
def test_the_rest_example_runs_as_written(server: Server, tmp_path: Path, where: str) -> None:
    code = rest_example(where)
    assert "8000" not in code.replace("'8000'", ""), "the address is the environment's"
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    port = server.url.rsplit(":", 1)[1]
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          timeout=120, env={"PATH": "/usr/bin:/bin", "HOST": "127.0.0.1",
                                            "PORT": port}, check=False)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert re.fullmatch(r"you hold [JQK]", lines[0]), lines
    assert re.fullmatch(r".+ -?[12](\.0)?", lines[1]), lines  # the explanation and the payoff
    assert len(lines) == 3 and lines[2], lines  # the match's verdict text


def test_the_pieces_are_the_objects_the_api_page_shows(server: Server) -> None:
    """docs/api.md's sample card and die are what the API returns: the same fields, a card's
    text its rank then its suit letter, a die's its face."""
    text = API_DOC.read_text(encoding="utf-8")
    samples = {json.loads(m)["kind"]: json.loads(m)
               for m in re.findall(r'`(\{"kind": "(?:card|die)".*?\})`', text)}
    assert set(samples) == {"card", "die"}
    with httpx.Client(base_url=f"{server.url}/api/v1", timeout=30) as client:
        seen = {}
        for game in ("holdem-mini", "dudo"):
            match = client.post("/matches", json={"game": game}).json()
            view = client.post(f"/matches/{match['match_id']}/hands",
                               headers={"authorization": f"Bearer {match['token']}"}).json()
            seen[game] = view["private_pieces"]
    card, die = seen["holdem-mini"][0], seen["dudo"][0]
    assert card.keys() == samples["card"].keys() and die.keys() == samples["die"].keys()
    assert card["kind"] == "card" and card["text"] == card["rank"] + card["suit"]
    assert card["suit"] in "cdhs" and card["face"] is None
    assert die["kind"] == "die" and die["text"] == str(die["face"])
    assert die["rank"] is None and die["suit"] is None
    card_sample = samples["card"]
    assert card_sample["text"] == card_sample["rank"] + card_sample["suit"]

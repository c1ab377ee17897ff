"""The app names no game: everything game-specific comes from the game modules, so adding a game
touches neither `app/` nor `templates/` (nor the stylesheet)."""

from __future__ import annotations

import re

from solver.games import game_names
from tests.conftest import REPO_ROOT

WORDS = {"kuhn", "leduc", "dudo", "calzo", "rps", "holdem", "hold'em", "liar"}


def test_no_file_of_the_app_names_a_game() -> None:
    names = WORDS | {name.split("-")[0] for name in game_names()}
    pattern = re.compile(r"\b(" + "|".join(map(re.escape, sorted(names))) + r")\b",
                         re.IGNORECASE)
    files = [p for folder in ("app", "templates", "static")
             for p in (REPO_ROOT / folder).rglob("*")
             if p.is_file() and p.suffix in {".py", ".html", ".css", ".js"}]
    assert len(files) > 40
    found = [f"{p.relative_to(REPO_ROOT)}:{n}: {line.strip()}"
             for p in files
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if pattern.search(line)]
    assert not found, "\n".join(found)

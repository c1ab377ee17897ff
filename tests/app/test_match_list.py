"""The profile lists each match by what it is: the game's title, the opponent, when it began,
its hands and what it won (the same list in the API's profile and on the page), never by its
id alone."""

from __future__ import annotations

import random

from solver.games import get_game
from tests.app.conftest import AppHandle
from tests.app.test_pages import page
from tests.app.test_players import API, play_match, player


def test_the_profile_names_each_match(api: AppHandle) -> None:
    client, headers = player(api, "lister")
    against_equilibrium, _ = play_match(client, headers, "kuhn", 3, random.Random(3))
    created = client.post(f"{API}/matches", json={"game": "leduc", "opponent": "calls"},
                          headers=headers)
    assert created.status_code == 201, created.text
    against_calls = created.json()["match_id"]
    listed = {m["match_id"]: m for m in
              client.get(f"{API}/profile", headers=headers).json()["matches"]}
    won = client.get(f"{API}/matches/{against_equilibrium}", headers=headers).json()["total"]
    assert {k: listed[against_equilibrium][k] for k in
            ("game", "title", "opponent", "opponent_title", "hands", "total")} == {
        "game": "kuhn", "title": get_game("kuhn").title, "opponent": "equilibrium",
        "opponent_title": "The equilibrium", "hands": 3, "total": won}
    assert {k: listed[against_calls][k] for k in
            ("title", "opponent", "opponent_title", "hands", "total")} == {
        "title": get_game("leduc").title, "opponent": "calls",
        "opponent_title": "Calls too much", "hands": 0, "total": 0.0}

    doc = page(client, "/profile")
    rows = {r.attrs["data-match"]: r for r in doc.by_id("matches").find_all("tr")
            if "data-match" in r.attrs}
    assert list(rows) == [against_calls, against_equilibrium]  # newest first
    first = rows[against_calls].text
    assert first.startswith(f"{get_game('leduc').title} Against: Calls too much Started ")
    assert against_calls not in first and "leduc " not in first
    assert rows[against_equilibrium].text.startswith(
        f"{get_game('kuhn').title} Against: The equilibrium")

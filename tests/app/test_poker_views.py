"""What the app shows of a poker game from the game's own description, with no game named in
the app: results also in mbb/hand, and the range by hand class (pairs, suited, offsuit) in the
strategy tree. Checked on holdem-mini, the hold'em member the lobby plays."""

from __future__ import annotations

import random

import pytest

from solver.games import get_game, get_view
from solver.games.holdem import HoldemGame
from tests.app.conftest import AppFactory, new_match
from tests.app.test_pages import action_form, enabled_actions, page, post_action, start

API = "/api/v1"


def test_results_come_in_mbb_per_hand_too(make_app: AppFactory) -> None:
    client = make_app(seed=3).client
    assert client.get(f"{API}/games/holdem-mini").json()["result_unit"] == "mbb/hand"
    assert client.get(f"{API}/games/kuhn").json()["result_unit"] is None
    match_id, headers = new_match(client, "holdem-mini")
    rng = random.Random(5)
    for _ in range(6):
        view = client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
        while view["status"] == "in_progress":
            view = client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                               json={"action": rng.choice(view["legal_actions"]),
                                     "seq": view["seq"]}).json()
    results = client.get(f"{API}/matches/{match_id}", headers=headers).json()
    unit = results["in_unit"]
    mini = get_game("holdem-mini")
    assert isinstance(mini, HoldemGame)
    big_blind = max(mini.definition.blinds)
    assert unit["unit"] == "mbb/hand" and unit["per_chip"] == 1000 / big_blind
    for field in ("mean", "ci95_low", "ci95_high", "expected_mean", "adjusted_mean",
                  "adjusted_ci95_low", "adjusted_ci95_high"):
        assert unit[field] == pytest.approx(results[field] * 1000 / big_blind), field

    # The page, after one hand: the whole number of mbb (zeros kept), no interval yet.
    url = start(client, "holdem-mini")
    doc = page(client, url)
    while (form := action_form(doc)) is not None:
        post_action(client, form, enabled_actions(form)[0])
        doc = page(client, url)
    shown = doc.by_id("stat-in-unit").first("dd").text.split()
    assert shown[0].lstrip("+−") in {"0", *(str(n) for n in range(500, 50_001, 500))}, shown
    assert shown[1] == "expected" and "," not in shown[0], shown

    kuhn_id, kuhn_headers = new_match(client, "kuhn")
    assert client.get(f"{API}/matches/{kuhn_id}", headers=kuhn_headers).json()["in_unit"] is None


def test_the_tree_shows_the_range_by_hand_class(make_app: AppFactory) -> None:
    client = make_app().client
    root = client.get(f"{API}/games/holdem-mini/tree").json()
    grid = root["grid"]
    game = get_game("holdem-mini")
    classes = get_view(game.name).hand_classes
    assert classes is not None
    ranks = classes.ranks
    assert grid["ranks"] == ranks and len(grid["cells"]) == len(ranks)
    everything = client.get(f"{API}/games/holdem-mini/tree",
                            params={"limit": 200}).json()["range"]
    assert len(everything) == root["total"]
    cells = {c["label"]: c for row in grid["cells"] for c in row}
    assert sum(c["hands"] for c in cells.values()) == root["total"]
    assert sum(c["share"] for c in cells.values()) == pytest.approx(1.0)
    # A class's mix is the reach-weighted mix of its hands.
    for label, cell in cells.items():
        members = [r for r in everything if _class(r["private"], ranks) == label]
        assert cell["hands"] == len(members)
        if not members:
            continue
        weight = sum(r["reach"] for r in members)
        for k, action in enumerate(cell["actions"]):
            mix = sum(r["reach"] * r["actions"][k]["probability"] for r in members) / weight
            assert action["probability"] == pytest.approx(mix), (label, action["label"])
    # Suited above the diagonal, pairs on it, offsuit below.
    assert grid["cells"][0][0]["label"] == ranks[0] * 2
    assert grid["cells"][0][1]["label"] == f"{ranks[0]}{ranks[1]}s"
    assert grid["cells"][1][0]["label"] == f"{ranks[0]}{ranks[1]}o"

    doc = page(client, "/games/holdem-mini/strategy")
    drawn = doc.by_id("range-grid").find_all("td")
    assert [td.attrs["data-class"] for td in drawn] == [c["label"] for row in grid["cells"]
                                                       for c in row]
    assert client.get(f"{API}/games/kuhn/tree").json()["grid"] is None


def _class(cards: str, ranks: str) -> str:
    high, low = sorted((cards[0], cards[2]), key=ranks.index)
    if high == low:
        return high * 2
    return f"{high}{low}{'s' if cards[1] == cards[3] else 'o'}"

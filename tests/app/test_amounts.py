"""A move whose size the player chooses (a no-limit raise), over the API and on the table: the
hand view gives the legal range and the quick amounts, ``{"action": "raise", "amount": N}``
plays a raise to N, and an amount outside the range, a missing one or one sent with another
move is refused with the range named and nothing played."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from solver.games import get_game
from solver.runs.store_solve import solve_and_store
from tests import nolimit_six
from tests.app.conftest import AppFactory, AppHandle, new_match
from tests.app.test_api import API
from tests.app.test_pages import csrf, hand_record, page, parse, start
from tests.conftest import copy_store

pytestmark = pytest.mark.slow  # the member's solve: half a minute

GAME = nolimit_six.GAME


def solved_store(store_path: Path, into: Path) -> Path:
    """The test store with no-limit at six chips solved (to 10⁻³ chips: seconds)."""
    path = copy_store(store_path, into / "store.sqlite")
    solve_and_store(GAME, "dcfr", target=1e-3, store_path=path)
    return path


@pytest.fixture(scope="module")
def sized_store(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    nolimit_six.register()
    yield solved_store(store_path, tmp_path_factory.mktemp("amounts"))
    nolimit_six.unregister()


@pytest.fixture
def app(make_app: AppFactory, sized_store: Path) -> AppHandle:
    return make_app(store=sized_store, seed=3)


def _a_raise_to_choose(app: AppHandle, match_id: str, headers: dict[str, str]
                       ) -> dict[str, Any]:
    """A view at the human's turn with a size to choose (new hands until one comes)."""
    chooser = random.Random(1)
    for _ in range(20):
        view: dict[str, Any] = app.client.post(f"{API}/matches/{match_id}/hands",
                                               headers=headers).json()
        while view["status"] == "in_progress":
            if view["amount_choice"] is not None:
                return view
            view = app.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                   json={"action": chooser.choice(view["legal_actions"]),
                                         "seq": view["seq"]}).json()
    raise AssertionError("no hand offered a raise in 20 hands")


def test_the_api_takes_a_raise_by_its_amount(app: AppHandle) -> None:
    match_id, headers = new_match(app.client, GAME)
    view = _a_raise_to_choose(app, match_id, headers)
    choice = view["amount_choice"]
    low, high = choice["min"], choice["max"]
    raises = [label for label in view["legal_actions"] if label.startswith(choice["prompt"])]
    assert raises == [f"{choice['prompt']} {n}" for n in range(low, high + 1)]
    assert choice["words"] == f"{choice['prompt']} any amount from {low} to {high}"
    assert [q["amount"] for q in choice["quick"]] == sorted({q["amount"] for q in choice["quick"]})
    assert {q["label"] for q in choice["quick"]} <= set(raises)
    assert choice["quick"][-1] == {"name": "all-in", "amount": high, "label": raises[-1]}
    url = f"{API}/hands/{view['hand_id']}/actions"
    refused = [({"action": choice["action"], "amount": high + 1}, f"from {low} to {high}"),
               ({"action": choice["action"], "amount": low - 1}, f"from {low} to {high}"),
               ({"action": choice["action"]}, "say how much"),
               ({"action": view["legal_actions"][0], "amount": low}, "an amount goes with")]
    for body, words in refused:
        response = app.client.post(url, headers=headers, json={**body, "seq": view["seq"]})
        assert response.status_code == 409, response.text
        assert words in response.json()["detail"]
        assert response.json()["legal_actions"] == view["legal_actions"]
    assert app.client.get(f"{API}/hands/{view['hand_id']}", headers=headers).json()["seq"] \
        == view["seq"]  # nothing was played
    amount = (low + high) // 2
    after = app.client.post(url, headers=headers, json={"action": choice["action"],
                                                         "amount": amount, "seq": view["seq"]})
    assert after.status_code == 200, after.text
    assert after.json()["new_events"][0]["label"] == f"{choice['prompt']} {amount}"


def test_the_table_offers_quick_amounts_a_field_and_a_slider(app: AppHandle) -> None:
    client = app.client
    url = start(client, GAME)
    for _ in range(20):
        doc = page(client, url)
        field = doc.by_id("amount-field")
        if field is not None:
            break
        _, hand, _ = hand_record(app, url)
        button = next((b for b in doc.find_all("button") if b.attrs.get("name") == "action"),
                      None)
        data = ({"action": button.attrs["value"]} if button is not None else {})
        client.post(f"{url}/act" if button is not None else f"{url}/hands",
                    data={**data, "hand": hand.public_id, "seq": str(len(hand.actions)),
                          **csrf(client)})
    else:
        raise AssertionError("no hand offered a raise in 20 tries")
    low, high = int(field.attrs["min"]), int(field.attrs["max"])
    slider = doc.by_id("amount-slider")
    assert slider is not None and (slider.attrs["min"], slider.attrs["max"]) == (str(low),
                                                                                  str(high))
    quick = doc.find_all("div", cls="quick-amounts")[0].find_all("button")
    assert quick and "all-in" in quick[-1].text
    _, hand, actions = hand_record(app, url)
    form = {"hand": hand.public_id, "seq": str(len(actions)), **csrf(client)}
    controls = field.parent
    assert controls is not None
    verb = controls.find_all("button")[0].attrs["value"]
    for typed, words in ((str(high + 1), f"from {low} to {high}"), ("lots", "not an amount")):
        response = client.post(f"{url}/act", data={**form, "action": verb, "amount": typed})
        assert words in parse(response.text).by_id("table-message").text
        assert len(hand_record(app, url)[2]) == len(actions)  # nothing played
    response = client.post(f"{url}/act", data={**form, "action": verb, "amount": str(high)})
    assert response.status_code in (200, 303), response.text
    _, after, played = hand_record(app, url)
    assert after.public_id != hand.public_id or len(played) > len(actions)
    assert get_game(GAME).name == GAME

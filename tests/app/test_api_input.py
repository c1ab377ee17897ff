"""Strict input over the REST API: a value is taken only in the type the schema gives it. A
string is not an integer, a boolean is not a number, and a query parameter is written as the
OpenAPI schema writes it (digits for an integer, ``true`` or ``false`` for a boolean); anything
else is a 422 that names the field, and nothing is played."""

from __future__ import annotations

from typing import Any

from tests.app.conftest import AppHandle, new_match

API = "/api/v1"


def _field_of(response: Any) -> list[list[Any]]:
    assert response.status_code == 422, response.text
    return [item["loc"] for item in response.json()["detail"]]


NOT_INTEGERS: tuple[Any, ...] = ("1", "2", "0", True, False, 1.5, -0.5, [1], {"seq": 1})


def test_an_actions_seq_is_an_integer_and_nothing_else(api: AppHandle) -> None:
    """The audit played ``{"action": "check", "seq": "2"}`` and read ``{"seq": true}`` as 1:
    each is a 422 naming ``seq``, with or without an idempotency key, and the hand is as it
    was."""
    match_id, headers = new_match(api.client, "kuhn")
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    action = view["legal_actions"][0]
    for i, seq in enumerate(NOT_INTEGERS):
        for extra in ({}, {"Idempotency-Key": f"key-{i}"}):
            response = api.client.post(f"{API}/hands/{view['hand_id']}/actions",
                                       headers=headers | extra,
                                       json={"action": action, "seq": seq})
            assert ["body", "seq"] in _field_of(response), seq
    after = api.client.get(f"{API}/hands/{view['hand_id']}", headers=headers).json()
    assert after["seq"] == view["seq"] and after["events"] == view["events"]
    # JSON Schema's integer is any number without a fraction: 2.0 is the integer 2.
    played = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                             json={"action": action, "seq": float(view["seq"])})
    assert played.status_code == 200, played.text


def test_a_new_matchs_fields_are_strings(api: AppHandle) -> None:
    for body in ({"game": 1}, {"game": True}, {"game": ["kuhn"]},
                 {"game": "kuhn", "opponent": 0}, {"game": "kuhn", "opponent": None}):
        locs = _field_of(api.client.post(f"{API}/matches", json=body))
        assert any(loc[:1] == ["body"] and loc[1] in body for loc in locs), locs


def test_an_integer_in_the_query_is_written_in_digits(api: AppHandle) -> None:
    """Pydantic reads ``5.0``, ``5_0``, ``+5`` and padded digits as integers from a string;
    the schema's integer is written in digits, and so is every integer the API reads."""
    match_id, headers = new_match(api.client, "kuhn")
    for path, name in ((f"/matches/{match_id}", "limit"), (f"/matches/{match_id}", "before"),
                       (f"/matches/{match_id}/export", "limit"),
                       (f"/matches/{match_id}/hand-histories", "before"),
                       ("/games/kuhn/tree", "node"), ("/games/kuhn/tree", "offset"),
                       ("/games/kuhn/strategy", "limit"), ("/leaderboards/kuhn", "min_hands")):
        for written in ("5.0", "5_0", "+5", " 5", "5 ", "0x5", "1e1", "\uff15"):
            response = api.client.get(f"{API}{path}", params={name: written}, headers=headers)
            assert ["query", name] in _field_of(response), (path, name, written)
    assert api.client.get(f"{API}/matches/{match_id}", params={"limit": "5"},
                          headers=headers).status_code == 200
    assert api.client.get(f"{API}/leaderboards/kuhn", params={"min_hands": "300"}
                          ).status_code == 200


def test_a_boolean_in_the_query_is_true_or_false(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "kuhn")
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    for hint in ("1", "yes", "on", "t", "True", "TRUE", "0", "no", ""):
        response = api.client.get(f"{API}/hands/{view['hand_id']}", params={"hint": hint},
                                  headers=headers)
        assert ["query", "hint"] in _field_of(response), hint
    for word, shown in (("true", True), ("false", False)):
        read = api.client.get(f"{API}/hands/{view['hand_id']}", params={"hint": word},
                              headers=headers)
        assert read.status_code == 200 and (read.json()["hint"] is not None) is shown


def test_the_schema_requires_seq_and_a_key_alone_still_plays_once(api: AppHandle) -> None:
    """A client built from the schema sends ``seq`` with every action (so it cannot send one
    that could be played twice); a client written when an ``Idempotency-Key`` alone was
    enough still plays once; with neither, nothing is played."""
    schema = api.client.get("/openapi.json").json()["components"]["schemas"]["ActionRequest"]
    assert schema["required"] == ["action", "seq"]
    assert schema["properties"]["seq"]["type"] == "integer"
    match_id, headers = new_match(api.client, "kuhn")
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    action = view["legal_actions"][0]
    neither = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                              json={"action": action})
    assert neither.status_code == 422 and "'seq'" in neither.json()["detail"]
    keyed = headers | {"Idempotency-Key": "an-older-client"}
    first = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=keyed,
                            json={"action": action})
    again = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=keyed,
                            json={"action": action})
    assert first.status_code == again.status_code == 200, first.text
    assert again.headers["Idempotent-Replayed"] == "true" and again.json() == first.json()

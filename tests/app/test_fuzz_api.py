"""Fuzzing the whole REST API from its own OpenAPI schema with schemathesis, against the app
running as a real server (uvicorn on 127.0.0.1, a temporary database, the test strategy store).

Every operation of ``/openapi.json`` is called with generated requests, valid and invalid
(schemathesis' examples, coverage and fuzzing phases), and every answer must:

- never be a 5xx;
- have a status code the schema documents for the operation, a documented content type and
  headers, and a body that validates against the documented model;
- reject invalid input with a 4xx, and honour the bearer authentication.

Generated ids would only ever reach the 401/404 branches, so part of the valid cases are made
to reach the app's state: they name a real match or hand and carry its real token (or a wrong
one, or the id itself as the token), and an action is often a real action label, so hands are
played, finished and dealt again while the fuzzer runs. The hands this creates are tracked.

The run is bounded (``FUZZ_MAX_EXAMPLES`` per operation and test, 100 by default; a fixed seed
unless ``FUZZ_SEED`` says otherwise; no example database written) so that it takes about a
minute on two cores.
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from requests.structures import CaseInsensitiveDict

from tests.app.server import Server, start_server

MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "100"))
SEED = int(os.environ.get("FUZZ_SEED", "20261122"))
API = "/api/v1"

LABELS = ("rock", "paper", "scissors", "check", "bet", "call", "fold", "raise", "dudo", "calzo",
          "1x2", "1x6", "2x3", "2x6")
"""Action labels of the games, so that generated actions are sometimes legal ones."""


@dataclass
class LiveApi:
    server: Server
    matches: list[tuple[str, str]] = field(default_factory=list)
    """(match id, its token)"""
    hands: list[tuple[str, str]] = field(default_factory=list)
    """(hand id, its match's token)"""
    statuses: dict[str, set[int]] = field(default_factory=dict)
    """Status codes seen per operation (to check that the fuzzing got past the 4xx)."""

    @property
    def url(self) -> str:
        return self.server.url

    def seen(self, label: str, status: int) -> None:
        self.statuses.setdefault(label, set()).add(status)


@pytest.fixture(scope="module")
def live_api(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveApi]:
    """The app under uvicorn, with a few matches (and their first hands) already made."""
    tmp = tmp_path_factory.mktemp("fuzz")
    server = start_server(tmp, database_url=f"sqlite:///{tmp / 'fuzz.sqlite'}",
                          store=store_path, name="fuzz")
    live = LiveApi(server)
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            served = client.get("/openapi.json")
            assert served.status_code == 200 and served.json() == OPENAPI
            for game in ("kuhn", "leduc", "rps", "dudo"):
                created = client.post(f"{API}/matches", json={"game": game})
                assert created.status_code == 201, created.text
                body = created.json()
                live.matches.append((body["match_id"], body["token"]))
                hand = client.post(f"{API}/matches/{body['match_id']}/hands",
                                   headers={"Authorization": f"Bearer {body['token']}"})
                assert hand.status_code == 201, hand.text
                live.hands.append((hand.json()["hand_id"], body["token"]))
        yield live
    finally:
        server.stop()
    log = server.log()
    assert "Traceback" not in log and "unexpected error" not in log, log[-5000:]


def _openapi() -> dict[str, Any]:
    """The app's own OpenAPI document, built in-process (the same code the server runs; the
    ``live_api`` fixture checks that the server serves exactly this). Schemathesis needs the
    schema when the tests are collected, before any server is up."""
    from app.config import Settings
    from app.main import create_app

    missing = Path(os.devnull) / "no-store.sqlite"  # the schema does not depend on the store
    app = create_app(Settings(database_url="sqlite://", strategy_store=missing,
                              secret_key="schema-only"))
    return app.openapi()


OPENAPI = _openapi()


def _schema(**phases: bool) -> Any:
    return schemathesis.openapi.from_dict(OPENAPI, config=schemathesis.Config.from_dict({
        "seed": SEED,
        "generation": {"max-examples": MAX_EXAMPLES},
        "phases": {name: {"enabled": on} for name, on in phases.items()},
    }))


schema = _schema(examples=True, coverage=True, fuzzing=True)
"""Everything as schemathesis generates it: the schema's examples, boundary and invalid values
of every parameter (coverage), then random valid and invalid requests (fuzzing)."""
aimed = _schema(examples=False, coverage=False, fuzzing=True)
"""Random requests, the valid ones aimed at real matches and hands (see :func:`_aim`)."""

IDENTITIES = ("as generated", "no token", "wrong token", "id as token") + ("owner",) * 6
"""Who a valid case acts as: mostly the owner (the token of the match or hand in the path)."""


def _is_positive(case: schemathesis.Case[Any]) -> bool:
    meta = case.meta
    return meta is None or not any(c.mode.is_negative for c in meta.components.values())


def _aim(case: schemathesis.Case[Any], data: st.DataObject, live: LiveApi) -> None:
    """Point a valid generated case at the app's real state (see the module's docstring)."""
    params = case.path_parameters or {}
    if "match_id" in params:
        targets = live.matches
        key = "match_id"
    elif "hand_id" in params:
        targets = live.hands
        key = "hand_id"
    else:
        return
    identity = data.draw(st.sampled_from(IDENTITIES), label="identity")
    if identity == "as generated":
        return
    target_id, token = data.draw(st.sampled_from(targets), label="target")
    params[key] = target_id
    headers = dict(case.headers or {})
    headers.pop("Authorization", None)
    if identity == "owner":
        headers["Authorization"] = f"Bearer {token}"
    elif identity == "wrong token":
        other = [t for _, t in live.matches if t != token] or ["not-a-token"]
        headers["Authorization"] = f"Bearer {data.draw(st.sampled_from(other), label='other')}"
    elif identity == "id as token":
        headers["Authorization"] = f"Bearer {target_id}"
    case.headers = CaseInsensitiveDict(headers)
    if identity == "owner" and isinstance(case.body, dict) and "action" in case.body:
        # Mostly a legal action at the right seq (so hands are played to the end), else a
        # label of some game and a seq that may be stale.
        view = httpx.get(f"{live.url}{API}/hands/{target_id}", timeout=30,
                         headers={"Authorization": f"Bearer {token}"})
        assert view.status_code == 200, view.text
        legal = view.json()["legal_actions"]
        labels = st.sampled_from(legal) if legal else st.sampled_from(LABELS)
        action = data.draw(st.one_of(labels, st.sampled_from(LABELS)), label="action")
        generated_seq = case.body.get("seq")
        seq = data.draw(st.sampled_from([view.json()["seq"], None, generated_seq]), label="seq")
        case.body = {"action": action} | ({"seq": seq} if seq is not None else {})
        # An action needs its seq or an idempotency key, which the schema cannot say (one is
        # in the body, the other a header); a key of the fuzzer's would also be reused across
        # cases, which is an error of its own. So a valid case gets a fresh key of its own.
        if seq is None or "Idempotency-Key" in headers:
            headers["Idempotency-Key"] = uuid.uuid4().hex
        case.headers = CaseInsensitiveDict(headers)


def _track(live: LiveApi, case: schemathesis.Case[Any], response: Any) -> None:
    """Remember the hands dealt during the run, with their tokens."""
    live.seen(f"{case.method.upper()} {case.path}", response.status_code)
    if case.method.upper() != "POST" or response.status_code != 201:
        return
    headers: Mapping[str, Any] = case.headers or {}
    match = re.fullmatch(r"Bearer (\S+)", str(headers.get("Authorization", "")))
    body = response.json()
    if match and isinstance(body, dict) and "hand_id" in body:
        live.hands.append((body["hand_id"], match.group(1)))
    elif isinstance(body, dict) and "token" in body and "match_id" in body:
        live.matches.append((body["match_id"], body["token"]))


@schema.parametrize()  # type: ignore[untyped-decorator]
@settings(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True,
          database=None)
def test_the_api_conforms_to_its_openapi_schema(case: schemathesis.Case[Any],
                                                live_api: LiveApi) -> None:
    response = case.call_and_validate(base_url=live_api.url, timeout=30)
    _track(live_api, case, response)


@aimed.parametrize()  # type: ignore[untyped-decorator]
@aimed.given(data=st.data())  # type: ignore[untyped-decorator]
@settings(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True,
          database=None)
def test_the_api_conforms_with_real_matches_and_tokens(case: schemathesis.Case[Any],
                                                       data: st.DataObject,
                                                       live_api: LiveApi) -> None:
    if _is_positive(case):
        _aim(case, data, live_api)
    response = case.call_and_validate(base_url=live_api.url, timeout=30)
    _track(live_api, case, response)


def test_the_fuzzing_reached_the_app_state(live_api: LiveApi) -> None:
    """The run above got past authentication and lookups: real matches and hands were read,
    actions were played (200) and refused as illegal (409), new hands were dealt (201)."""
    seen = live_api.statuses
    assert 200 in seen.get(f"GET {API}/matches/{{match_id}}", set()), seen
    assert 200 in seen.get(f"GET {API}/hands/{{hand_id}}", set()), seen
    acted = seen.get(f"POST {API}/hands/{{hand_id}}/actions", set())
    assert {200, 409, 401, 403, 404, 422} <= acted, seen
    assert {201, 409} <= seen.get(f"POST {API}/matches/{{match_id}}/hands", set()), seen


UNECHOABLE = (
    ("/matches", rb'{"game": "\ud800"}'),
    ("/matches", rb'{"game": NaN}'),
    ("/matches", rb'{"game": Infinity}'),
    ("/matches", rb'{"game": -Infinity}'),
    ("/matches", rb'{"game": -1e400}'),
    ("/matches", rb'{"game": 1e400}'),
    ("/matches", rb'{"game": "kuhn", "\udc00": NaN}'),
    ("/hands/{hand}/actions", rb'{"action": "bet", "seq": 1e400}'),
    ("/hands/{hand}/actions", rb'{"action": "bet", "seq": NaN}'),
    ("/hands/{hand}/actions", rb'{"action": "bet", "seq": -1e400}'),
    ("/hands/{hand}/actions", rb'{"action": "\udc00"}'),
    ("/hands/{hand}/actions", rb'{"action": "\ud800\udc00\ud800", "seq": Infinity}'),
)
"""Bodies whose values JSON or UTF-8 cannot carry back (lone surrogates, NaN, Infinity, numbers
beyond a float): the validation error that quotes them must still be sent."""


@pytest.mark.parametrize(("path", "body"), UNECHOABLE)
def test_bodies_an_error_cannot_echo_are_422_on_a_connection_that_stays_open(
        live_api: LiveApi, path: str, body: bytes) -> None:
    """Each such body is a 422 whose answer is valid JSON (the odd value written as text), and
    the next request on the same keep-alive connection is answered."""
    import http.client
    import json
    from urllib.parse import urlsplit

    hand_id, token = live_api.hands[0]
    address = urlsplit(live_api.url)
    connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=30)
    try:
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {token}"}
        connection.request("POST", API + path.format(hand=hand_id), body=body,
                           headers=headers | {"Idempotency-Key": uuid.uuid4().hex})
        response = connection.getresponse()
        text = response.read()
        assert response.status == 422, text
        assert response.getheader("connection", "").lower() != "close"
        detail = json.loads(text)["detail"]  # strict JSON: no NaN, no lone surrogate
        assert detail and all(item["type"] for item in detail), detail
        json.dumps(detail, allow_nan=False).encode("utf-8")
        socket_before = connection.sock
        assert socket_before is not None
        connection.request("GET", f"{API}/games/kuhn")
        again = connection.getresponse()
        assert again.status == 200 and json.loads(again.read())["name"] == "kuhn"
        assert connection.sock is socket_before  # the same connection, not a new one
    finally:
        connection.close()

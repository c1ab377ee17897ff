"""Fuzzing the whole REST API from its own OpenAPI schema with schemathesis, against the app
running as a real server (uvicorn on 127.0.0.1, a temporary database, the test strategy store).

Every operation of ``/openapi.json`` is called with generated requests, valid and invalid
(schemathesis' examples, coverage and fuzzing phases), authenticated with a personal API key of
an account (which opens every match of the account, and the profile), and every answer must:

- never be a 5xx;
- have a status code the schema documents for the operation, a documented content type and
  headers, and a body that validates against the documented model;
- accept every request the schema calls valid (2xx, or 401/403/404/409 where a credential,
  a resource or the state of a hand says no: never a 4xx for its input), and reject invalid
  input with a 4xx, and honour the bearer authentication.

Generated ids would only ever reach the 401/404 branches, so part of the valid cases are made
to reach the app's state: they name a real match or hand and carry its real token or the
account's key (or a wrong one, or the id itself as the token), and an action is often a real
action label with the hand's ``seq``, so hands are played, finished and dealt again while the
fuzzer runs. The hands this creates are tracked.

The run is bounded (``FUZZ_MAX_EXAMPLES`` per operation and test, 100 by default; a fixed seed
unless ``FUZZ_SEED`` says otherwise; no example database written): about 7 minutes on two
cores shared with other work (authenticated, the requests reach the database and the bot).
"""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from requests.structures import CaseInsensitiveDict

from tests.app.server import Server, start_server

pytestmark = pytest.mark.slow  # about 7 minutes of fuzzing against a server

T = TypeVar("T")
MAX_EXAMPLES = int(os.environ.get("FUZZ_MAX_EXAMPLES", "100"))
SEED = int(os.environ.get("FUZZ_SEED", "20261122"))
API = "/api/v1"

LABELS = ("rock", "paper", "scissors", "check", "bet", "call", "fold", "raise", "dudo", "calzo",
          "1x2", "1x6", "2x3", "2x6")
"""Action labels of the games, so that generated actions are sometimes legal ones."""


@dataclass
class LiveApi:
    server: Server
    key: str
    """A personal API key of the account the fuzzer plays as."""
    matches: list[tuple[str, str]] = field(default_factory=list)
    """(match id, its token, or the key for a match of the key's account)"""
    hands: list[tuple[str, str]] = field(default_factory=list)
    """(hand id, its match's token or the key)"""
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
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            served = client.get("/openapi.json")
            assert served.status_code == 200 and served.json() == OPENAPI
            live = LiveApi(server, _account_key(client))
            for game in ("kuhn", "leduc", "rps", "dudo"):
                for credential in (None, live.key):
                    headers = {"Authorization": f"Bearer {credential}"} if credential else {}
                    created = client.post(f"{API}/matches", json={"game": game},
                                          headers=headers)
                    assert created.status_code == 201, created.text
                    body = created.json()
                    opener = credential or body["token"]
                    live.matches.append((body["match_id"], opener))
                    hand = client.post(f"{API}/matches/{body['match_id']}/hands",
                                       headers={"Authorization": f"Bearer {opener}"})
                    assert hand.status_code == 201, hand.text
                    live.hands.append((hand.json()["hand_id"], opener))
        yield live
    finally:
        server.stop()
    log = server.log()
    assert "Traceback" not in log and "unexpected error" not in log, log[-5000:]


def _account_key(client: httpx.Client) -> str:
    """Sign up through the pages, as a person does, and make a personal API key."""
    def csrf() -> str:
        found = re.search(r'name="csrf-token" content="([^"]+)"', client.get("/").text)
        assert found is not None
        return found.group(1)

    signed = client.post("/account/signup", data={
        "csrf_token": csrf(), "username": "fuzzer", "password": uuid.uuid4().hex})
    assert signed.status_code == 303 and signed.headers["location"] == "/profile", signed.text
    made = client.post("/account/keys", data={"csrf_token": csrf(), "name": "fuzzer"},
                       follow_redirects=True)
    found = re.search(r'id="new-key-value">([^<]+)<', made.text)
    assert found is not None, made.text
    return found.group(1).strip()


def _openapi() -> dict[str, Any]:
    """The app's own OpenAPI document, built in-process (the same code the server runs; the
    ``live_api`` fixture checks that the server serves exactly this). Schemathesis needs the
    schema when the tests are collected, before any server is up."""
    from app.core.config import Settings
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

IDENTITIES = ("owner",) * 6 + ("as generated", "no token", "wrong token", "id as token")
"""Who a valid case acts as: mostly the owner (the token of the match or hand in the path, or
the key of its account). Hypothesis draws the first of a list most often: the owner."""
GAMES = ("holdem-mini", "kuhn", "leduc", "rps", "dudo", "holdem")
"""The games a valid case with a game in its path names (the first, whose grid is explored,
most often; hold'em's strategy is not in the test store)."""


def _is_positive(case: schemathesis.Case[Any]) -> bool:
    meta = case.meta
    return meta is None or not any(c.mode.is_negative for c in meta.components.values())


def _credentials(case: schemathesis.Case[Any], live: LiveApi) -> dict[str, str]:
    """The account's key, sent as the case's credential (explicitly, so that schemathesis
    knows it is a real one and checks that leaving it out or garbling it is refused), unless
    the case is one of the coverage phase's about the credential itself."""
    data = case.meta.phase.data if case.meta is not None else None
    if str(getattr(data, "parameter", "")).lower() == "authorization":
        return {}
    return {"Authorization": f"Bearer {live.key}"}


def _pick(data: st.DataObject, items: list[T], label: str) -> T:
    """One of `items`, drawn so that the draw has the same shape whatever the list holds (it
    grows as the run deals hands, and the legal actions change with the hand): else hypothesis
    finds its data generation inconsistent between runs of one case."""
    return items[data.draw(st.integers(0, 1 << 16), label=label) % len(items)]


def _aim(case: schemathesis.Case[Any], data: st.DataObject, live: LiveApi) -> dict[str, str]:
    """Point a valid generated case at the app's real state (see the module's docstring); the
    credential to send it with (none: the one the case carries)."""
    params = case.path_parameters or {}
    if "game" in params:
        params["game"] = data.draw(st.sampled_from(GAMES), label="game")
        return _credentials(case, live)
    if "match_id" in params:
        targets = live.matches
        key = "match_id"
    elif "hand_id" in params:
        targets = live.hands
        key = "hand_id"
    else:
        return _credentials(case, live)
    identity = data.draw(st.sampled_from(IDENTITIES), label="identity")
    if identity == "as generated":
        return _credentials(case, live)
    target_id, token = _pick(data, targets, "target")
    params[key] = target_id
    headers = dict(case.headers or {})
    headers.pop("Authorization", None)
    if identity == "owner":  # in the case too: without it, the case would no longer be valid
        headers["Authorization"] = f"Bearer {token}"
    elif identity == "wrong token":
        other = [t for _, t in live.matches if t not in (token, live.key)] or ["not-a-token"]
        headers["Authorization"] = f"Bearer {_pick(data, other, 'other')}"
    elif identity == "id as token":
        headers["Authorization"] = f"Bearer {target_id}"
    if identity == "owner" and isinstance(case.body, dict) and "action" in case.body:
        # Mostly a legal action at the right seq (so hands are played to the end), else a
        # label of some game and a seq that may be stale; a body the schema lets go without a
        # seq goes without.
        view = httpx.get(f"{live.url}{API}/hands/{target_id}", timeout=30,
                         headers={"Authorization": f"Bearer {token}"})
        assert view.status_code == 200, view.text
        legal = view.json()["legal_actions"]
        mostly_legal = legal * 3 + list(LABELS) if legal else list(LABELS)
        body: dict[str, Any] = {"action": _pick(data, mostly_legal, "action")}
        if "seq" in case.body:
            body["seq"] = data.draw(st.sampled_from([view.json()["seq"], case.body["seq"]]),
                                    label="seq")
        case.body = body
        # A key the fuzzer draws would be drawn again for other actions: the same key with
        # another action is a 422 of its own, which only the state of the match decides (as
        # the Idempotency-Key draft asks). A valid case with a key gets a fresh one.
        if "Idempotency-Key" in headers:
            headers["Idempotency-Key"] = uuid.uuid4().hex
    case.headers = CaseInsensitiveDict(headers)
    return {"Authorization": f"Bearer {token}"} if identity == "owner" else {}


def _track(live: LiveApi, case: schemathesis.Case[Any], sent: Mapping[str, str],
           response: Any) -> None:
    """Remember the hands dealt during the run, with the credential that opens them."""
    live.seen(f"{case.method.upper()} {case.path}", response.status_code)
    if case.method.upper() != "POST" or response.status_code != 201:
        return
    generated: Mapping[str, Any] = case.headers or {}
    credential = sent.get("Authorization") or generated.get("Authorization", "")
    match = re.fullmatch(r"Bearer (\S+)", str(credential))
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
    sent = _credentials(case, live_api)
    response = case.call_and_validate(base_url=live_api.url, timeout=30, headers=sent)
    _track(live_api, case, sent, response)


@aimed.parametrize()  # type: ignore[untyped-decorator]
@aimed.given(data=st.data())  # type: ignore[untyped-decorator]
@settings(deadline=None, suppress_health_check=list(HealthCheck), print_blob=True,
          database=None)
def test_the_api_conforms_with_real_matches_and_tokens(case: schemathesis.Case[Any],
                                                       data: st.DataObject,
                                                       live_api: LiveApi) -> None:
    sent = _aim(case, data, live_api) if _is_positive(case) else _credentials(case, live_api)
    response = case.call_and_validate(base_url=live_api.url, timeout=30, headers=sent)
    _track(live_api, case, sent, response)


def test_the_fuzzing_reached_the_app_state(live_api: LiveApi) -> None:
    """The run above got past authentication and lookups: real matches and hands were read,
    actions were played (200), refused as illegal (409) and refused for their credential (401
    or 403: which of the two a run meets depends on the hands it has dealt by then; both are
    checked case by case in tests/app/test_api.py), new hands were dealt (201)."""
    seen = live_api.statuses
    assert 200 in seen.get(f"GET {API}/matches/{{match_id}}", set()), seen
    assert 200 in seen.get(f"GET {API}/hands/{{hand_id}}", set()), seen
    acted = seen.get(f"POST {API}/hands/{{hand_id}}/actions", set())
    assert {200, 409, 404, 422} <= acted and acted & {401, 403}, seen
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

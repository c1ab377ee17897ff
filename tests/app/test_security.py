"""Hardening: security headers, CSRF protection of the pages, stale and double submissions,
bearer tokens (hashed, compared in constant time, never replaceable by an id), request size
limits and absurd inputs. Every answer here is a clear 4xx, never a 5xx or a traceback."""

from __future__ import annotations

import hashlib
import hmac
import re
import sqlite3
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response

from app.core.security import MAX_BODY_BYTES, csp_hash
from app.db.models import Match
from app.main import CONTENT_SECURITY_POLICY, SESSION_COOKIE
from tests.app.conftest import AppFactory, AppHandle, new_match
from tests.app.test_pages import HX, csrf, enabled_actions, hidden_inputs, page, parse, play_form

API = "/api/v1"
HUGE = "x" * 10_000


@pytest.fixture
def web(make_app: AppFactory) -> AppHandle:
    return make_app(seed=3)


def start_match(client: TestClient, game: str = "kuhn") -> str:
    response = client.post(f"/play/{game}", data=csrf(client), follow_redirects=False)
    assert response.status_code == 303, response.text
    return str(response.headers["location"])


def sqlite_dump(handle: AppHandle) -> str:
    path = handle.settings.database_url.removeprefix("sqlite:///")
    connection = sqlite3.connect(path)
    try:
        return "\n".join(connection.iterdump())
    finally:
        connection.close()


# ---- headers -----------------------------------------------------------------------------------


def test_every_answer_carries_the_security_headers(web: AppHandle) -> None:
    client = web.client
    answers = {
        "page": client.get("/"),
        "api": client.get(f"{API}/games"),
        "static": client.get("/static/app.css"),
        "404 page": client.get("/nowhere", headers={"Accept": "text/html"}),
        "404 api": client.get(f"{API}/games/chess"),
        "413": client.post(f"{API}/matches", content=b"{" + b" " * MAX_BODY_BYTES + b"}",
                           headers={"Content-Type": "application/json"}),
    }
    for name, response in answers.items():
        headers = response.headers
        assert headers["x-content-type-options"] == "nosniff", name
        assert headers["x-frame-options"] == "DENY", name
        assert headers["referrer-policy"] == "same-origin", name
        assert headers["content-security-policy"] == CONTENT_SECURITY_POLICY, name
    policy = CONTENT_SECURITY_POLICY
    assert "default-src 'self'" in policy and "frame-ancestors 'none'" in policy
    assert "script-src 'self';" in policy  # no inline script, no eval, no other origin
    assert "unsafe" not in policy
    # API answers (a new match's carries its token) are not to be cached.
    assert answers["api"].headers["cache-control"] == "no-store"


def test_even_an_unexpected_500_carries_them(make_app: AppFactory) -> None:
    handle = make_app(raise_server_exceptions=False)

    @handle.app.get("/_boom")
    def boom() -> None:
        raise RuntimeError("a bug")

    response = handle.client.get("/_boom")
    assert response.status_code == 500
    assert response.json() == {"detail": "internal error; it was logged"}
    assert "a bug" not in response.text  # no traceback, no message
    assert response.headers["x-content-type-options"] == "nosniff"
    assert response.headers["content-security-policy"] == CONTENT_SECURITY_POLICY


def test_the_api_docs_come_from_the_app_under_the_one_policy(web: AppHandle) -> None:
    """Swagger UI is served from node_modules (npm's swagger-ui-dist, pinned) and started by a
    script file: /docs needs no network and gets the policy of every page; /redoc is gone."""
    docs = web.client.get("/docs", headers={"Accept": "text/html"})
    assert docs.status_code == 200
    assert docs.headers["content-security-policy"] == CONTENT_SECURITY_POLICY
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", docs.text)  # nothing off-site
    assets = re.findall(r'(?:src|href)="(/static/[^"]+)"', docs.text)
    assert {"/static/vendor/swagger-ui/swagger-ui-bundle.js",
            "/static/vendor/swagger-ui/swagger-ui.css", "/static/docs.js"} <= set(assets)
    for asset in assets:
        answer = web.client.get(asset)
        assert answer.status_code == 200, asset
        kind = "css" if asset.endswith(".css") else "javascript"
        assert kind in answer.headers["content-type"], asset
    assert "SwaggerUIBundle" in web.client.get("/static/docs.js").text
    assert web.client.get("/openapi.json").json()["paths"]
    assert web.client.get("/redoc").status_code == 404


def test_pages_have_no_inline_script_or_style_but_the_charts_hashed_one(web: AppHandle) -> None:
    client = web.client
    url = start_match(client)
    pages = ["/", "/play/kuhn", url, f"{url}?hint=1", "/games/kuhn/strategy",
             "/games/dudo/strategy?card=3", "/no/such/page"]
    styles: set[str] = set()
    for address in pages:
        html = client.get(address, headers={"Accept": "text/html"}).text
        assert not re.search(r"\sstyle\s*=", html), address
        assert not re.search(r"\son[a-z]+\s*=", html), address
        for attrs, body in re.findall(r"<script([^>]*)>(.*?)</script>", html, flags=re.S):
            assert "src=" in attrs and not body.strip(), address
        styles.update(re.findall(r"<style>(.*?)</style>", html, flags=re.S))
    # The only inline style is the charts' (inside their SVG), and the policy names its hash.
    assert len(styles) == 1
    (chart_css,) = styles
    assert csp_hash(chart_css) in CONTENT_SECURITY_POLICY


def test_session_cookie_is_httponly_and_samesite(web: AppHandle) -> None:
    cookie = web.client.get("/").headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert "httponly" in flags and "samesite=lax" in flags


# ---- CSRF --------------------------------------------------------------------------------------


def count_matches(handle: AppHandle) -> int:
    return sqlite_dump(handle).count('INSERT INTO "matches"')


def test_forms_and_htmx_carry_the_sessions_csrf_token(web: AppHandle) -> None:
    client = web.client
    url = start_match(client)
    token = csrf(client)["csrf_token"]
    for address in ("/", "/play/kuhn", url, "/games/kuhn/strategy"):
        doc = page(client, address)
        meta = doc.find("meta", name="csrf-token")
        assert meta is not None and meta.attrs["content"] == token
        assert token in doc.first("body").attrs["hx-headers"]
        for form in doc.find_all("form"):
            if form.attrs.get("method") == "post":
                assert hidden_inputs(form).get("csrf_token") == token, (address, form.attrs)
    # The token stays the same for the session, and differs between sessions.
    with TestClient(web.app) as other:
        assert csrf(other)["csrf_token"] != token


@pytest.mark.parametrize("forged", [None, "", "x" * 43, "token-of-another-session"])
def test_posts_without_the_right_token_are_refused(web: AppHandle, forged: str | None) -> None:
    client = web.client
    url = start_match(client)
    before = count_matches(web)
    events = len(page(client, url).by_id("table").find_all("li"))
    if forged == "token-of-another-session":
        with TestClient(web.app) as other:
            forged = csrf(other)["csrf_token"]
    data = {} if forged is None else {"csrf_token": forged}
    for target, extra in (("/play/kuhn", {}), (f"{url}/act", {"action": "bet"}),
                          (f"{url}/next", {})):
        response = client.post(target, data={**extra, **data}, follow_redirects=False)
        assert response.status_code == 403, (target, response.text)
        assert response.headers["content-type"].startswith("text/html")
        assert "security token" in response.text
        assert "nothing was done" in response.text
    # Nothing happened: no new match, no action.
    assert count_matches(web) == before
    assert len(page(client, url).by_id("table").find_all("li")) == events


def test_htmx_sends_the_token_as_a_header(web: AppHandle) -> None:
    client = web.client
    url = start_match(client)
    form = play_form(page(client, url))
    fields = {k: v for k, v in hidden_inputs(form).items() if k != "csrf_token"}
    label = enabled_actions(form)[0]
    # Without the field but with the header (what hx-headers on <body> sends): accepted.
    response = client.post(f"{url}/act", data={**fields, "action": label},
                           headers={**HX, "X-CSRF-Token": csrf(client)["csrf_token"]})
    assert response.status_code == 200 and "<html" not in response.text
    # Neither: a 403 flash swapped into the target, not a whole page.
    response = client.post(f"{url}/next", headers=HX)
    assert response.status_code == 403
    assert "<html" not in response.text and 'id="table"' in response.text
    assert "security token" in response.text


# ---- double clicks, second tabs ---------------------------------------------------------------


def test_a_double_submission_is_played_once(web: AppHandle) -> None:
    client = web.client
    url = start_match(client, "leduc")  # a check never ends a Leduc hand: it goes on
    form = play_form(page(client, url))
    fields = hidden_inputs(form)
    assert fields["seq"].isdigit()
    first = client.post(f"{url}/act", data={**fields, "action": "check"},
                        follow_redirects=False)
    assert first.status_code == 303
    after_first = page(client, url)
    events = len(after_first.by_id("table").first("ol").find_all("li"))
    # The same form again (a double click without JavaScript, or a second tab): same seq.
    second = client.post(f"{url}/act", data={**fields, "action": "check"},
                         follow_redirects=False)
    assert second.status_code == 409
    doc = parse(second.text)
    assert "earlier view of this hand" in doc.by_id("table-message").text
    assert len(doc.by_id("table").first("ol").find_all("li")) == events
    # Only one human action was recorded.
    with web.app.state.sessionmaker() as session:
        match = session.query(Match).filter_by(public_id=url.rsplit("/", 1)[1]).one()
        hand = match.hands[-1]
        assert [a.label for a in hand.actions if a.actor == hand.human_seat] == ["check"]


# ---- bearer tokens -----------------------------------------------------------------------------


def test_tokens_are_stored_hashed_only(web: AppHandle) -> None:
    tokens = []
    for game in ("kuhn", "leduc", "rps"):
        response = web.client.post(f"{API}/matches", json={"game": game})
        assert response.status_code == 201
        tokens.append(response.json()["token"])
    dump = sqlite_dump(web)
    for token in tokens:
        assert len(token) >= 40  # 256 random bits
        assert token not in dump
        assert hashlib.sha256(token.encode()).hexdigest() in dump


def test_tokens_are_compared_in_constant_time(web: AppHandle,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[tuple[object, object]] = []
    compare_digest = hmac.compare_digest

    def spy(a: str, b: str) -> bool:
        calls.append((a, b))
        return compare_digest(a, b)

    match_id, headers = new_match(web.client, "kuhn")
    monkeypatch.setattr("app.services.play.tokens.hmac.compare_digest", spy)
    assert web.client.get(f"{API}/matches/{match_id}", headers=headers).status_code == 200
    assert web.client.get(f"{API}/matches/{match_id}",
                          headers={"Authorization": "Bearer nope"}).status_code == 403
    assert len(calls) == 2
    token = headers["Authorization"].removeprefix("Bearer ")
    assert calls[0] == (hashlib.sha256(token.encode()).hexdigest(),) * 2


def test_ids_alone_open_nothing(web: AppHandle) -> None:
    """Knowing a match's or hand's id (it is in URLs) opens none of its endpoints, whether it
    is sent as the token or not; neither does the stored hash of the token."""
    client = web.client
    match_id, headers = new_match(client, "kuhn")
    hand = client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    hand_id = hand["hand_id"]
    token = headers["Authorization"].removeprefix("Bearer ")
    endpoints = [
        ("GET", f"{API}/matches/{match_id}", None),
        ("POST", f"{API}/matches/{match_id}/hands", None),
        ("GET", f"{API}/hands/{hand_id}", None),
        ("POST", f"{API}/hands/{hand_id}/actions", {"action": hand["legal_actions"][0],
                                                    "seq": hand["seq"]}),
    ]
    fakes = {
        "no token": {},
        "match id": {"Authorization": f"Bearer {match_id}"},
        "hand id": {"Authorization": f"Bearer {hand_id}"},
        "token hash": {"Authorization": f"Bearer {hashlib.sha256(token.encode()).hexdigest()}"},
        "cookie only": {"Cookie": f"{SESSION_COOKIE}=anything"},
    }
    for method, url, body in endpoints:
        for name, fake in fakes.items():
            response = client.request(method, url, headers=fake, json=body)
            assert response.status_code in (401, 403), (method, url, name, response.text)
    # The pages do not open it either: the match belongs to no browser session.
    assert client.get(f"/matches/{match_id}").status_code == 403
    # Nothing was played.
    assert client.get(f"{API}/hands/{hand_id}", headers=headers).json()["events"] == \
        hand["events"]


# ---- size limits -------------------------------------------------------------------------------


def padded_body(size: int) -> bytes:
    """A JSON object of exactly `size` bytes."""
    head = b'{"game": "kuhn", "pad": "'
    return head + b"x" * (size - len(head) - 2) + b'"}'


def test_bodies_over_the_limit_are_413_before_parsing(web: AppHandle) -> None:
    client = web.client
    over = padded_body(MAX_BODY_BYTES + 1)
    response = client.post(f"{API}/matches", content=over,
                           headers={"Content-Type": "application/json"})
    assert response.status_code == 413
    detail = response.json()["detail"]
    assert "16,384 bytes" in detail and f"{MAX_BODY_BYTES + 1:,}" in detail
    # At the limit: parsed (and refused for its extra field, a 422, not a 413).
    at = client.post(f"{API}/matches", content=padded_body(MAX_BODY_BYTES),
                     headers={"Content-Type": "application/json"})
    assert at.status_code == 422

    # Streamed without a Content-Length (chunked): counted as it arrives.
    def chunks() -> Iterator[bytes]:
        for _ in range(40):
            yield b" " * 1024

    streamed = client.post(f"{API}/matches", content=chunks(),
                           headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413
    assert "more than that" in streamed.json()["detail"]
    # A page's form too, with an HTML answer for a browser.
    url = start_match(client)
    form_post = client.post(f"{url}/act", data={"action": "x" * (MAX_BODY_BYTES + 10)},
                            headers={"Accept": "text/html"})
    assert form_post.status_code == 413
    assert form_post.headers["content-type"].startswith("text/html")
    assert "Request too large" in form_post.text


# ---- absurd inputs -----------------------------------------------------------------------------


def assert_short_4xx(response: Response, status: int | tuple[int, ...]) -> None:
    statuses = (status,) if isinstance(status, int) else status
    assert response.status_code in statuses, response.text[:500]
    assert len(response.content) < 2_000, len(response.content)
    assert HUGE not in response.text and "x" * 200 not in response.text


def test_huge_strings_get_short_answers(web: AppHandle) -> None:
    client = web.client
    match_id, headers = new_match(client, "kuhn")
    hand = client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    cases = [
        client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                    json={"action": HUGE}),
        client.post(f"{API}/matches", json={"game": HUGE}),
        client.get(f"{API}/games/{HUGE}"),
        client.get(f"{API}/games/{HUGE}/strategy"),
        client.get(f"{API}/games/kuhn/strategy", params={"infoset": HUGE}),
        client.get(f"{API}/matches/{HUGE}", headers=headers),
        client.get(f"{API}/hands/{HUGE}", headers=headers),
    ]
    for response in cases:
        assert_short_4xx(response, 422)
        problem = response.json()["detail"][0]
        assert problem["msg"] and problem["loc"]
        assert "(10,000 characters)" in problem["input"]  # what it was, cut short
    assert client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                       json={"action": HUGE}).json()["detail"][0]["msg"] == \
        "String should have at most 32 characters"
    # The pages: a friendly, short HTML answer.
    url = start_match(client)
    html = {"Accept": "text/html"}
    for response in (client.get(f"/play/{HUGE}", headers=html),
                     client.get(f"/games/{HUGE}/strategy", headers=html),
                     client.get(f"/matches/{HUGE}", headers=html)):
        assert response.status_code == 404
        assert "There is no page at this address" in response.text
        assert "x" * 100 not in response.text
    form = play_form(page(client, url))
    response = client.post(f"{url}/act", data={**hidden_inputs(form), "action": HUGE})
    assert response.status_code == 422 and "<html" in response.text
    assert "at most 32 characters" in response.text and HUGE not in response.text


def test_unknown_unicode_and_nul_actions_are_409_with_the_legal_ones(web: AppHandle) -> None:
    match_id, headers = new_match(web.client, "kuhn")
    hand = web.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    for label in ("raise", "ᴮᴱᵀ", "bet\x00", "\x00", "check ", "🂡"):
        response = web.client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                                   json={"action": label, "seq": hand["seq"]})
        assert response.status_code == 409, (label, response.text)
        body = response.json()
        assert body["legal_actions"] == ["check", "bet"]
        assert "legal actions: check, bet" in body["detail"]
    assert web.client.get(f"{API}/hands/{hand['hand_id']}",
                          headers=headers).json()["events"] == hand["events"]


@pytest.mark.parametrize(
    ("path", "status"),
    [
        ("/matches/-1", 404), ("/matches/0", 404), ("/matches/abc", 404),
        ("/matches/" + "9" * 65, 422), ("/hands/-1", 404), ("/hands/0", 404),
        ("/hands/" + "9" * 100, 422), ("/matches/%00", 422), ("/hands/%00abc", 422),
        ("/matches/%C3%A9t%C3%A9", 422), ("/hands/..%2F..%2Fetc", 404),
        ("/matches/a%20b", 422), ("/games/%E2%98%83", 422), ("/games/kuhn%00", 422),
        ("/games/-1", 404),
    ],
)
def test_odd_ids_in_paths_are_404_or_422(web: AppHandle, path: str, status: int) -> None:
    _, headers = new_match(web.client, "kuhn")
    response = web.client.get(API + path, headers=headers)
    assert_short_4xx(response, status)
    assert response.json()["detail"]


@pytest.mark.parametrize(
    "query",
    ["offset=-1", "offset=1.5", "offset=1e3", "offset=" + "9" * 30, "limit=0", "limit=-5",
     "limit=100001", "limit=abc", "infoset=" + "k" * 201],
)
def test_odd_query_values_are_422(web: AppHandle, query: str) -> None:
    assert_short_4xx(web.client.get(f"{API}/games/kuhn/strategy?{query}"), 422)


def test_odd_query_strings_on_hands_are_422(web: AppHandle) -> None:
    match_id, headers = new_match(web.client, "kuhn")
    hand = web.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    for hint in ("maybe", "2", "\x00"):
        response = web.client.get(f"{API}/hands/{hand['hand_id']}", params={"hint": hint},
                                  headers=headers)
        assert_short_4xx(response, 422)
    response = web.client.get(f"{API}/games/kuhn/strategy", params={"infoset": "K|\x00"})
    assert_short_4xx(response, 404)


def test_malformed_json_is_422(web: AppHandle) -> None:
    match_id, headers = new_match(web.client, "kuhn")
    hand = web.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    target = f"{API}/hands/{hand['hand_id']}/actions"
    for raw in (b"{", b'{"action": "bet"', b"\xff\xfe\xfa", b"[1, 2", b"nul", b'{"action": bet}'):
        response = web.client.post(target, content=raw, headers={
            **headers, "Content-Type": "application/json"})
        assert_short_4xx(response, 422)
        assert response.json()["detail"][0]["msg"].startswith("the body is not valid JSON")
    for raw in (b"[]", b'"bet"', b"null", b'{"action": null}', b'{"action": ["bet"]}'):
        response = web.client.post(target, content=raw, headers={
            **headers, "Content-Type": "application/json"})
        assert_short_4xx(response, 422)


def test_a_body_that_is_not_json_is_415(web: AppHandle) -> None:
    match_id, headers = new_match(web.client, "kuhn")
    hand = web.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    for target in (f"{API}/matches", f"{API}/hands/{hand['hand_id']}/actions"):
        for content_type, body in (("text/plain", b'{"action": "bet"}'),
                                   ("application/x-www-form-urlencoded", b"action=bet"),
                                   ("multipart/form-data; boundary=x", b"--x--"),
                                   ("application/xml", b"<action>bet</action>")):
            response = web.client.post(target, content=body, headers={
                **headers, "Content-Type": content_type})
            assert_short_4xx(response, 415)
            assert "Content-Type: application/json" in response.json()["detail"]
        # No Content-Type at all, with a body: the same.
        response = web.client.post(target, content=b'{"game": "kuhn"}', headers=headers)
        assert_short_4xx(response, 415)
    # The JSON variants are accepted.
    ok = web.client.post(f"{API}/matches", content=b'{"game": "kuhn"}',
                         headers={"Content-Type": "application/json; charset=utf-8"})
    assert ok.status_code == 201

"""Accounts on SQLite and PostgreSQL: signing up keeps the browser's matches, signing in on
another device shows them, the session is rotated at sign-in and dead after sign-out, the
password is Argon2-hashed and changeable, the account and its data can be deleted; sign-in
answers the same whether the name exists, and is limited per name and address and per address
with counters every worker shares (`test_sign_in_throttle.py`: without locking the owner out);
every form needs the CSRF token."""

from __future__ import annotations

import base64
import json
import statistics
import time
from typing import Any

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response
from itsdangerous import TimestampSigner
from sqlalchemy import func, select, text

from app.db.models import Account, AccountSession, Action, Hand, Match, PlayerTotals
from app.main import SESSION_COOKIE
from app.services.players import accounts, throttle
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_pages import csrf, parse

PASSWORD = "correct horse battery"


def signup(client: TestClient, name: str = "alice", password: str = PASSWORD) -> Response:
    return client.post("/account/signup", data={**csrf(client), "username": name,
                                                "password": password}, follow_redirects=False)


def signin(client: TestClient, name: str = "alice", password: str = PASSWORD) -> Response:
    return client.post("/account/signin", data={**csrf(client), "username": name,
                                                "password": password}, follow_redirects=False)


def cookie_session(handle: AppHandle, client: TestClient) -> dict[str, Any]:
    """What the signed session cookie holds (Starlette signs base64 JSON)."""
    signed = client.cookies.get(SESSION_COOKIE)
    assert signed
    data = TimestampSigner(handle.settings.secret_key).unsign(signed.encode())
    return dict(json.loads(base64.b64decode(data)))


def play_hands(client: TestClient, match_url: str, hands: int) -> None:
    """Finish the table's hand and deal and finish `hands` - 1 more, by plain form posts,
    always taking the first legal action."""
    for number in range(hands):
        if number:
            client.post(f"{match_url}/next", data=csrf(client), follow_redirects=False)
        while True:
            doc = parse(client.get(match_url).text)
            forms = [f for f in doc.find_all("form") if f.attrs.get("action", "").endswith("/act")]
            if not forms:
                break
            form = forms[0]
            fields = {i.attrs["name"]: i.attrs.get("value", "") for i in form.find_all("input")
                      if i.attrs.get("type") == "hidden"}
            label = next(b.attrs["value"] for b in form.find_all("button", name="action")
                         if "disabled" not in b.attrs)
            client.post(form.attrs["action"], data={**fields, "action": label},
                        follow_redirects=False)


def start(client: TestClient, game: str = "kuhn") -> str:
    response = client.post(f"/play/{game}", data=csrf(client), follow_redirects=False)
    assert response.status_code == 303
    return str(response.headers["location"])


def profile_matches(client: TestClient) -> list[str]:
    response = client.get("/profile", follow_redirects=False)
    assert response.status_code == 200, response.text
    return [row.attrs["data-match"] for row in parse(response.text).find_all("tr")
            if "data-match" in row.attrs]


def engine_of(handle: AppHandle) -> Any:
    return handle.app.state.engine


@pytest.fixture
def web(make_app: AppFactory, database_url: str) -> AppHandle:
    return make_app(database_url=database_url)


@pytest.mark.slow
def test_sign_up_keeps_this_browsers_matches_and_another_device_sees_them(
        web: AppHandle, make_app: AppFactory) -> None:
    laptop = web.client
    url = start(laptop)
    play_hands(laptop, url, 3)
    before = cookie_session(web, laptop)
    assert signup(laptop).headers["location"] == "/profile"
    after = cookie_session(web, laptop)
    # Rotated: a new player id, a new CSRF token, and a session id the database knows.
    assert after["owner"] != before["owner"] and after.get("csrf") != before["csrf"]
    assert after["sid"]
    match_id = url.rsplit("/", 1)[1]
    assert profile_matches(laptop) == [match_id]
    record = parse(laptop.get("/profile").text).find("section", id="record-kuhn-guest")
    assert record is not None and "3" in record.first("dd", cls="hands").text

    phone = TestClient(web.app)  # another device: its own cookies
    assert phone.get(url).status_code == 403
    assert signin(phone).headers["location"] == "/profile"
    assert profile_matches(phone) == [match_id]
    assert phone.get(url).status_code == 200  # the match opens on the phone too
    # A match started on the phone while signed in is the account's: the laptop sees it.
    second = start(phone, "leduc").rsplit("/", 1)[1]
    assert set(profile_matches(laptop)) == {match_id, second}
    phone.close()


def test_signing_out_ends_the_session_even_for_a_copy_of_the_cookie(web: AppHandle) -> None:
    client = web.client
    url = start(client)
    signup(client)
    copy = dict(client.cookies)
    assert client.get(url).status_code == 200
    response = client.post("/account/signout", data=csrf(client), follow_redirects=False)
    assert response.status_code == 303
    assert client.get(url).status_code == 403
    assert client.get("/profile", follow_redirects=False).headers["location"] == "/account"
    # The old cookie, replayed, opens neither the profile nor the match: the session is gone
    # from the database, and the match belongs to the account, not to the old player id.
    thief = TestClient(web.app)
    thief.cookies.update(copy)
    assert thief.get("/profile", follow_redirects=False).status_code == 303
    assert thief.get(url).status_code == 403
    with engine_of(web).connect() as conn:
        assert conn.execute(select(func.count()).select_from(AccountSession)).scalar() == 0
    thief.close()


@pytest.mark.slow
def test_passwords_are_argon2_hashes_and_a_change_signs_out_other_devices(
        web: AppHandle) -> None:
    laptop = web.client
    signup(laptop)
    phone = TestClient(web.app)
    signin(phone)
    with engine_of(web).connect() as conn:
        stored = conn.execute(select(Account.password_hash)).scalar_one()
    assert stored.startswith("$argon2id$") and PASSWORD not in stored
    bad = laptop.post("/account/password", data={**csrf(laptop), "current": "not it at all",
                                                 "new": "a new password"})
    assert bad.status_code == 401
    changed = laptop.post("/account/password", data={**csrf(laptop), "current": PASSWORD,
                                                     "new": "a new password"})
    assert changed.status_code == 200 and "password was changed" in changed.text
    assert laptop.get("/profile", follow_redirects=False).status_code == 200
    assert phone.get("/profile", follow_redirects=False).status_code == 303
    assert signin(phone).status_code == 401
    assert signin(phone, password="a new password").status_code == 303
    phone.close()


@pytest.mark.slow
def test_deleting_the_account_deletes_its_matches_and_totals(web: AppHandle) -> None:
    client = web.client
    url = start(client)
    play_hands(client, url, 2)
    signup(client)
    other = TestClient(web.app)
    kept = start(other)  # somebody else's match stays
    refused = client.post("/account/delete", data={**csrf(client), "password": "wrong one!"})
    assert refused.status_code == 401
    response = client.post("/account/delete", data={**csrf(client), "password": PASSWORD},
                           follow_redirects=False)
    assert response.status_code == 303
    with engine_of(web).connect() as conn:
        count = {model.__tablename__: conn.execute(select(func.count()).select_from(model))
                 .scalar() for model in (Account, Match, Hand, Action, PlayerTotals)}
    assert count["accounts"] == 0 and count["player_totals"] == 0
    assert count["matches"] == 1 and count["hands"] == 1 and count["actions"] > 0
    assert other.get(kept).status_code == 200
    assert signin(client).status_code == 401
    other.close()


@pytest.mark.slow
def test_sign_in_says_the_same_whether_the_name_exists(web: AppHandle,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """Same status and words for a wrong password and an unknown name, and both check a
    password hash (the unknown name against a dummy one), so both take about as long."""
    signup(TestClient(web.app))
    verified: list[str] = []
    real = accounts.hasher().verify_and_update

    def spy(password: str, hashed: str) -> tuple[bool, str | None]:
        verified.append(hashed)
        return real(password, hashed)

    monkeypatch.setattr(accounts.hasher(), "verify_and_update", spy)
    times: dict[str, list[float]] = {"wrong": [], "unknown": []}
    answers = {}
    for i in range(4):
        for case, name in (("wrong", "alice"), ("unknown", f"nobody{i}")):
            client = TestClient(web.app)
            began = time.perf_counter()
            response = signin(client, name, "not the password")
            times[case].append(time.perf_counter() - began)
            answers[case] = (response.status_code,
                             parse(response.text).first("div", id="account-message").text)
            client.close()
    assert answers["wrong"] == answers["unknown"] == (401, "Wrong user name or password.")
    assert len(verified) == 8 and all(h.startswith("$argon2id$") for h in verified)
    ratio = statistics.median(times["unknown"]) / statistics.median(times["wrong"])
    assert 0.5 < ratio < 2.0, times


@pytest.mark.slow
def test_sign_in_is_limited_per_name_and_address(web: AppHandle) -> None:
    """A browser that never signed in with the name, at one address: five attempts, then the
    right password is refused there too; an unknown name alike (nothing tells the two apart).
    `test_sign_in_throttle.py` shows that the owner gets in all the same."""
    signup(TestClient(web.app))
    for _ in range(throttle.NAME_AND_ADDRESS.attempts):
        assert signin(TestClient(web.app), "alice", "guessing wrong").status_code == 401
    blocked = signin(TestClient(web.app))
    assert blocked.status_code == 429 and "too many sign-in attempts" in blocked.text.lower()
    assert int(blocked.headers["retry-after"]) > 0
    for _ in range(throttle.NAME_AND_ADDRESS.attempts):
        signin(TestClient(web.app), "nobody", "guessing wrong")
    assert signin(TestClient(web.app), "nobody", "guessing").status_code == 429


@pytest.mark.slow
def test_the_limits_are_shared_by_workers_and_per_address(make_app: AppFactory,
                                                          database_url: str) -> None:
    """Two apps on one database (two workers, or two instances): attempts made on one count
    on the other. An address trying many names is stopped too."""
    first, second = (make_app(database_url=database_url) for _ in range(2))
    signup(TestClient(first.app))
    for i in range(throttle.NAME_AND_ADDRESS.attempts):
        app = (first, second)[i % 2].app
        assert signin(TestClient(app), "alice", "wrong guess!").status_code == 401
    assert signin(TestClient(second.app)).status_code == 429
    statuses = [signin(TestClient(first.app), f"user{i}", "wrong guess!").status_code
                for i in range(throttle.ADDRESS.attempts)]
    # The testclient address made the earlier attempts too: it is over its limit now.
    assert statuses[-1] == 429 and 401 in statuses


@pytest.mark.slow
def test_a_successful_sign_in_forgets_the_failures_at_its_address(web: AppHandle) -> None:
    signup(TestClient(web.app))
    for _ in range(throttle.NAME_AND_ADDRESS.attempts - 1):
        signin(TestClient(web.app), "alice", "guessing wrong")
    assert signin(TestClient(web.app)).status_code == 303
    assert signin(TestClient(web.app), "alice", "guessing wrong").status_code == 401
    counters = {c.limit: c.key for c in throttle.sign_in_counters("alice", "testclient", None)}
    with engine_of(web).connect() as conn:
        attempts = {limit: conn.execute(text("SELECT attempts FROM rate_limits WHERE key = :k"),
                                        {"k": key}).scalar()
                    for limit, key in counters.items()}
    # One failure since the success at the address; the success counts against neither the
    # address nor the name's daily allowance, which count failures (all of them).
    failures = throttle.NAME_AND_ADDRESS.attempts - 1 + 1
    assert attempts[throttle.NAME_AND_ADDRESS] == 1
    assert attempts[throttle.ADDRESS] == attempts[throttle.NAME] == failures


def test_names_and_passwords_are_checked_and_names_are_unique(make_app: AppFactory) -> None:
    web = make_app()
    assert signup(web.client, "a", PASSWORD).status_code == 422
    assert signup(web.client, "bob", "short").status_code == 422
    assert signup(web.client, "Alice").status_code == 303
    taken = signup(TestClient(web.app), "alice")
    assert taken.status_code == 409 and "taken" in taken.text
    assert signin(TestClient(web.app), "ALICE").status_code == 303  # names ignore case


@pytest.mark.parametrize("path", ["/account/signup", "/account/signin", "/account/signout",
                                  "/account/password", "/account/delete", "/account/boards",
                                  "/account/keys", "/account/keys/abc/revoke"])
def test_every_account_form_needs_the_csrf_token(make_app: AppFactory, path: str) -> None:
    client = make_app().client
    signup(client)
    for token in (None, "forged"):
        data = {"username": "alice", "password": PASSWORD, "current": PASSWORD,
                "new": "another password", "name": "k", "kind": "program"}
        if token:
            data["csrf_token"] = token
        response = client.post(path, data=data, follow_redirects=False)
        assert response.status_code == 403, (path, token)
    assert client.get("/profile", follow_redirects=False).status_code == 200  # still signed in

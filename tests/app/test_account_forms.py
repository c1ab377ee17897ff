"""The account forms that cost a password hash are limited (429 with ``Retry-After`` and words)
and check the cheap things first; what succeeds answers with a redirect (Post/Redirect/Get), a
new key shown once by the page it leads to and never again."""

from __future__ import annotations

import hashlib

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import ApiKey
from app.services.players import accounts, throttle
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_accounts import PASSWORD, engine_of, signup
from tests.app.test_pages import csrf, parse


@pytest.fixture
def web(make_app: AppFactory) -> AppHandle:
    return make_app()


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The passwords hashed (Argon2) while the test runs."""
    seen: list[str] = []
    real = accounts.hasher().hash

    def spy(password: str, **kwargs: object) -> str:
        seen.append(password)
        return real(password)

    monkeypatch.setattr(accounts.hasher(), "hash", spy)
    return seen


def flash(response: object, element: str = "account-message") -> str:
    node = parse(str(getattr(response, "text", ""))).find("div", id=element)
    return node.text if node is not None else ""


def test_sign_up_checks_the_cheap_things_first_and_is_limited_per_address(
        web: AppHandle, hashed: list[str]) -> None:
    assert signup(web.client).status_code == 303
    assert hashed == [PASSWORD]
    client = TestClient(web.app, client=("203.0.113.20", 50000))
    taken = signup(client, "ALICE", "another good password")
    assert taken.status_code == 409 and "taken" in flash(taken)
    weak = signup(client, "bob", "password")
    assert weak.status_code == 422
    assert hashed == [PASSWORD]  # neither was hashed
    statuses = [signup(client, "alice", "yet another password").status_code
                for _ in range(throttle.SIGN_UP.attempts)]
    assert statuses[:-1] == [409] * (throttle.SIGN_UP.attempts - 1)
    refused = signup(client, "carol", "a fine password for carol")
    assert statuses[-1] == refused.status_code == 429
    assert int(refused.headers["retry-after"]) > 0
    assert "too many accounts tried from your network; try again in" in flash(refused).lower()
    assert hashed == [PASSWORD]
    # Another address is not touched.
    elsewhere = TestClient(web.app, client=("198.51.100.20", 50000))
    assert signup(elsewhere, "carol", "a fine password for carol").status_code == 303


@pytest.mark.slow
def test_the_current_password_is_limited_for_a_change_and_a_deletion(web: AppHandle) -> None:
    """Wrong current passwords, to change it or to delete the account, count together: five,
    then 429 whatever is typed (somebody holding the session cannot guess on and on)."""
    client = web.client
    signup(client)
    for form, field in [("password", "current"), ("delete", "password")] * 3:
        if (answer := client.post(f"/account/{form}", data={
                **csrf(client), field: "not my password", "new": "a new password"})
                ).status_code == 429:
            break
        assert answer.status_code == 401
    assert answer.status_code == 429
    assert int(answer.headers["retry-after"]) > 0
    assert "too many wrong passwords" in flash(answer, "profile-message").lower()
    for form, field in [("password", "current"), ("delete", "password")]:
        refused = client.post(f"/account/{form}", data={**csrf(client), field: PASSWORD,
                                                        "new": "a new password"})
        assert refused.status_code == 429, form
    assert client.get("/profile", follow_redirects=False).status_code == 200  # not deleted


def test_a_changed_password_answers_with_a_redirect(web: AppHandle) -> None:
    client = web.client
    signup(client)
    changed = client.post("/account/password", data={**csrf(client), "current": PASSWORD,
                                                     "new": "a new password"},
                          follow_redirects=False)
    assert changed.status_code == 303 and changed.headers["location"] == "/profile"
    notice = "Your password was changed; every other device was signed out."
    assert flash(client.get("/profile"), "profile-notice") == notice
    assert flash(client.get("/profile"), "profile-notice") == ""  # said once


def test_a_new_key_is_shown_once_by_the_page_the_post_redirects_to(web: AppHandle) -> None:
    client = web.client
    signup(client)
    posted = client.post("/account/keys", data={**csrf(client), "name": "my bot",
                                                "kind": "program"}, follow_redirects=False)
    assert posted.status_code == 303
    assert posted.headers["location"].startswith("/profile")
    assert "sbk_" not in posted.text
    shown = parse(client.get(posted.headers["location"]).text)
    code = shown.find("code", id="new-key-value")
    assert code is not None
    key = code.text.strip()
    assert key.startswith("sbk_")
    with engine_of(web).connect() as conn:
        stored = conn.execute(select(ApiKey.key_hash)).scalar_one()
    assert stored == hashlib.sha256(key.encode()).hexdigest()  # kept as its hash only
    again = client.get("/profile")
    assert again.status_code == 200 and key not in again.text
    assert parse(again.text).find("code", id="new-key-value") is None
    assert client.get("/api/v1/profile", headers={"Authorization": f"Bearer {key}"}
                      ).status_code == 200

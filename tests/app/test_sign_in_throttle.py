"""Guessing a password is slowed down, and nobody can lock the owner out
(`app.services.players.throttle`): a guesser at one address gets five tries of a name, the owner
still signs in from a browser that signed in before (even at the guesser's address) and from a new
one elsewhere; a guesser with many addresses spends the name's daily allowance for new browsers
only; the device cookie cannot be forged; a refusal says nothing about whether the name
exists."""

from __future__ import annotations

from datetime import timedelta

import pytest
from fastapi.testclient import TestClient
from httpx2 import Response
from itsdangerous import URLSafeSerializer
from sqlalchemy.orm import Session

from app.core.errors import TooManyAttemptsError
from app.db import rate_limit
from app.db.models import utcnow
from app.services.players import accounts, throttle
from app.web.devices import DEVICE_COOKIE
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_accounts import PASSWORD, engine_of, signin, signup
from tests.app.test_pages import csrf, parse

GUESSER = ("203.0.113.9", 40001)
OWNER_AT_HOME = ("198.51.100.7", 40002)
ELSEWHERE = ("192.0.2.44", 40003)


@pytest.fixture
def web(make_app: AppFactory) -> AppHandle:
    return make_app()


def browser(handle: AppHandle, address: tuple[str, int]) -> TestClient:
    """A new browser (no cookies) at `address`."""
    return TestClient(handle.app, client=address)


def owners_browser(handle: AppHandle) -> TestClient:
    """The browser alice signed up with, signed out again: it keeps its device cookie."""
    owner = browser(handle, OWNER_AT_HOME)
    assert signup(owner).status_code == 303
    owner.post("/account/signout", data=csrf(owner), follow_redirects=False)
    return owner


def message(response: Response) -> str:
    node = parse(response.text).find("div", id="account-message")
    return node.text if node is not None else ""


@pytest.mark.slow
def test_a_guesser_is_slowed_down_and_the_owner_still_gets_in(web: AppHandle) -> None:
    owner = owners_browser(web)
    guesser = browser(web, GUESSER)
    for _ in range(5):
        assert signin(guesser, "alice", "guessing wrong").status_code == 401
    # Upper-case and padded variants are the same name, counted together; the right password
    # is refused too, so the guesser learns nothing more from here for a while.
    refused = signin(guesser, "  ALICE ", PASSWORD)
    assert refused.status_code == 429
    # The owner's browser signs in, even from the guesser's network (a shared address) ...
    shared_network = browser(web, GUESSER)
    for cookie in owner.cookies.jar:
        shared_network.cookies.jar.set_cookie(cookie)
    assert signin(shared_network).status_code == 303
    # ... and so does a new browser of the owner's elsewhere.
    assert signin(browser(web, ELSEWHERE)).status_code == 303
    # The guesser is told when to try again.
    assert 0 < int(refused.headers["retry-after"]) <= 15 * 60
    assert "try again in 15 minutes" in message(refused)
    # A device cookie the guesser makes up (signed with another secret, or not at all) is
    # no browser that signed in before.
    for secret in ("not the app's secret", None):
        forged = browser(web, GUESSER)
        value = (URLSafeSerializer(secret, salt="device-cookie").dumps([["alice", "x" * 22]])
                 if secret else '[["alice","xxxxxxxxxxxxxxxxxxxxxx"]]')
        forged.cookies.set(DEVICE_COOKIE, value, domain="testserver.local", path="/account")
        assert signin(forged, "alice", PASSWORD).status_code == 429


@pytest.mark.slow
def test_a_refusal_says_nothing_about_the_name(web: AppHandle) -> None:
    signup(browser(web, OWNER_AT_HOME))
    answers = {}
    waits = {}
    for name in ("alice", "nobody"):
        guesser = browser(web, GUESSER)
        for _ in range(5):
            assert signin(guesser, name, "guessing wrong").status_code == 401
        refused = signin(guesser, name, "guessing again")
        answers[name] = (refused.status_code, message(refused))
        waits[name] = int(refused.headers["retry-after"])
    assert answers["alice"] == answers["nobody"]
    assert answers["alice"][0] == 429
    # The wait counts down from each name's first attempt, so it differs by the seconds the
    # attempts took (on a slow machine, across a minute's boundary), never by more.
    assert abs(waits["alice"] - waits["nobody"]) <= 60
    assert all(0 < wait <= 15 * 60 for wait in waits.values())


@pytest.mark.slow
def test_a_browser_that_signed_in_before_has_its_own_allowance(web: AppHandle) -> None:
    """Its failures count against it alone (10 in 15 minutes), and the owner's own slips
    are forgotten when the right password comes."""
    owner = owners_browser(web)
    for _ in range(throttle.DEVICE.attempts - 1):
        assert signin(owner, "alice", "a slip of the finger").status_code == 401
    assert signin(owner).status_code == 303
    owner.post("/account/signout", data=csrf(owner), follow_redirects=False)
    for _ in range(throttle.DEVICE.attempts):
        assert signin(owner, "alice", "a slip of the finger").status_code == 401
    refused = signin(owner)
    assert refused.status_code == 429 and "from this browser" in message(refused)
    assert signin(browser(web, ELSEWHERE)).status_code == 303  # nobody else is touched


def test_many_addresses_spend_the_names_daily_allowance_for_new_browsers_only(
        web: AppHandle) -> None:
    """A guesser with many addresses (each under its own limit) is stopped by the name's
    allowance over every new browser; the owner's browser still signs in, and a new one on
    the next day."""
    owner = owners_browser(web)
    now = utcnow()
    (name_counter,) = [counter for counter in throttle.sign_in_counters("alice", "x", None)
                       if counter.limit is throttle.NAME]
    with engine_of(web).begin() as connection:
        for _ in range(throttle.NAME.attempts):  # the failures of many addresses
            rate_limit.hit(connection, name_counter.key, now, throttle.NAME.window)
    refused = signin(browser(web, ELSEWHERE))
    assert refused.status_code == 429
    assert "a browser you have signed in with before still can" in message(refused)
    assert int(refused.headers["retry-after"]) > 23 * 3600
    assert signin(owner).status_code == 303
    with Session(engine_of(web)) as session:
        with pytest.raises(TooManyAttemptsError):
            accounts.sign_in(session, "alice", PASSWORD, address="192.0.2.99", owner=None,
                             now=now + timedelta(hours=23))
        signed = accounts.sign_in(session, "alice", PASSWORD, address="192.0.2.99",
                                  owner=None, now=now + timedelta(days=1, minutes=1))
    assert signed.account.username == "alice"

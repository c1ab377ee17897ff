"""Who sits on which board, from which hands: the people's boards count every hand an account
plays through the pages while signed in, from its first one; whatever is played over the API
(with a key, whatever the key was made for, or a match token) is a program's; and what a browser
played before it signed in joins the account's profile, never a board (so that nobody ranks a
run they picked). On SQLite and PostgreSQL."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import select

from app.db.models import Hand, Match
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_accounts import engine_of, play_hands, signin, signup, start
from tests.app.test_pages import csrf, parse
from tests.app.test_players import new_key

API = "/api/v1"


@pytest.fixture
def web(make_app: AppFactory, database_url: str) -> AppHandle:
    return make_app(database_url=database_url)


def board(client: TestClient, kind: str = "people") -> dict[str, dict[str, Any]]:
    """The Kuhn board of `kind` (30 hands or more): the entries by name."""
    got = client.get(f"{API}/leaderboards/kuhn", params={"kind": kind}).json()
    return {entry["name"]: entry for entry in got["entries"]}


def record(client: TestClient, kind: str) -> int | None:
    """The hands of the profile page's Kuhn record of `kind` (None if it has none)."""
    section = parse(client.get("/profile").text).find("section", id=f"record-kuhn-{kind}")
    if section is None:
        return None
    hands = re.match(r"[\d,]+", section.first("dd", cls="hands").text.strip())
    assert hands is not None
    return int(hands.group().replace(",", ""))


def results_of(web: AppHandle, match_url: str) -> tuple[int, float]:
    """(finished hands, total payoff) of the match, from its own running totals."""
    with engine_of(web).connect() as conn:
        row = conn.execute(select(Match.hands_finished, Match.payoff_sum).where(
            Match.public_id == match_url.rsplit("/", 1)[1])).one()
    return int(row.hands_finished), float(row.payoff_sum)


def kinds_of(web: AppHandle, match_id: str) -> list[str]:
    """How each hand of the match was played, in order."""
    with engine_of(web).connect() as conn:
        return list(conn.execute(
            select(Hand.player_kind).join(Match, Match.id == Hand.match_id)
            .where(Match.public_id == match_id).order_by(Hand.number)).scalars())


def api_hands(client: TestClient, match_id: str, auth: dict[str, str], hands: int,
              rng: random.Random, *, deal_first: bool = True) -> None:
    """Play `hands` hands of the match over the API (the first one already dealt unless
    `deal_first`)."""
    for number in range(hands):
        if deal_first or number:
            view = client.post(f"{API}/matches/{match_id}/hands", headers=auth).json()
        else:
            view = client.get(f"{API}/matches/{match_id}", headers=auth).json()
            view = client.get(f"{API}/hands/{view['current_hand_id']}", headers=auth).json()
        while view["status"] == "in_progress":
            view = client.post(f"{API}/hands/{view['hand_id']}/actions", headers=auth,
                               json={"action": rng.choice(view["legal_actions"]),
                                     "seq": view["seq"]}).json()


@pytest.mark.slow
def test_signing_up_from_the_luckiest_browser_ranks_nothing_it_played_before(
        web: AppHandle) -> None:
    """The audit's picked run: three anonymous browsers play 30 Kuhn hands each, and the
    player signs up from the one that did best. Its 30 hands become the account's, on the
    profile, and those of the other two join when they sign in; none of them is ranked. The
    account's own hands are, every one from its first."""
    browsers = [TestClient(web.app) for _ in range(3)]
    runs = []
    for client in browsers:
        url = start(client)
        play_hands(client, url, 30)
        runs.append(results_of(web, url))
    assert [hands for hands, _ in runs] == [30, 30, 30]
    best = max(range(3), key=lambda i: runs[i][1])
    picker = browsers[best]
    assert signup(picker, "picker").status_code == 303
    assert board(web.client) == {} and board(web.client, "programs") == {}
    assert record(picker, "guest") == 30 and record(picker, "person") is None
    for i, client in enumerate(browsers):
        if i != best:
            assert signin(client, "picker").status_code == 303
    assert record(picker, "guest") == 90
    assert board(web.client) == {}
    # Signed in: every hand counts, from the first, good or bad.
    url = start(picker)
    play_hands(picker, url, 30)
    hands, total = results_of(web, url)
    entry = board(web.client)["picker"]
    assert (entry["hands"], entry["raw"]["mean"]) == (30, pytest.approx(total / hands))
    assert record(picker, "person") == 30 and record(picker, "guest") == 90
    for client in browsers:
        client.close()


@pytest.mark.slow
def test_a_browser_that_signed_out_plays_as_a_guest_until_it_signs_in(web: AppHandle) -> None:
    """Signing out, playing, and signing in again only if it went well is a picked run too:
    what a signed-out browser plays is a guest's, joined to the profile, never ranked."""
    client = web.client
    assert signup(client, "drifter").status_code == 303
    play_hands(client, start(client), 30)
    assert board(client)["drifter"]["hands"] == 30
    assert client.post("/account/signout", data=csrf(client),
                       follow_redirects=False).status_code == 303
    url = start(client)
    play_hands(client, url, 30)
    assert signin(client, "drifter").status_code == 303
    assert board(client)["drifter"]["hands"] == 30
    assert record(client, "guest") == 30 and record(client, "person") == 30
    # The guest's match is the account's now; its next hands are the account's own.
    client.post(f"{url}/next", data=csrf(client), follow_redirects=False)
    play_hands(client, url, 1)
    assert board(client)["drifter"]["hands"] == 31
    assert kinds_of(web, url.rsplit("/", 1)[1]) == ["guest"] * 30 + ["person"]


@pytest.mark.slow
def test_what_a_key_plays_is_a_programs_whatever_the_key_says(web: AppHandle) -> None:
    """A key made "for a person" (the form no longer asks; an old form's field is ignored)
    plays on the programs' board; so does every hand of a match made on the pages that is
    played with the key, hand by hand; the hands played on the pages are the person's."""
    browser = web.client
    assert signup(browser, "botmaker").status_code == 303
    key = new_key(browser, "person")
    auth = {"Authorization": f"Bearer {key}"}
    api = TestClient(web.app)
    rng = random.Random(3)
    created = api.post(f"{API}/matches", json={"game": "kuhn"}, headers=auth).json()
    api_hands(api, created["match_id"], auth, 30, rng)
    assert board(api) == {} and board(api, "programs")["botmaker"]["hands"] == 30
    assert set(kinds_of(web, created["match_id"])) == {"program"}
    # A match made on the pages (its first hand dealt there), played with the key.
    url = start(browser)
    match_id = url.rsplit("/", 1)[1]
    api_hands(api, match_id, auth, 30, rng, deal_first=False)
    assert board(api) == {} and board(api, "programs")["botmaker"]["hands"] == 60
    # Its match token too is the API: a program's.
    token = {"Authorization": f"Bearer {created['token']}"}
    api_hands(api, created["match_id"], token, 1, rng)
    assert board(api, "programs")["botmaker"]["hands"] == 61
    # The same match played on the pages: those hands are the person's.
    browser.post(f"{url}/next", data=csrf(browser), follow_redirects=False)
    play_hands(browser, url, 30)
    assert board(api)["botmaker"]["hands"] == 30
    assert kinds_of(web, match_id) == ["program"] * 30 + ["person"] * 30
    profile = api.get(f"{API}/profile", headers=auth).json()
    assert {(g["game"], g["kind"]): g["hands"] for g in profile["games"]} == {
        ("kuhn", "program"): 61, ("kuhn", "person"): 30}
    assert [k["kind"] for k in profile["keys"]] == ["program"]


def test_a_hand_dealt_on_the_pages_and_finished_with_a_key_is_a_programs(
        web: AppHandle) -> None:
    browser = web.client
    assert signup(browser, "mixer").status_code == 303
    auth = {"Authorization": f"Bearer {new_key(browser)}"}
    url = start(browser)  # the first hand is dealt on the page
    match_id = url.rsplit("/", 1)[1]
    assert kinds_of(web, match_id) == ["person"]
    api_hands(web.client, match_id, auth, 1, random.Random(1), deal_first=False)
    assert kinds_of(web, match_id) == ["program"]
    with engine_of(web).connect() as conn:
        finished = conn.execute(select(Match.hands_finished)
                                .where(Match.public_id == match_id)).scalar_one()
    assert finished == 1
    profile = web.client.get(f"{API}/profile", headers=auth).json()
    assert {g["kind"]: g["hands"] for g in profile["games"]} == {"program": 1}

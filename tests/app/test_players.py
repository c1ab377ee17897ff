"""Players on SQLite and PostgreSQL: API keys, the profile and its JSON, the leaderboards, and
forfeits; and a board or a profile is read without scanning the hands."""

from __future__ import annotations

import hashlib
import random
import threading
from datetime import timedelta
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import event, select, update

from app.db.models import Action, ApiKey, Hand, utcnow
from app.services.analysis import results
from app.services.bots.bot import Bot
from app.services.play import forfeits
from app.services.play.views import FORFEIT
from solver.games import get_game, play
from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_accounts import engine_of, play_hands, signup, start
from tests.app.test_pages import csrf, parse

API = "/api/v1"


def new_key(client: TestClient, kind: str | None = None, name: str = "my bot") -> str:
    """A new key of the signed-in browser's account, made on the profile page (`kind`: the
    field an earlier form sent, which is ignored now)."""
    form = {**csrf(client), "name": name} | ({"kind": kind} if kind is not None else {})
    response = client.post("/account/keys", data=form)
    assert response.status_code == 200, response.text
    code = parse(response.text).find("code", id="new-key-value")
    assert code is not None
    return code.text.strip()


def player(app: AppHandle, name: str) -> tuple[TestClient, dict[str, str]]:
    """A browser signed up as `name` and the Authorization header of a new key of its."""
    client = TestClient(app.app)
    assert signup(client, name).status_code == 303
    return client, {"Authorization": f"Bearer {new_key(client)}"}


def play_match(client: TestClient, headers: dict[str, str], game: str, hands: int,
               rng: random.Random) -> tuple[str, list[str]]:
    """A new match played `hands` hands over the API with random legal actions: its id and
    its hands' ids."""
    match = client.post(f"{API}/matches", json={"game": game}, headers=headers)
    assert match.status_code == 201, match.text
    match_id = match.json()["match_id"]
    hand_ids = []
    for _ in range(hands):
        view = client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
        while view["status"] == "in_progress":
            view = client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                               json={"action": rng.choice(view["legal_actions"]),
                                     "seq": view["seq"]}).json()
        hand_ids.append(view["hand_id"])
    return match_id, hand_ids


@pytest.fixture
def web(make_app: AppFactory, database_url: str) -> AppHandle:
    return make_app(database_url=database_url)


@pytest.mark.slow
def test_a_key_is_shown_once_kept_hashed_and_opens_the_accounts_matches(web: AppHandle
                                                                         ) -> None:
    browser = TestClient(web.app)
    signup(browser)
    from_browser = start(browser).rsplit("/", 1)[1]
    key = new_key(browser)
    assert key.startswith("sbk_")
    assert key not in browser.get("/profile").text  # shown once
    with engine_of(web).connect() as conn:
        stored = conn.execute(select(ApiKey.key_hash)).scalar_one()
    assert stored == hashlib.sha256(key.encode()).hexdigest()
    api = TestClient(web.app)
    auth = {"Authorization": f"Bearer {key}"}
    assert api.get(f"{API}/matches/{from_browser}", headers=auth).status_code == 200
    created = api.post(f"{API}/matches", json={"game": "kuhn"}, headers=auth).json()
    mine = created["match_id"]
    token = {"Authorization": f"Bearer {created['token']}"}
    view = api.post(f"{API}/matches/{mine}/hands", headers=auth).json()
    assert api.get(f"{API}/hands/{view['hand_id']}", headers=token).status_code == 200
    assert mine in {row.attrs["data-match"] for row in
                    parse(browser.get("/profile").text).find_all("tr") if "data-match" in
                    row.attrs}
    # Another account's key opens none of it.
    _, other = player(web, "bob")
    assert api.get(f"{API}/matches/{mine}", headers=other).status_code == 403
    # Revoked: the key opens nothing and creates nothing; the match token still works.
    key_id = parse(browser.get("/profile").text).find("li", **{"data-key": key[4:20]})
    assert key_id is not None
    revoked = browser.post(f"/account/keys/{key[4:20]}/revoke", data=csrf(browser),
                           follow_redirects=False)
    assert revoked.status_code == 303
    assert api.get(f"{API}/matches/{mine}", headers=auth).status_code == 403
    assert api.post(f"{API}/matches", json={"game": "kuhn"}, headers=auth).status_code == 401
    assert api.get(f"{API}/matches/{mine}", headers=token).status_code == 200
    assert api.get(f"{API}/profile", headers=auth).status_code == 401


@pytest.mark.slow
def test_the_profile_adds_up_every_hand(web: AppHandle) -> None:
    """The profile's figures per game equal what the hands themselves add up to: hands, the
    raw and luck-adjusted means with their intervals, accuracy, and every style count."""
    browser, auth = player(web, "alice")
    api = TestClient(web.app)
    rng = random.Random(5)
    kuhn = [play_match(api, auth, "kuhn", 9, rng), play_match(api, auth, "kuhn", 4, rng)]
    play_match(api, auth, "leduc", 3, rng)
    profile = api.get(f"{API}/profile", headers=auth).json()
    assert {m["match_id"] for m in profile["matches"]} >= {m for m, _ in kuhn}
    record = next(g for g in profile["games"] if g["game"] == "kuhn")
    assert (record["hands"], record["kind"], record["forfeits"]) == (13, "program", 0)
    payoffs: list[float] = []
    adjusted: list[float] = []
    for match_id, _ in kuhn:
        summary = api.get(f"{API}/matches/{match_id}", headers=auth).json()
        payoffs += [h["human_payoff"] for h in summary["hands"]]
        adjusted += [h["adjusted_payoff"] for h in summary["hands"]]
    raw = results.summarize(payoffs)
    assert record["raw"]["mean"] == pytest.approx(raw.mean)
    assert record["raw"]["ci95_low"] == pytest.approx(raw.ci95_low)
    assert record["adjusted"]["mean"] == pytest.approx(results.summarize(adjusted).mean)
    assert record["adjusted"]["ci95_high"] == pytest.approx(results.summarize(adjusted)
                                                            .ci95_high)
    # Style counts, from the hands' own actions.
    game = get_game("kuhn")
    counted: dict[str, list[float]] = {}
    with engine_of(web).connect() as conn:
        for _, hand_ids in kuhn:
            for hand_id in hand_ids:
                hand = conn.execute(select(Hand.id, Hand.human_seat)
                                    .where(Hand.public_id == hand_id)).one()
                actions = conn.execute(select(Action.action).where(Action.hand_id == hand.id)
                                       .order_by(Action.seq)).scalars().all()
                for stat, (count, out_of) in game.style_counts(
                        play(game, actions), hand.human_seat).items():
                    counted.setdefault(stat, [0.0, 0.0])
                    counted[stat][0] += count
                    counted[stat][1] += out_of
    figures = {s["name"]: s for s in record["style"]}
    assert set(figures) == {"vpip", "pfr", "aggression", "wtsd"}
    for stat, (count, out_of) in counted.items():
        assert (figures[stat]["count"], figures[stat]["out_of"]) == (count, out_of), stat
        assert figures[stat]["equilibrium_exact"]
        assert figures[stat]["equilibrium"] is not None
    day = record["accuracy_series"]
    assert len(day) == 1 and day[0]["hands"] == 13
    assert 0.0 <= record["accuracy"] <= 1.0
    assert {g["game"] for g in profile["games"]} == {"kuhn", "leduc"}
    page = browser.get("/profile")
    assert page.status_code == 200 and 'class="chart accuracy-chart"' in page.text
    assert parse(page.text).find("tr", **{"data-stat": "vpip"}) is not None


@pytest.mark.slow
def test_leaderboards_rank_by_skill_keep_people_and_programs_apart(web: AppHandle) -> None:
    """People play on the pages, signed in; carol's program over the API with her key."""
    api = TestClient(web.app)
    rng = random.Random(11)
    players = {name: player(web, name) for name in ("alice", "bob", "carol", "dave")}
    for name, (browser, auth) in players.items():
        if name == "carol":
            play_match(api, auth, "kuhn", 30, rng)
        else:
            play_hands(browser, start(browser), 10 if name == "dave" else 30)
    board = api.get(f"{API}/leaderboards/kuhn").json()
    names = [e["name"] for e in board["entries"]]
    assert sorted(names) == ["alice", "bob"]  # dave has too few hands, carol is a program
    means = [e["adjusted"]["mean"] for e in board["entries"]]
    assert means == sorted(means, reverse=True)
    assert [e["rank"] for e in board["entries"]] == [1, 2]
    entry = board["entries"][0]
    assert set(entry) == {"rank", "name", "hands", "forfeits", "adjusted", "raw", "reference",
                          "reference_in_unit"}
    assert entry["reference"] is not None  # Kuhn is solved: par is what equilibrium play scores
    assert entry["raw"]["hands"] == 30 and entry["adjusted"]["ci95_low"] is not None
    assert board["thresholds"] == [30, 300, 3000]
    programs = api.get(f"{API}/leaderboards/kuhn?kind=programs").json()
    assert [e["name"] for e in programs["entries"]] == ["carol"]
    assert api.get(f"{API}/leaderboards/kuhn?min_hands=300").json()["entries"] == []
    assert api.get(f"{API}/leaderboards/kuhn?min_hands=31").status_code == 422
    assert api.get(f"{API}/leaderboards/chess").status_code == 404
    # Bob stays off the boards.
    bob = players["bob"][0]
    assert bob.post("/account/boards", data=csrf(bob), follow_redirects=False
                    ).status_code == 303
    assert [e["name"] for e in api.get(f"{API}/leaderboards/kuhn").json()["entries"]] == [
        "alice"]
    page = api.get("/leaderboards/kuhn", headers={"Accept": "text/html"})
    assert page.status_code == 200
    assert [r.attrs["data-player"] for r in parse(page.text).find_all("tr")
            if "data-player" in r.attrs] == ["alice"]


def _age(web: AppHandle, hours: float) -> None:
    """Make every hand and action `hours` older (as if left alone that long)."""
    then = utcnow() - timedelta(hours=hours)
    with engine_of(web).begin() as conn:
        conn.execute(update(Hand).values(created=then))
        conn.execute(update(Action).values(created=then))


def _seat_value(bot: Bot, game: str, seat: int) -> float:
    value = bot.value(get_game(game))
    assert value is not None
    return value if seat == 0 else -value


@pytest.mark.slow
def test_a_hand_left_unfinished_is_settled_as_a_forfeit(web: AppHandle,
                                                         make_app: AppFactory,
                                                         database_url: str) -> None:
    """Kuhn, the player first to act and gone for a day: a fold (the ante lost), counted in
    the match and on the profile as a forfeit, with its luck-adjusted result; the hand is
    over for the table and the API. A hand of nobody's account is settled when an app starts.
    """
    _, auth = player(web, "alice")
    api = TestClient(web.app)
    match = api.post(f"{API}/matches", json={"game": "kuhn"}, headers=auth).json()["match_id"]
    view = api.post(f"{API}/matches/{match}/hands", headers=auth).json()
    assert view["to_act"] == "you" and view["number"] == 1
    anonymous = api.post(f"{API}/matches", json={"game": "leduc"}).json()
    anonymous_auth = {"Authorization": f"Bearer {anonymous['token']}"}
    other = api.post(f"{API}/matches/{anonymous['match_id']}/hands",
                     headers=anonymous_auth).json()
    assert api.get(f"{API}/profile", headers=auth).json()["games"] == []  # not yet stale
    _age(web, 25)

    profile = api.get(f"{API}/profile", headers=auth).json()
    record = profile["games"][0]
    assert (record["hands"], record["forfeits"], record["raw"]["mean"]) == (1, 1, -1.0)
    bot = web.app.state.bot
    with engine_of(web).connect() as conn:
        actions = conn.execute(select(Action.action).join(Hand).where(
            Hand.public_id == view["hand_id"]).order_by(Action.seq)).scalars().all()
    state = play(get_game("kuhn"), actions)
    before = bot.policy(get_game("kuhn"), state).value
    assert record["adjusted"]["mean"] == pytest.approx(
        _seat_value(bot, "kuhn", 0) + (-1.0 - before))
    summary = api.get(f"{API}/matches/{match}", headers=auth).json()
    assert summary["hands"][0]["forfeited"] and summary["total"] == -1.0
    hand = api.get(f"{API}/hands/{view['hand_id']}", headers=auth).json()
    assert hand["status"] == "finished" and hand["outcome"]["explanation"] == FORFEIT
    refused = api.post(f"{API}/hands/{view['hand_id']}/actions", headers=auth,
                       json={"action": "bet", "seq": view["seq"]})
    assert refused.status_code == 409
    assert api.get(f"{API}/hands/{view['hand_id']}/replay", headers=auth).status_code == 200
    # Nobody's account: settled by the next app to start (a worker starting, a restart).
    assert api.get(f"{API}/hands/{other['hand_id']}", headers=anonymous_auth
                   ).json()["status"] == "in_progress"
    restarted = make_app(database_url=database_url)
    settled = restarted.client.get(f"{API}/hands/{other['hand_id']}", headers=anonymous_auth)
    assert settled.json()["status"] == "finished"
    assert settled.json()["outcome"]["human_payoff"] == -1.0  # the ante: check was open


def test_a_forfeit_is_settled_once_by_workers_racing(web: AppHandle) -> None:
    _, auth = player(web, "alice")
    api = TestClient(web.app)
    match = api.post(f"{API}/matches", json={"game": "kuhn"}, headers=auth).json()["match_id"]
    view = api.post(f"{API}/matches/{match}/hands", headers=auth).json()
    _age(web, 30)
    sessions = web.app.state.sessionmaker
    bot = web.app.state.bot
    barrier = threading.Barrier(4)
    outcomes: list[Any] = []

    def worker() -> None:
        with sessions() as session:
            barrier.wait(timeout=30)
            try:
                outcomes.append(forfeits.settle(session, bot, view["hand_id"]))
            except Exception as exc:  # reported by the test
                outcomes.append(exc)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert sorted(outcomes, key=str) == [False, False, False, True], outcomes
    summary = api.get(f"{API}/matches/{match}", headers=auth).json()
    assert summary["hands_played"] == 1
    record = api.get(f"{API}/profile", headers=auth).json()["games"][0]
    assert (record["hands"], record["forfeits"]) == (1, 1)
    with sessions() as session:
        assert forfeits.sweep(session, bot, hours=1) == 0


@pytest.mark.slow
def test_reading_a_board_or_a_profile_scans_no_hands(make_app: AppFactory) -> None:
    """Every statement a board or a profile read runs, explained by SQLite's planner: hands
    and actions are only ever searched through an index, never scanned."""
    web = make_app()
    browser, auth = player(web, "alice")
    api = TestClient(web.app)
    rng = random.Random(2)
    for _ in range(3):
        play_match(api, auth, "kuhn", 12, rng)
    view = api.post(f"{API}/matches", json={"game": "leduc"}, headers=auth).json()
    api.post(f"{API}/matches/{view['match_id']}/hands", headers=auth)
    engine = engine_of(web)
    statements: list[tuple[str, Any]] = []

    def remember(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any,
                 _many: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT"):
            statements.append((statement, parameters))

    event.listen(engine, "before_cursor_execute", remember)
    try:
        assert api.get(f"{API}/leaderboards/kuhn").status_code == 200
        assert api.get(f"{API}/profile", headers=auth).status_code == 200
        assert browser.get("/profile").status_code == 200
    finally:
        event.remove(engine, "before_cursor_execute", remember)
    touching = [(s, p) for s, p in statements if " hands" in s or " actions" in s]
    assert touching, "the reads were not seen"
    with engine.connect() as conn:
        for statement, parameters in touching:
            plan = " | ".join(row[-1] for row in conn.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + statement, parameters))
            assert "SCAN hands" not in plan and "SCAN actions" not in plan, (statement, plan)

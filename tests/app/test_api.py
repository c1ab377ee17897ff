"""The REST API end to end: full hands of every game, the game catalogue and every error case.

The tests that use the ``api`` fixture run twice: on an SQLite file and on PostgreSQL."""

from __future__ import annotations

import math
import random
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import Action, Hand
from solver.games import BUILD_DEFAULTS, game_names, get_game, get_view, play
from tests.app.conftest import GAMES, AppFactory, AppHandle, new_match

API = "/api/v1"


@pytest.fixture
def api(database_url: str, make_app: AppFactory) -> AppHandle:
    """An app on SQLite, then on PostgreSQL (``database_url`` is parametrized over both)."""
    return make_app(database_url=database_url)


def play_hand(api: AppHandle, match_id: str, headers: dict[str, str],
              chooser: random.Random) -> dict[str, Any]:
    """Start a hand and play random legal actions until it ends; the final view."""
    response = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers)
    assert response.status_code == 201, response.text
    view: dict[str, Any] = response.json()
    while view["status"] == "in_progress":
        assert view["to_act"] == "you"
        assert view["legal_actions"]
        action = chooser.choice(view["legal_actions"])
        response = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                   json={"action": action, "seq": view["seq"]})
        assert response.status_code == 200, response.text
        after = response.json()
        assert after["new_events"][0]["actor"] == "you"
        assert after["new_events"][0]["label"] == action
        view = after
    return view


def recorded_actions(api: AppHandle, hand_id: str) -> list[Action]:
    with api.app.state.sessionmaker() as session:
        hand = session.scalars(select(Hand).where(Hand.public_id == hand_id)).one()
        return list(hand.actions)


# ---- playing ---------------------------------------------------------------------------------


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_full_hands_of_every_game(api: AppHandle, game: str) -> None:
    match_id, headers = new_match(api.client, game)
    chooser = random.Random(7)
    payoffs = []
    for number in range(1, 7):
        view = play_hand(api, match_id, headers, chooser)
        assert view["status"] == "finished"
        assert view["number"] == number
        assert view["human_seat"] == (number - 1) % 2  # seats alternate, hand 1 acts first
        assert view["to_act"] is None and view["legal_actions"] == []
        outcome = view["outcome"]
        # The payoff agrees with the rules applied to what the database recorded.
        actions = recorded_actions(api, view["hand_id"])
        assert [a.seq for a in actions] == list(range(len(actions)))
        state = play(get_game(game), [a.action for a in actions])
        assert state.is_terminal()
        assert outcome["human_payoff"] == state.returns()[view["human_seat"]]
        drawn = get_view(game)
        assert outcome["bot_private_view"] == drawn.private_view(state, view["bot_seat"])
        assert outcome["human_private_view"] == drawn.private_view(state, view["human_seat"])
        # Every bot decision is recorded with the stored strategy it sampled from.
        bot_actions = [a for a in actions if a.actor == view["bot_seat"]]
        assert len(outcome["bot_decisions"]) == len(bot_actions)
        for decision, action in zip(outcome["bot_decisions"], bot_actions, strict=True):
            probabilities = {p["label"]: p["probability"] for p in decision["probabilities"]}
            assert probabilities == action.probabilities
            assert decision["chosen"] == action.label
            assert probabilities[action.label] > 0
            assert sum(probabilities.values()) == pytest.approx(1.0)
        # Once over, every event is revealed.
        assert not any(e["hidden"] for e in view["events"])
        assert [e["label"] for e in view["events"]] == [a.label for a in actions]
        payoffs.append(outcome["human_payoff"])

    results = api.client.get(f"{API}/matches/{match_id}", headers=headers).json()
    assert results["hands_played"] == 6
    assert results["total"] == pytest.approx(sum(payoffs))
    assert [p["payoff"] for p in results["series"]] == payoffs
    assert [h["number"] for h in results["hands"]] == [6, 5, 4, 3, 2, 1]
    assert results["current_hand_id"] is None
    # 3 hands in each seat: the equilibrium expectation cancels out.
    assert results["expected_total"] == pytest.approx(0.0, abs=1e-12)
    assert math.copysign(1.0, results["expected_total"]) == 1.0, "a signed zero in the JSON"
    assert results["game_value"] is not None


def test_bot_replies_come_with_the_action(api: AppHandle) -> None:
    """Kuhn, human in seat 1: the bot has acted before the human sees the hand."""
    match_id, headers = new_match(api.client, "kuhn")
    play_hand(api, match_id, headers, random.Random(1))
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    assert view["human_seat"] == 1
    actors = [e["actor"] for e in view["events"]]
    assert actors == ["chance", "chance", "bot"]
    assert view["events"][2]["label"] in ("check", "bet")
    assert view["legal_actions"] == (
        ["check", "bet"] if view["events"][2]["label"] == "check" else ["fold", "call"]
    )
    assert view["public"]["pot"] == (2 if view["events"][2]["label"] == "check" else 3)


def test_leduc_public_state_shows_pot_and_board(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "leduc")
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    assert view["public"] == {"pot": 2, "contributions": [1, 1], "round": 1, "rounds": 2,
                              "board": [], "board_slots": 1, "bids": None, "last_bid": None,
                              "pieces_held": None, "betting": "",
                              "finished_rounds": [], "your_win_chance": None}
    # Checking and calling only: the bot cannot fold, so the board card comes out.
    while not view["public"]["board"]:
        assert view["status"] == "in_progress"
        action = "check" if "check" in view["legal_actions"] else "call"
        view = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                               json={"action": action, "seq": view["seq"]}).json()
    board = [e for e in view["events"] if e["actor"] == "chance" and e["seat"] is None]
    assert len(board) == 1 and not board[0]["hidden"]
    card = view["public"]["board"][0]
    assert card["kind"] == "card" and card["text"] == board[0]["label"]
    assert card["rank"] + card["suit"] == board[0]["text"].split(": ")[1]
    assert view["public"]["round"] == 2
    pot = view["public"]["pot"]
    assert view["public"]["contributions"][0] == view["public"]["contributions"][1] == pot // 2
    assert pot in (2, 6, 10)  # check-check, one bet called, bet-raise called


def test_hint_only_when_asked(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "kuhn")
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    assert view["hint"] is None
    hinted = api.client.get(f"{API}/hands/{view['hand_id']}?hint=true", headers=headers).json()
    card = hinted["private_view"]
    stored = api.client.get(f"{API}/games/kuhn/strategy", params={"infoset": f"{card}|"}).json()
    assert hinted["hint"] == stored["infosets"][0]["actions"]
    assert [h["label"] for h in hinted["hint"]] == hinted["legal_actions"]


# ---- games and strategies --------------------------------------------------------------------


def test_games_catalogue(api: AppHandle, store_path: Path) -> None:
    listed = api.client.get(f"{API}/games").json()
    assert [g["name"] for g in listed] == list(game_names())
    games = [g for g in listed if g["name"] in GAMES]  # the ones `solver build` solves
    assert [g["name"] for g in games] == list(GAMES)
    for g in games:
        assert len(g["rules"]) == 2
        assert g["available"] is True
        assert g["value"] == g["solve"]["value"]
        assert g["solve"]["exploitability"] >= 0
        assert g["solve"]["iterations"] > 0
    kuhn = next(g for g in games if g["name"] == "kuhn")
    assert kuhn["reference_value"] == pytest.approx(-1 / 18)
    assert kuhn["value"] == pytest.approx(-1 / 18, abs=2e-3)

    detail = api.client.get(f"{API}/games/kuhn").json()
    assert detail["infosets"] == 12
    assert detail["title"] == "Kuhn poker"


def test_strategy_all_filtered_and_one(api: AppHandle) -> None:
    everything = api.client.get(f"{API}/games/kuhn/strategy").json()
    assert everything["total"] == 12 and len(everything["infosets"]) == 12
    for infoset in everything["infosets"]:
        assert sum(a["probability"] for a in infoset["actions"]) == pytest.approx(1.0)
    kings = api.client.get(f"{API}/games/kuhn/strategy", params={"prefix": "K|"}).json()
    assert {i["key"] for i in kings["infosets"]} == {"K|", "K|p", "K|b", "K|pb"}
    facing = api.client.get(f"{API}/games/kuhn/strategy", params={"contains": "b"}).json()
    assert all("b" in i["key"] for i in facing["infosets"]) and facing["total"] == 6
    page = api.client.get(f"{API}/games/kuhn/strategy", params={"offset": 10, "limit": 5}).json()
    assert page["total"] == 12 and len(page["infosets"]) == 2
    one = api.client.get(f"{API}/games/kuhn/strategy", params={"infoset": "J|b"}).json()
    assert [i["key"] for i in one["infosets"]] == ["J|b"]
    assert [a["label"] for a in one["infosets"][0]["actions"]] == ["fold", "call"]
    # Kuhn equilibrium: never call a bet with the jack.
    assert one["infosets"][0]["actions"][1]["probability"] < 1e-3


def test_convergence_trace(api: AppHandle) -> None:
    trace = api.client.get(f"{API}/games/leduc/convergence").json()
    points = trace["points"]
    assert len(points) >= 2
    assert [p["iteration"] for p in points] == sorted(p["iteration"] for p in points)
    assert points[-1]["exploitability"] < points[0]["exploitability"]


def test_healthz(api: AppHandle) -> None:
    response = api.client.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"
    assert response.json()["games"] == list(GAMES)


def test_openapi_documents_the_api(api: AppHandle) -> None:
    paths = api.client.get("/openapi.json").json()["paths"]
    for path in ("/api/v1/games", "/api/v1/games/{game}/strategy", "/api/v1/matches",
                 "/api/v1/matches/{match_id}/hands", "/api/v1/hands/{hand_id}/actions"):
        assert path in paths


# ---- errors ----------------------------------------------------------------------------------


def test_unknown_game_match_hand_and_infoset_are_404(api: AppHandle) -> None:
    _match_id, headers = new_match(api.client, "kuhn")
    for response in (
        api.client.get(f"{API}/games/chess"),
        api.client.get(f"{API}/games/chess/strategy"),
        api.client.get(f"{API}/games/chess/convergence"),
        api.client.post(f"{API}/matches", json={"game": "chess"}),
        api.client.get(f"{API}/matches/{'0' * 32}", headers=headers),
        api.client.post(f"{API}/matches/nope/hands", headers=headers),
        api.client.get(f"{API}/hands/{'0' * 32}", headers=headers),
        api.client.post(f"{API}/hands/nope/actions", headers=headers, json={"action": "bet"}),
    ):
        assert response.status_code == 404, response.text
        assert response.json()["detail"]
    chess = api.client.get(f"{API}/games/chess").json()["detail"]
    assert "chess" in chess and "leduc" in chess  # names the valid games
    missing = api.client.get(f"{API}/games/kuhn/strategy", params={"infoset": "X|zz"})
    assert missing.status_code == 404
    assert "X|zz" in missing.json()["detail"]


def test_missing_token_is_401_and_wrong_token_403(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "kuhn")
    other_id, other_headers = new_match(api.client, "kuhn")
    hand = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    requests = [
        ("get", f"{API}/matches/{match_id}", None),
        ("post", f"{API}/matches/{match_id}/hands", None),
        ("get", f"{API}/hands/{hand['hand_id']}", None),
        ("post", f"{API}/hands/{hand['hand_id']}/actions", {"action": "bet"}),
    ]
    for method, url, body in requests:
        for bad in ({}, {"Authorization": "Basic dXNlcjpwdw=="}, {"Authorization": "Bearer"}):
            response = api.client.request(method, url, headers=bad, json=body)
            assert response.status_code == 401, (url, bad, response.text)
            assert response.headers["www-authenticate"] == "Bearer"
            assert "Authorization: Bearer" in response.json()["detail"]
        for wrong in ({"Authorization": "Bearer not-the-token"}, other_headers):
            response = api.client.request(method, url, headers=wrong, json=body)
            assert response.status_code == 403, (url, wrong, response.text)
    # None of that changed the hand.
    again = api.client.get(f"{API}/hands/{hand['hand_id']}", headers=headers).json()
    assert again["events"] == hand["events"]
    assert other_id != match_id


def test_illegal_action_is_409_with_the_legal_actions(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "kuhn")
    hand = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    response = api.client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                               json={"action": "raise", "seq": hand["seq"]})
    assert response.status_code == 409
    body = response.json()
    assert body["legal_actions"] == ["check", "bet"]
    assert "'raise'" in body["detail"] and "check, bet" in body["detail"]
    # Nothing was recorded.
    assert api.client.get(f"{API}/hands/{hand['hand_id']}",
                          headers=headers).json()["events"] == hand["events"]


def test_acting_in_a_finished_hand_is_409(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "rps")
    hand = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    done = api.client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                           json={"action": "rock", "seq": hand["seq"]}).json()
    assert done["status"] == "finished"
    response = api.client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                               json={"action": "rock", "seq": done["seq"]})
    assert response.status_code == 409
    assert response.json()["legal_actions"] == []
    detail = response.json()["detail"]
    assert "finished" in detail and f"/api/v1/matches/{match_id}/hands" in detail


def test_new_hand_while_one_is_in_progress_is_409(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "leduc")
    hand = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    response = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers)
    assert response.status_code == 409
    assert response.json()["hand_id"] == hand["hand_id"]
    assert hand["hand_id"] in response.json()["detail"]
    results = api.client.get(f"{API}/matches/{match_id}", headers=headers).json()
    assert results["current_hand_id"] == hand["hand_id"]
    assert results["hands_played"] == 0


def test_acting_out_of_turn_is_409(api: AppHandle) -> None:
    """A human action recorded without the bot's reply (a crash in between): the next action
    is refused, the bot moves first, and the answer names the legal actions now."""
    match_id, headers = new_match(api.client, "kuhn")
    hand = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    with api.app.state.sessionmaker() as session:
        row = session.scalars(select(Hand).where(Hand.public_id == hand["hand_id"])).one()
        state = play(get_game("kuhn"), [a.action for a in row.actions])
        session.add(Action(hand_id=row.id, seq=len(row.actions), actor=0, action=0,
                           label=state.action_label(0)))  # the human checks
        session.commit()
    response = api.client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                               json={"action": "bet", "seq": hand["seq"] + 1})
    assert response.status_code == 409
    body = response.json()
    assert "not your turn" in body["detail"]
    view = api.client.get(f"{API}/hands/{hand['hand_id']}", headers=headers).json()
    assert view["events"][-1]["actor"] == "bot"
    assert body["legal_actions"] == view["legal_actions"]


@pytest.mark.parametrize(
    ("url", "body"),
    [
        ("/matches", {}),
        ("/matches", {"game": 3}),
        ("/matches", {"game": "kuhn", "extra": True}),
        ("/hands/{hand}/actions", {}),
        ("/hands/{hand}/actions", {"action": 1}),
        ("/hands/{hand}/actions", {"action": ""}),
        ("/hands/{hand}/actions", {"move": "bet"}),
        ("/hands/{hand}/actions", "not json"),
    ],
)
def test_malformed_bodies_are_422(api: AppHandle, url: str, body: object) -> None:
    match_id, headers = new_match(api.client, "kuhn")
    hand = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    target = API + url.format(hand=hand["hand_id"])
    if isinstance(body, str):
        response = api.client.post(target, headers={**headers, "content-type":
                                                    "application/json"}, content=body)
    else:
        response = api.client.post(target, headers=headers, json=body)
    assert response.status_code == 422, response.text
    assert response.json()["detail"]


def test_game_without_strategy_is_409_saying_how_to_build_it(
        make_app: AppFactory, store_without_leduc: Path) -> None:
    """A game the lobby offers with no strategy stored (and no background build of it): 409,
    not 503 (the server is up), saying that it is not built and the command that builds it."""
    api = make_app(store=store_without_leduc)
    response = api.client.post(f"{API}/matches", json={"game": "leduc"})
    assert response.status_code == 409
    body = response.json()
    assert "no solved strategy for 'leduc'" in body["detail"]
    assert "`python -m solver build --games leduc` builds it" in body["detail"]
    assert body["building"] is None
    for part in ("strategy", "convergence", "tree"):
        again = api.client.get(f"{API}/games/leduc/{part}")
        assert again.status_code == 409 and again.json()["detail"] == body["detail"], part
    leduc = api.client.get(f"{API}/games/leduc").json()
    assert leduc["available"] is False and leduc["solve"] is None
    health = api.client.get("/healthz").json()
    assert health["status"] == "ok" and "leduc" not in health["games"]
    listed_unbuilt = [g for g in game_names() if get_game(g).listed and g not in BUILD_DEFAULTS]
    assert health["unsolved"] == ["leduc", *listed_unbuilt]
    # The other games still play.
    match_id, headers = new_match(api.client, "kuhn")
    assert play_hand(api, match_id, headers, random.Random(0))["status"] == "finished"


def test_strategy_lost_mid_hand_is_503_then_resumes(
    make_app: AppFactory, store_path: Path, store_without_leduc: Path
) -> None:
    api = make_app()
    match_id, headers = new_match(api.client, "leduc")
    hand = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    full, bot = api.app.state.strategies, api.app.state.bot
    from app.services import StoredStrategyBot, StrategySource

    api.app.state.strategies = StrategySource(store_without_leduc)
    api.app.state.bot = StoredStrategyBot(api.app.state.strategies)
    resume = f"{API}/hands/{hand['hand_id']}/resume"
    try:
        response = api.client.post(f"{API}/hands/{hand['hand_id']}/actions", headers=headers,
                                    json={"action": "check", "seq": hand["seq"]})
        assert response.status_code == 503
        detail = response.json()["detail"]
        assert "no solved strategy for 'leduc'" in detail and resume in detail
        # Looking changes nothing: the bot is still to move.
        waiting = api.client.get(f"{API}/hands/{hand['hand_id']}", headers=headers)
        assert waiting.status_code == 200 and waiting.json()["to_act"] == "bot"
        assert api.client.post(resume, headers=headers).status_code == 503
    finally:
        api.app.state.strategies.close()
        api.app.state.strategies, api.app.state.bot = full, bot
    # The check was kept; with the strategy back the bot answers it when the hand resumes.
    assert api.client.get(f"{API}/hands/{hand['hand_id']}",
                          headers=headers).json()["to_act"] == "bot"
    view = api.client.post(resume, headers=headers).json()
    labels = [e["label"] for e in view["events"] if e["actor"] != "chance"]
    assert labels[0] == "check" and len(labels) >= 2
    assert view["to_act"] in ("you", None)
    again = api.client.post(resume, headers=headers).json()  # nothing left to resume
    assert again["seq"] == view["seq"]


def test_missing_store_starts_and_reports(make_app: AppFactory, tmp_path: Path) -> None:
    api = make_app(store=tmp_path / "nowhere.sqlite")
    health = api.client.get("/healthz")
    assert health.status_code == 503
    assert health.json()["status"] == "unavailable"
    assert "nowhere.sqlite" in health.json()["store_error"]
    games = api.client.get(f"{API}/games")
    assert games.status_code == 200
    assert not any(g["available"] for g in games.json())
    response = api.client.post(f"{API}/matches", json={"game": "kuhn"})
    assert response.status_code == 503
    assert "python -m solver build" in response.json()["detail"]


def test_corrupt_store_starts_and_reports(make_app: AppFactory, tmp_path: Path) -> None:
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    api = make_app(store=bad)
    health = api.client.get("/healthz")
    assert health.status_code == 503 and "bad.sqlite" in health.json()["store_error"]
    assert api.client.get(f"{API}/games/kuhn/strategy").status_code == 503


def test_store_built_after_start_is_picked_up(
    make_app: AppFactory, tmp_path: Path, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from app.services.bots import strategy_source
    from tests.conftest import copy_store

    monkeypatch.setattr(strategy_source, "RETRY_SECONDS", 0.0)
    later = tmp_path / "later.sqlite"
    api = make_app(store=later)
    assert api.client.get("/healthz").status_code == 503
    copy_store(store_path, later)
    assert api.client.get("/healthz").status_code == 200
    new_match(api.client, "kuhn")


def test_replay_and_export(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "leduc")
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    early = api.client.get(f"{API}/hands/{view['hand_id']}/replay", headers=headers)
    assert early.status_code == 409 and "still in progress" in early.json()["detail"]
    while view["status"] == "in_progress":
        view = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                               json={"action": view["legal_actions"][-1],
                                     "seq": view["seq"]}).json()
    play_hand(api, match_id, headers, random.Random(3))  # hand 2
    finished = view
    replay = api.client.get(f"{API}/hands/{finished['hand_id']}/replay", headers=headers).json()
    assert [s["label"] for s in replay["steps"]] == [e["label"] for e in finished["events"]]
    assert replay["bot_pieces"] == finished["outcome"]["bot_pieces"]
    coached = [s for s in replay["steps"] if s["coach"] is not None]
    assert [s["coach"] for s in coached] == finished["outcome"]["coach"]
    assert all(s["bot_probabilities"] for s in replay["steps"] if s["actor"] == "bot")
    exported = api.client.get(f"{API}/matches/{match_id}/export", headers=headers,
                              params={"limit": 1}).json()
    # Newest first, one per page: hand 2, then hand 1 on the next page.
    assert [h["number"] for h in exported["hands"]] == [2] and exported["next_cursor"] == 2
    older = api.client.get(f"{API}/matches/{match_id}/export", headers=headers,
                           params={"limit": 1, "before": 2}).json()
    (first,) = older["hands"]
    assert older["next_cursor"] is None and first["hand_id"] == finished["hand_id"]
    assert first["bot_private"] == finished["outcome"]["bot_private_view"]
    assert [a["label"] for a in first["actions"]] == [e["label"] for e in finished["events"]]
    assert first["betting"] == finished["public"]["betting"]
    assert api.client.get(f"{API}/matches/{match_id}/export").status_code == 401

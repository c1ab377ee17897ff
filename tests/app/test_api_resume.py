"""A restart mid-hand loses nothing: a new app on the same database continues the hand."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import select

from app.db.models import Action, Hand
from solver.games import get_game, play
from tests.app.conftest import AppFactory, new_match

API = "/api/v1"


def test_restart_mid_hand_resumes_it(make_app: AppFactory, tmp_path: Path) -> None:
    db = tmp_path / "shared.sqlite"
    first = make_app(db=db, seed=11)
    match_id, headers = new_match(first.client, "leduc")
    view = first.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    view = first.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                             json={"action": "check", "seq": view["seq"]}).json()
    assert view["status"] == "in_progress"
    before = view
    first.client.__exit__(None, None, None)  # the app stops

    second = make_app(db=db, seed=12)
    again = second.client.get(f"{API}/hands/{before['hand_id']}", headers=headers).json()
    assert again["events"] == before["events"]
    assert again["legal_actions"] == before["legal_actions"]
    assert again["private_view"] == before["private_view"]
    assert again["public"] == before["public"]
    while again["status"] == "in_progress":
        action = "call" if "call" in again["legal_actions"] else "check"
        again = second.client.post(f"{API}/hands/{again['hand_id']}/actions", headers=headers,
                                   json={"action": action, "seq": again["seq"]}).json()
    assert len(again["events"]) > len(before["events"])
    for old, new in zip(before["events"], again["events"], strict=False):
        assert (new["seq"], new["actor"]) == (old["seq"], old["actor"])
        if not old["hidden"]:
            assert new == old
    nxt = second.client.post(f"{API}/matches/{match_id}/hands", headers=headers)
    assert nxt.status_code == 201
    assert nxt.json()["number"] == 2 and nxt.json()["human_seat"] == 1
    results = second.client.get(f"{API}/matches/{match_id}", headers=headers).json()
    assert results["hands_played"] == 1
    assert results["total"] == again["outcome"]["human_payoff"]


def test_restart_between_human_action_and_bot_reply(make_app: AppFactory, tmp_path: Path) -> None:
    """The human's action was committed, then the app died before the bot answered: looking
    at the hand shows the bot to move, and resuming the hand has the bot answer."""
    db = tmp_path / "shared.sqlite"
    first = make_app(db=db)
    match_id, headers = new_match(first.client, "dudo")
    view = first.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    with first.app.state.sessionmaker() as session:
        hand = session.scalars(select(Hand).where(Hand.public_id == view["hand_id"])).one()
        state = play(get_game("dudo"), [a.action for a in hand.actions])
        session.add(Action(hand_id=hand.id, seq=len(hand.actions), actor=0, action=0,
                           label=state.action_label(0)))  # human bids 1x2, then "crash"
        session.commit()
    first.client.__exit__(None, None, None)

    second = make_app(db=db)
    waiting = second.client.get(f"{API}/hands/{view['hand_id']}", headers=headers).json()
    assert waiting["to_act"] == "bot" and waiting["legal_actions"] == []
    resumed = second.client.post(f"{API}/hands/{view['hand_id']}/resume",
                                 headers=headers).json()
    moves = [e for e in resumed["events"] if e["actor"] != "chance"]
    assert [m["actor"] for m in moves] == ["you", "bot"]
    assert moves[0]["label"] == "1x2"
    assert [e["actor"] for e in resumed["new_events"]] == ["bot"]
    if resumed["status"] == "in_progress":
        assert resumed["to_act"] == "you" and resumed["legal_actions"]
    else:
        assert moves[1]["label"] in ("dudo",)
    # Looking again changes nothing.
    assert second.client.get(f"{API}/hands/{view['hand_id']}",
                             headers=headers).json()["events"] == resumed["events"]

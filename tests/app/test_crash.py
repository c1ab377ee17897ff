"""A crash loses nothing: the server is killed with SIGKILL (after finished hands, mid-hand, and
while a player's requests are in flight) and started again on the same database; every hand it
answered as finished is still there with its result, and the open hand goes on from where it
was. On SQLite and on PostgreSQL, with the app's own launcher (``python -m app``).
"""

from __future__ import annotations

import random
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import select

from app.db.engine import make_engine, make_sessionmaker
from app.db.models import FINISHED, IN_PROGRESS, Hand, Match
from solver.games import get_game, play
from tests.app.server import Server, start_server

API = "/api/v1"
GAME = "leduc"


@dataclass
class Journal:
    """What the server acknowledged (answered with 2xx) to the player."""

    finished: dict[str, float] = field(default_factory=dict)
    """Finished hands by id: the human's payoff."""
    current: dict[str, Any] | None = None
    """The last view acknowledged of the hand in progress."""
    in_flight_kills: int = 0
    """Kills that hit a request: sent before the kill, and answered by a dropped connection."""
    killed_at: float = float("inf")
    lock: threading.Lock = field(default_factory=threading.Lock)

    def ack(self, view: dict[str, Any]) -> None:
        with self.lock:
            if view["status"] == "finished":
                self.finished[view["hand_id"]] = view["outcome"]["human_payoff"]
            self.current = view


def same_history(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    """`after` starts with the events of `before` (labels hidden then may be revealed now)."""
    assert len(after) >= len(before)
    for old, new in zip(before, after, strict=False):
        assert (new["seq"], new["actor"], new["seat"]) == (old["seq"], old["actor"], old["seat"])
        if not old["hidden"]:
            assert new["label"] == old["label"]


def all_hands(client: httpx.Client, match_id: str, headers: dict[str, str]
              ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The match's results and every one of its hands, page after page."""
    results = client.get(f"{API}/matches/{match_id}", headers=headers, params={"limit": 100})
    assert results.status_code == 200, results.text
    body = results.json()
    hands = list(body["hands"])
    cursor = body["next_cursor"]
    while cursor is not None:
        page = client.get(f"{API}/matches/{match_id}", headers=headers,
                          params={"limit": 100, "before": cursor}).json()
        hands += page["hands"]
        cursor = page["next_cursor"]
    return body, hands


def verify(client: httpx.Client, match_id: str, headers: dict[str, str],
           journal: Journal) -> dict[str, Any]:
    """After a restart: the acknowledged results are all there and the hand in progress is
    where it was (plus, at most, the one action whose answer the crash swallowed, with the bot's
    replies: a request is all or nothing). The hand's view now."""
    body, hands = all_hands(client, match_id, headers)
    finished = {h["hand_id"]: h["human_payoff"] for h in hands if h["status"] == "finished"}
    for hand_id, payoff in journal.finished.items():
        assert finished.get(hand_id) == payoff, (hand_id, payoff, finished)
    assert body["hands_played"] == len(finished) >= len(journal.finished)
    assert body["total"] == pytest.approx(sum(finished.values()))
    last = journal.current
    if last is not None and last["status"] == "in_progress":
        now = client.get(f"{API}/hands/{last['hand_id']}", headers=headers).json()
        same_history(last["events"], now["events"])
        extra = now["events"][len(last["events"]):]
        if extra:  # the killed request was an action in this hand, and it was committed
            assert extra[0]["actor"] == "you"
            assert all(e["actor"] in ("bot", "chance") for e in extra[1:])
        else:
            assert now["legal_actions"] == last["legal_actions"]
            assert now["private_view"] == last["private_view"]
            assert now["seq"] == last["seq"]
    # Carry on from what the server has now.
    if body["current_hand_id"] is not None:
        view = client.get(f"{API}/hands/{body['current_hand_id']}", headers=headers).json()
        assert view["status"] == "in_progress" and view["to_act"] == "you"
        return dict(view)
    started = client.post(f"{API}/matches/{match_id}/hands", headers=headers)
    assert started.status_code == 201, started.text
    return dict(started.json())


def step(client: httpx.Client, match_id: str, headers: dict[str, str], view: dict[str, Any],
         rng: random.Random) -> dict[str, Any]:
    """One request: the next action, or the next hand if this one is over."""
    if view["status"] == "finished":
        response = client.post(f"{API}/matches/{match_id}/hands", headers=headers)
        assert response.status_code == 201, response.text
    else:
        response = client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                               json={"action": rng.choice(view["legal_actions"]),
                                     "seq": view["seq"]})
        assert response.status_code == 200, response.text
    return dict(response.json())


def player(client: httpx.Client, match_id: str, headers: dict[str, str], view: dict[str, Any],
           rng: random.Random, journal: Journal, stop: threading.Event,
           errors: list[BaseException]) -> None:
    """Request after request until the server is killed (after `stop` is set)."""
    while not stop.is_set():
        sent = time.monotonic()
        try:
            view = step(client, match_id, headers, view, rng)
        except httpx.TransportError as exc:
            if not stop.is_set():
                errors.append(exc)
            elif sent < journal.killed_at:
                journal.in_flight_kills += 1  # the server died during this request
            return
        except BaseException as exc:
            errors.append(exc)
            return
        journal.ack(view)


def check_database(database_url: str, match_id: str) -> int:
    """Every hand of the match replays to its recorded status and payoff; seqs have no gap;
    only the last hand may be in progress. The number of finished hands."""
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as session:
            match = session.scalars(select(Match).where(Match.public_id == match_id)).one()
            hands = list(match.hands)
            for i, hand in enumerate(hands):
                assert hand.number == i + 1
                actions = list(hand.actions)
                assert [a.seq for a in actions] == list(range(len(actions)))
                state = play(get_game(match.game), [a.action for a in actions])
                if hand.status == FINISHED:
                    assert state.is_terminal()
                    assert hand.human_payoff == state.returns()[hand.human_seat]
                else:
                    assert hand.status == IN_PROGRESS and i == len(hands) - 1
                    assert not state.is_terminal()
                    assert state.current_player() == hand.human_seat
            return sum(1 for h in hands if h.status == FINISHED)
    finally:
        engine.dispose()


@pytest.mark.slow  # a server killed three times and started again
def test_sigkill_loses_nothing(database_url: str, tmp_path: Path, store_path: Path) -> None:
    rng = random.Random(2024)
    journal = Journal()

    def start() -> Server:
        return start_server(tmp_path, database_url=database_url, store=store_path,
                            launcher="app")

    server = start()
    client = httpx.Client(base_url=server.url, timeout=30)
    created = client.post(f"{API}/matches", json={"game": GAME})
    assert created.status_code == 201
    match_id = created.json()["match_id"]
    headers = {"Authorization": f"Bearer {created.json()['token']}"}

    # 1. Some finished hands, then a hand in progress; kill between requests.
    view = step(client, match_id, headers, {"status": "finished"}, rng)
    journal.ack(view)
    while len(journal.finished) < 3 or view["status"] != "in_progress" or view["seq"] < 4:
        view = step(client, match_id, headers, view, rng)
        journal.ack(view)
    client.close()
    server.kill()

    # 2. Kills while a player sends request after request.
    for cycle in range(3):
        server = start()
        client = httpx.Client(base_url=server.url, timeout=30)
        view = verify(client, match_id, headers, journal)
        journal.ack(view)
        stop = threading.Event()
        errors: list[BaseException] = []
        args = (client, match_id, headers, view, rng, journal, stop, errors)
        thread = threading.Thread(target=player, args=args)
        thread.start()
        time.sleep(0.3 + 0.3 * cycle + rng.random() * 0.2)
        stop.set()
        journal.killed_at = time.monotonic()
        server.kill()  # SIGKILL, most likely in the middle of a request
        thread.join(timeout=30)
        client.close()
        assert not errors, errors

    # 3. Back once more: all there; the open hand plays to the end, and the next one starts.
    server = start()
    try:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            view = verify(client, match_id, headers, journal)
            journal.ack(view)
            while view["status"] == "in_progress":
                view = step(client, match_id, headers, view, rng)
                journal.ack(view)
            view = step(client, match_id, headers, view, rng)
            assert view["status"] == "in_progress"
            results, hands = all_hands(client, match_id, headers)
    finally:
        server.stop()
    assert "Traceback" not in server.log(), server.log()
    finished = check_database(database_url, match_id)
    assert finished == results["hands_played"] >= len(journal.finished) >= 4
    assert journal.in_flight_kills >= 1  # at least one kill hit a request in flight
    for hand_id, payoff in journal.finished.items():
        assert next(h for h in hands if h["hand_id"] == hand_id)["human_payoff"] == payoff


@pytest.mark.slow
def test_hand_rows_survive_in_the_database_file(tmp_path: Path, store_path: Path) -> None:
    """SQLite: after a SIGKILL right after an acknowledged action, the WAL is replayed by the
    next process that opens the file: the action is there even before the app starts."""
    db = tmp_path / "app.sqlite"
    server = start_server(tmp_path, database_url=f"sqlite:///{db}", store=store_path)
    with httpx.Client(base_url=server.url, timeout=30) as client:
        created = client.post(f"{API}/matches", json={"game": "kuhn"}).json()
        headers = {"Authorization": f"Bearer {created['token']}"}
        view = client.post(f"{API}/matches/{created['match_id']}/hands", headers=headers).json()
        after = client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                            json={"action": "check", "seq": view["seq"]}).json()
    server.kill()
    engine = make_engine(f"sqlite:///{db}")
    try:
        with make_sessionmaker(engine)() as session:
            hand = session.scalars(select(Hand).where(Hand.public_id == view["hand_id"])).one()
            assert len(hand.actions) == after["seq"] == len(after["events"])
            assert hand.actions[view["seq"]].label == "check"
            for event, action in zip(after["events"], hand.actions, strict=True):
                assert event["hidden"] or event["label"] == action.label
            assert hand.status == after["status"]
    finally:
        engine.dispose()

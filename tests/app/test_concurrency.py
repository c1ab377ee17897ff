"""Double submissions: of two simultaneous actions on one hand exactly one is played, the other
gets a 409, on SQLite and on PostgreSQL, with one worker, two workers, or two app instances.

The end-to-end tests fire real concurrent HTTP requests (two threads released by a barrier, each
with its own keep-alive connection) at uvicorn servers in subprocesses, then read what the
database holds. A service-level test forces the interleaving that only the database guard can
catch (both requests read the hand before either writes) on both back ends.
"""

from __future__ import annotations

import contextlib
import random
import threading
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select

from app import services
from app.db import create_tables, make_engine, make_sessionmaker
from app.models import Action, Hand
from app.schemas import HandView
from app.services import StrategySource
from app.services import play as play_module
from tests.app.server import Server, start_server

API = "/api/v1"
PAIRS = 30


@dataclass
class Deployment:
    database_url: str
    servers: list[Server]

    @property
    def urls(self) -> tuple[str, str]:
        """Where the two requests of a pair go: two instances, or the same server twice."""
        first = self.servers[0].url
        return first, (self.servers[1].url if len(self.servers) > 1 else first)


DEPLOYMENTS = [  # database, workers per instance, instances, launcher
    ("sqlite", 1, 1, "uvicorn"),
    ("sqlite", 2, 1, "uvicorn"),
    ("sqlite", 1, 2, "uvicorn"),
    ("postgresql", 1, 1, "uvicorn"),
    ("postgresql", 2, 1, "app"),
    ("postgresql", 1, 2, "uvicorn"),
]


@pytest.fixture(params=DEPLOYMENTS,
                ids=[f"{db}-{w}workers-{n}instances-{how}" for db, w, n, how in DEPLOYMENTS])
def deployment(request: pytest.FixtureRequest, tmp_path: Path,
               store_path: Path) -> Iterator[Deployment]:
    """uvicorn with 1 or 2 workers, or two app instances, on one database; "app" is the
    app's own launcher, ``python -m app --workers N``."""
    backend, workers, instances, launcher = request.param
    if backend == "postgresql":
        database_url = str(request.getfixturevalue("pg_url"))
    else:
        database_url = f"sqlite:///{tmp_path / 'app.sqlite'}"
    servers: list[Server] = []
    try:
        for i in range(instances):
            servers.append(start_server(tmp_path, database_url=database_url, store=store_path,
                                        workers=workers, name=f"instance{i}",
                                        launcher=launcher))
        yield Deployment(database_url, servers)
    finally:
        for server in servers:
            server.stop()
    for server in servers:
        assert "Traceback" not in server.log(), server.log()


def fire_pair(clients: tuple[httpx.Client, httpx.Client], hand_id: str,
              headers: dict[str, str], bodies: tuple[dict[str, Any], dict[str, Any]]
              ) -> list[httpx.Response]:
    """POST the two actions at the same moment; the two responses, in the order of `bodies`."""
    barrier = threading.Barrier(2)
    responses: list[httpx.Response | BaseException | None] = [None, None]

    def send(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            responses[i] = clients[i].post(f"{API}/hands/{hand_id}/actions", headers=headers,
                                           json=bodies[i])
        except BaseException as exc:  # reported below
            responses[i] = exc

    threads = [threading.Thread(target=send, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    out = []
    for r in responses:
        assert isinstance(r, httpx.Response), r
        out.append(r)
    return out


def human_actions(database_url: str, hand_ids: list[str]) -> dict[str, list[str]]:
    """The human's recorded actions (labels) of each hand, from the database."""
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as session:
            rows = session.execute(
                select(Hand.public_id, Action.label)
                .join(Action, Action.hand_id == Hand.id)
                .where(Hand.public_id.in_(hand_ids), Action.actor == Hand.human_seat)
                .order_by(Hand.id, Action.seq)
            ).all()
    finally:
        engine.dispose()
    out: dict[str, list[str]] = {h: [] for h in hand_ids}
    for hand_id, label in rows:
        out[hand_id].append(label)
    return out


def test_simultaneous_actions_play_exactly_one(deployment: Deployment) -> None:
    """30 pairs of simultaneous actions with ``seq`` and 30 without, each pair on a new hand:
    one 200 and one 409 per pair, and the database holds exactly one human action per hand, the
    one answered with 200."""
    for with_seq in (True, False):
        _pairs(deployment, with_seq)


def _pairs(deployment: Deployment, with_seq: bool) -> None:
    """With ``seq``: Leduc, where either action would still be legal after the other (check,
    then the bot checks: a new round), so only the guards stop the second. Without: Kuhn's first
    move (check or bet), which the other action can follow only when it came too late to be
    concurrent, and it is then refused as illegal (still a 409)."""
    game = "leduc" if with_seq else "kuhn"
    chooser = random.Random(5)
    reasons: Counter[str] = Counter()
    hands: dict[str, str] = {}
    first_url, second_url = deployment.urls
    with httpx.Client(base_url=first_url, timeout=30) as a, \
            httpx.Client(base_url=second_url, timeout=30) as b:
        for _ in range(PAIRS):
            created = a.post(f"{API}/matches", json={"game": game})
            assert created.status_code == 201, created.text
            headers = {"Authorization": f"Bearer {created.json()['token']}"}
            view = a.post(f"{API}/matches/{created.json()['match_id']}/hands",
                          headers=headers).json()
            assert view["to_act"] == "you" and view["seq"] == len(view["events"])
            labels = list(view["legal_actions"])
            chooser.shuffle(labels)
            bodies: list[dict[str, Any]] = [{"action": label} for label in labels[:2]]
            if with_seq:
                for body in bodies:
                    body["seq"] = view["seq"]
            responses = fire_pair((a, b), view["hand_id"], headers, (bodies[0], bodies[1]))
            codes = sorted(r.status_code for r in responses)
            assert codes == [200, 409], [r.text for r in responses]
            ok = next(r for r in responses if r.status_code == 200).json()
            refused = next(r for r in responses if r.status_code == 409).json()
            assert refused["detail"]
            reasons[_reason(refused["detail"])] += 1
            assert ok["new_events"][0]["actor"] == "you"
            hands[view["hand_id"]] = ok["new_events"][0]["label"]
            assert ok["seq"] == len(ok["events"]) > view["seq"]
    recorded = human_actions(deployment.database_url, list(hands))
    assert recorded == {hand_id: [label] for hand_id, label in hands.items()}
    print(f"\n{'seq' if with_seq else 'no seq'}: 409 reasons over {PAIRS} pairs: "
          f"{dict(reasons)}")


def _reason(detail: str) -> str:
    if "has changed since" in detail:
        return "stale seq"
    if "being played at this moment" in detail or "at the same time" in detail:
        return "in flight"
    return "illegal after the other"


# ---- the database guard alone ------------------------------------------------------------------


def test_database_guard_refuses_a_write_based_on_an_old_read(
    database_url: str, store_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Request A reads the hand, then request B (another process, as far as the in-process
    claim knows) plays and commits before A writes: A's conditional UPDATE of the hand's
    version changes no row, A is refused with a 409 and writes nothing. Without ``seq`` too."""
    engine = make_engine(database_url)
    create_tables(engine)
    factory = make_sessionmaker(engine)
    source = StrategySource(store_path)
    with factory() as session:
        match, _ = services.create_match(session, source, "leduc")
        view = services.start_hand(session, source, match, rng=random.Random(1))

    def other_request() -> HandView:
        with factory() as session:
            hand = services.get_hand(session, view.hand_id)
            # The other request runs in another process: this one's claim does not see it.
            with monkeypatch.context() as m:
                m.setattr(play_module, "_claim", lambda _hand: contextlib.nullcontext())
                return services.act(session, source, hand, "check", rng=random.Random(2))

    real_simulate = play_module._simulate
    interleaved: list[HandView | BaseException] = []
    a_thread = threading.get_ident()

    def run_other() -> None:
        try:
            interleaved.append(other_request())
        except BaseException as exc:  # reported by the assertion below
            interleaved.append(exc)

    def simulate_after_the_other(*args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() == a_thread and not interleaved:
            # A has read the hand and computes its move; B plays now, in another thread.
            thread = threading.Thread(target=run_other)
            thread.start()
            thread.join(timeout=60)
        return real_simulate(*args, **kwargs)

    monkeypatch.setattr(play_module, "_simulate", simulate_after_the_other)
    with factory() as session:
        hand = services.get_hand(session, view.hand_id)
        with pytest.raises(services.HandBusyError, match="not played"):
            services.act(session, source, hand, "bet", rng=random.Random(3))
    assert len(interleaved) == 1 and isinstance(interleaved[0], HandView), interleaved
    with factory() as session:
        count = session.scalar(select(func.count()).select_from(Action).join(Hand).where(
            Hand.public_id == view.hand_id, Action.actor == Hand.human_seat))
        final = services.hand_view(session, source, services.get_hand(session, view.hand_id))
    assert count == 1
    assert [e.label for e in final.events if e.actor == "you"] == ["check"]
    assert final.events == interleaved[0].events
    source.close()
    engine.dispose()


def test_stale_seq_is_409_with_the_legal_actions(database_url: str, store_path: Path) -> None:
    """A retry of an action that was played (same seq) is refused, and says what is legal now."""
    engine = make_engine(database_url)
    create_tables(engine)
    factory = make_sessionmaker(engine)
    source = StrategySource(store_path)
    with factory() as session:
        match, _ = services.create_match(session, source, "leduc")
        view = services.start_hand(session, source, match, rng=random.Random(6))
        hand = services.get_hand(session, view.hand_id)
        after = services.act(session, source, hand, "check", rng=random.Random(7),
                             expected_seq=view.seq)
        assert after.seq == len(after.events) > view.seq
        with pytest.raises(services.StaleHandError) as stale:
            services.act(session, source, hand, "check", expected_seq=view.seq)
        assert stale.value.legal_actions == after.legal_actions
        assert stale.value.seq == after.seq
        assert f"seq {view.seq}, now {after.seq}" in stale.value.message
        again = services.hand_view(session, source, hand)
        assert again.events == after.events
    source.close()
    engine.dispose()

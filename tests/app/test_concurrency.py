"""Double submissions: of two simultaneous actions on one hand exactly one is played, the other
gets a 409 (or, sent with the same idempotency key, the first answer), on SQLite and on
PostgreSQL, with one worker, two workers, or two app instances.

The end-to-end tests fire real concurrent HTTP requests (two threads released by a barrier, each
with its own keep-alive connection) at uvicorn servers in subprocesses, then read what the
database holds. A service-level test forces the interleaving that only the database guard can
catch (both requests read the hand before either writes, the second in another process) on
both back ends.
"""

from __future__ import annotations

import random
import subprocess
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from sqlalchemy import func, select
from sqlalchemy.orm import Session, sessionmaker

from app import services
from app.core import errors
from app.db.engine import create_tables, make_engine, make_sessionmaker
from app.db.models import Action, Hand
from app.schemas import HandView
from app.services import StrategySource
from solver.games import Game, State
from tests.app.server import Server, start_server
from tests.conftest import REPO_ROOT

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
        servers.extend(start_server(tmp_path, database_url=database_url, store=store_path,
                                    workers=workers, name=f"instance{i}", launcher=launcher)
                       for i in range(instances))
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


MODES = ("seq", "idempotency key", "unguarded")


@pytest.mark.slow  # six deployments of one or two servers, each started for the test
def test_simultaneous_actions_play_exactly_one(deployment: Deployment) -> None:
    """30 pairs of simultaneous actions with ``seq``, 30 pairs of identical actions with one
    ``Idempotency-Key`` and no ``seq``, and 30 pairs with neither, each pair on a new hand.
    With a guard exactly one of each pair is played (the database holds exactly the action
    answered first); without one, neither is."""
    for mode in MODES:
        _pairs(deployment, mode)


def _pairs(deployment: Deployment, mode: str) -> None:
    """With ``seq``: Leduc, where either of two different actions would still be legal after
    the other (check, then the bot checks: a new round), so only the guards stop the second.
    With a key: Kuhn, the same action twice, as a client's retry sends it; the second answer
    is a 409 (still in flight) or the first answer replayed. With neither: 422 both."""
    game = "leduc" if mode == "seq" else "kuhn"
    chooser = random.Random(5)
    reasons: Counter[str] = Counter()
    hands: dict[str, str] = {}
    unplayed: list[str] = []
    first_url, second_url = deployment.urls
    with httpx.Client(base_url=first_url, timeout=30) as a, \
            httpx.Client(base_url=second_url, timeout=30) as b:
        for i in range(PAIRS):
            created = a.post(f"{API}/matches", json={"game": game})
            assert created.status_code == 201, created.text
            headers = {"Authorization": f"Bearer {created.json()['token']}"}
            view = a.post(f"{API}/matches/{created.json()['match_id']}/hands",
                          headers=headers).json()
            assert view["to_act"] == "you" and view["seq"] == len(view["events"])
            labels = list(view["legal_actions"])
            chooser.shuffle(labels)
            if mode == "seq":
                bodies = [{"action": label, "seq": view["seq"]} for label in labels[:2]]
            else:
                bodies = [{"action": labels[0]}, {"action": labels[0]}]
            if mode == "idempotency key":
                headers["Idempotency-Key"] = f"retry-{i}"
            responses = fire_pair((a, b), view["hand_id"], headers, (bodies[0], bodies[1]))
            codes = sorted(r.status_code for r in responses)
            if mode == "unguarded":
                assert codes == [422, 422], [r.text for r in responses]
                unplayed.append(view["hand_id"])
                continue
            if mode == "seq" or codes != [200, 200]:
                assert codes == [200, 409], [r.text for r in responses]
                refused = next(r for r in responses if r.status_code == 409).json()
                assert refused["detail"]
                reasons[_reason(refused["detail"])] += 1
                ok = next(r for r in responses if r.status_code == 200)
            else:  # the retry came after the first was played: the same answer, replayed
                replayed = [r for r in responses if r.headers.get("Idempotent-Replayed")]
                assert len(replayed) == 1
                ok = next(r for r in responses if r is not replayed[0])
                assert replayed[0].json() == ok.json()
                reasons["replayed"] += 1
            played = ok.json()
            assert played["new_events"][0]["actor"] == "you"
            hands[view["hand_id"]] = played["new_events"][0]["label"]
            assert played["seq"] == len(played["events"]) > view["seq"]
    recorded = human_actions(deployment.database_url, list(hands) + unplayed)
    assert recorded == {**{hand_id: [label] for hand_id, label in hands.items()},
                        **{hand_id: [] for hand_id in unplayed}}
    assert sum(reasons.values()) == (0 if mode == "unguarded" else PAIRS), reasons


def _reason(detail: str) -> str:
    if "has changed since" in detail:
        return "stale seq"
    if "being played at this moment" in detail or "at the same time" in detail:
        return "in flight"
    return "illegal after the other"


# ---- the database guard alone ------------------------------------------------------------------


OTHER_PROCESS = """
import random, sys
from app import services
from app.db.engine import make_engine, make_sessionmaker
from app.services import StoredStrategyBot, StrategySource, TokenAccess
url, store, hand_id, token, seq = sys.argv[1:]
engine = make_engine(url)
source = StrategySource(store)
with make_sessionmaker(engine)() as session:
    played = services.act(session, source, StoredStrategyBot(source), hand_id,
                          TokenAccess(token), "check", seq=int(seq), rng=random.Random(2))
print(played.view.model_dump_json())
"""


class InterleavingBot:
    """The stored strategy, but before its first move it lets `meanwhile` run: another
    request, in another process, plays in the same hand while this one is mid-flight."""

    def __init__(self, inner: services.Bot, meanwhile: Callable[[], None]) -> None:
        self.inner, self.meanwhile, self.waited = inner, meanwhile, False

    def value(self, game: Game) -> float | None:
        return self.inner.value(game)

    def policy(self, game: Game, state: State) -> services.Policy:
        if not self.waited:
            self.waited = True
            self.meanwhile()
        return self.inner.policy(game, state)


@dataclass
class Table:
    factory: sessionmaker[Session]
    source: StrategySource
    bot: services.Bot
    match_id: str
    access: services.TokenAccess


@pytest.fixture
def leduc_table(database_url: str, store_path: Path) -> Iterator[Table]:
    engine = make_engine(database_url)
    create_tables(engine)
    factory = make_sessionmaker(engine)
    source = StrategySource(store_path)
    with factory() as session:
        created = services.create_match(session, source, "leduc")
    yield Table(factory, source, services.StoredStrategyBot(source), created.match_id,
                services.TokenAccess(created.token))
    source.close()
    engine.dispose()


@pytest.mark.slow
def test_database_guard_refuses_a_write_based_on_an_old_read(
    leduc_table: Table, database_url: str, store_path: Path
) -> None:
    """Request A reads the hand, then request B, in another process, plays and commits before
    A writes: A's conditional UPDATE of the hand's version changes no row, A is refused with
    a 409 and writes nothing."""
    t = leduc_table
    with t.factory() as session:
        view = services.start_hand(session, t.source, t.bot, t.match_id, t.access,
                                   rng=random.Random(1))
    other: list[str] = []

    def other_process() -> None:
        done = subprocess.run(
            [sys.executable, "-c", OTHER_PROCESS, database_url, str(store_path), view.hand_id,
             str(t.access.token), str(view.seq)],
            cwd=REPO_ROOT, capture_output=True, text=True, timeout=120, check=False)
        assert done.returncode == 0, done.stderr
        other.append(done.stdout)

    with t.factory() as session, pytest.raises(errors.HandBusyError, match="not played"):
        services.act(session, t.source, InterleavingBot(t.bot, other_process), view.hand_id,
                     t.access, "bet", seq=view.seq, rng=random.Random(3))
    assert len(other) == 1
    played_by_other = HandView.model_validate_json(other[0])
    with t.factory() as session:
        count = session.scalar(select(func.count()).select_from(Action).join(Hand).where(
            Hand.public_id == view.hand_id, Action.actor == Hand.human_seat))
        final = services.hand_view(session, t.bot, view.hand_id, t.access)
    assert count == 1
    assert [e.label for e in final.events if e.actor == "you"] == ["check"]
    assert final.events == played_by_other.events


def test_stale_seq_is_409_with_the_legal_actions(leduc_table: Table) -> None:
    """A retry of an action that was played (same seq) is refused, and says what is legal now."""
    t = leduc_table
    with t.factory() as session:
        view = services.start_hand(session, t.source, t.bot, t.match_id, t.access,
                                   rng=random.Random(6))
        after = services.act(session, t.source, t.bot, view.hand_id, t.access, "check",
                             seq=view.seq, rng=random.Random(7)).view
        assert after.seq == len(after.events) > view.seq
        with pytest.raises(errors.StaleHandError) as stale:
            services.act(session, t.source, t.bot, view.hand_id, t.access, "check",
                         seq=view.seq)
        assert stale.value.legal_actions == after.legal_actions
        assert stale.value.seq == after.seq
        assert f"seq {view.seq}, now {after.seq}" in stale.value.message
        again = services.hand_view(session, t.bot, view.hand_id, t.access)
        assert again.events == after.events


def test_idempotency_key_replays_the_first_answer(leduc_table: Table) -> None:
    """A request repeated with its key gets the first answer and plays nothing; the same key
    with another action is refused (422); an action with neither seq nor key is refused."""
    t = leduc_table
    with t.factory() as session:
        view = services.start_hand(session, t.source, t.bot, t.match_id, t.access,
                                   rng=random.Random(6))
        with pytest.raises(errors.UnguardedActionError):
            services.act(session, t.source, t.bot, view.hand_id, t.access, "check")
        first = services.act(session, t.source, t.bot, view.hand_id, t.access, "check",
                             idempotency_key="k-1", rng=random.Random(7))
        assert not first.replayed
        retry = services.act(session, t.source, t.bot, view.hand_id, t.access, "check",
                             idempotency_key="k-1", rng=random.Random(8))
        assert retry.replayed and retry.view == first.view
        with pytest.raises(errors.IdempotencyKeyReuseError):
            services.act(session, t.source, t.bot, view.hand_id, t.access, "bet",
                         idempotency_key="k-1")
        now = services.hand_view(session, t.bot, view.hand_id, t.access)
    assert [e.label for e in now.events if e.actor == "you"] == ["check"]
    assert now.seq == first.view.seq

"""Two app instances on one PostgreSQL under concurrent load: the CI-sized form of the
many-machine set-up (`deploy/compose.yaml`: PostgreSQL, two replicas, a proxy).

`benchmarks/load_test.py --instances 2` starts two uvicorn servers on the same database; its
players send each request to one of them at random, as the proxy would, and one action in five
again, with its idempotency key, to a random instance (a client retrying after a lost answer).
Then the database is read back: every action the players were answered 200 for is there
exactly once, no retry played anything, every hand's actions are numbered without a gap, and
every match's running totals are the sum of its finished hands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import create_engine, text

from tests.app.server import REPO_ROOT

ACTION = "/api/v1/hands/[id]/actions"


def test_two_instances_on_one_postgresql_play_every_action_exactly_once(
        pg_url: str, store_path: Path) -> None:
    command = [sys.executable, "-m", "benchmarks.load_test",
               "--instances", "2", "--workers", "1", "--users", "20", "--spawn-rate", "20",
               "--time", "12s", "--drain", "--think", "0-0.05", "--games", "kuhn,leduc",
               "--retries", "0.2",
               "--database-url", pg_url, "--store", str(store_path), "--json"]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True,
                            timeout=400, check=False,
                            env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
    assert result.stdout.strip(), result.stderr[-3000:]
    report = json.loads(result.stdout)
    assert report["instances"] == 2
    assert report["errors"] == 0, report["failures"]
    assert report["server_tracebacks"] == 0
    endpoints = report["by_endpoint"]
    acknowledged = endpoints[ACTION]["requests"]
    retried = endpoints[f"{ACTION} (retry)"]["requests"]
    assert acknowledged >= 100 and retried >= 10, endpoints  # a real load, retries included

    engine = create_engine(pg_url)
    try:
        with engine.connect() as conn:
            human_actions = conn.execute(text(
                "SELECT count(*) FROM actions a JOIN hands h ON h.id = a.hand_id "
                "WHERE a.actor = h.human_seat")).scalar_one()
            hands = conn.execute(text("SELECT count(*) FROM hands")).scalar_one()
            matches = conn.execute(text("SELECT count(*) FROM matches")).scalar_one()
            gaps = conn.execute(text(
                "SELECT count(*) FROM (SELECT hand_id FROM actions GROUP BY hand_id "
                "HAVING count(*) <> max(seq) + 1 OR min(seq) <> 0) AS g")).scalar_one()
            kept = conn.execute(text("SELECT count(*) FROM idempotent_actions")).scalar_one()
            totals = conn.execute(text(
                "SELECT m.hands_finished, m.payoff_sum, count(h.id), "
                "coalesce(sum(h.human_payoff), 0) FROM matches m LEFT JOIN hands h "
                "ON h.match_id = m.id AND h.status = 'finished' "
                "GROUP BY m.id, m.hands_finished, m.payoff_sum")).all()
    finally:
        engine.dispose()
    # Exactly once: each answer 200 is one action in the database, no more (a retry or a
    # second instance playing it again) and no less (an answer for an action not kept).
    assert human_actions == acknowledged
    assert kept == acknowledged  # every action came with its key, and each key once
    assert hands == endpoints["/api/v1/matches/[id]/hands"]["requests"]
    assert matches == endpoints["/api/v1/matches"]["requests"]
    assert gaps == 0
    for finished, payoff_sum, counted, summed in totals:
        assert finished == counted
        assert payoff_sum == pytest.approx(summed)

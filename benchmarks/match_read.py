"""What reading a match's results costs as the match grows: size and latency of
``GET /api/v1/matches/{id}`` after 10, 1,000 and 10,000 finished hands.

    .venv/bin/python -m benchmarks.match_read [--hands 10,1000,10000] [--reads 30]

The app runs under uvicorn (one worker, SQLite) in a subprocess; the finished hands are written
straight into its database through the app's own hand store, each finishing the way a played
hand does (the running totals and the cumulative series follow), then the results are read over
HTTP, keep-alive, one request at a time.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
from pathlib import Path

import httpx

from app.db import hand_store
from app.db.engine import make_engine, make_sessionmaker
from app.db.hand_store import Finish
from strategies import default_store_path
from tests.app.server import start_server

API = "/api/v1"


def fill(database_url: str, match_id: str, hands: int, rng: random.Random) -> None:
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as session:
            match = hand_store.find_match(session, match_id)
            for number in range(match.hands_finished + 1, hands + 1):
                hand = hand_store.new_hand(match, number, (number - 1) % 2)
                hand_store.insert_hand(session, hand, [], Finish(float(rng.choice((-2, -1, 1,
                                                                                  2)))))
    finally:
        engine.dispose()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", default="10,1000,10000")
    parser.add_argument("--reads", type=int, default=30)
    parser.add_argument("--store", type=Path, default=default_store_path())
    args = parser.parse_args()
    rng = random.Random(1)
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        database_url = f"sqlite:///{tmp / 'app.sqlite'}"
        server = start_server(tmp, database_url=database_url, store=args.store)
        try:
            with httpx.Client(base_url=server.url, timeout=30) as client:
                created = client.post(f"{API}/matches", json={"game": "kuhn"}).json()
                headers = {"Authorization": f"Bearer {created['token']}"}
                print(f"{'hands':>7} {'bytes':>8} {'series':>7} {'page':>5} "
                      f"{'median ms':>10} {'p90 ms':>7}")
                for hands in (int(h) for h in args.hands.split(",")):
                    fill(database_url, created["match_id"], hands, rng)
                    url = f"{API}/matches/{created['match_id']}"
                    timings, body = [], b""
                    for _ in range(args.reads):
                        started = time.perf_counter()
                        response = client.get(url, headers=headers)
                        timings.append((time.perf_counter() - started) * 1e3)
                        assert response.status_code == 200, response.text
                        body = response.content
                    result = response.json()
                    assert result["hands_played"] == hands
                    timings.sort()
                    print(f"{hands:>7,} {len(body):>8,} {len(result['series']):>7} "
                          f"{len(result['hands']):>5} {statistics.median(timings):>10.2f} "
                          f"{timings[int(0.9 * (len(timings) - 1))]:>7.2f}")
        finally:
            server.stop()


if __name__ == "__main__":
    main()

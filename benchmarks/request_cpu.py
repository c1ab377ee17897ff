"""Server CPU per action and per read, two checkouts in turns: the figure that survives a busy
machine.

    .venv/bin/python -m benchmarks.request_cpu                      # this tree
    .venv/bin/python -m benchmarks.request_cpu --against ../main --rounds 4

Each run starts ``uvicorn app.main:app`` (one worker, SQLite in a temporary folder) from one
checkout, lets ``--clients`` threads play ``--game`` over keep-alive connections (a new match
every fifth hand, as `load_test.py`'s players do) until ``--actions`` actions are played after
a warm-up, and reads the server's CPU time (user + system, `psutil`) before and after: CPU ms
per action (all of the server's CPU, hand starts and new matches included, over the actions)
and per request. Then, unless ``--hands 0``, ``GET /api/v1/matches/{id}`` of a match with
``--hands`` finished hands, ``--reads`` times in a row: CPU ms and p50 wall ms per read.

With ``--against DIR`` the runs alternate between that checkout and this one, ``--rounds``
times each, so that both see the same load; medians are printed side by side. The wall clock
of a shared machine measures the machine; the CPU time of the server process moves much less.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.profile_serving import fill_match, process_tree_cpu, wait_healthy
from strategies import default_store_path
from tests.app.server import free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
API = "/api/v1"
HANDS_PER_MATCH = 5


def play(url: str, game: str, quota: list[int], lock: threading.Lock) -> tuple[int, int]:
    """Play `game` until the shared `quota` of actions is used up: (actions, requests)."""
    actions = requests = 0
    rng = random.Random()
    with httpx.Client(base_url=url, timeout=120) as client:
        while True:
            created = client.post(f"{API}/matches", json={"game": game})
            created.raise_for_status()
            requests += 1
            headers = {"Authorization": f"Bearer {created.json()['token']}"}
            for _ in range(HANDS_PER_MATCH):
                view = client.post(f"{API}/matches/{created.json()['match_id']}/hands",
                                   headers=headers)
                view.raise_for_status()
                body, requests = view.json(), requests + 1
                while body["status"] == "in_progress":
                    with lock:
                        if quota[0] <= 0:
                            return actions, requests
                        quota[0] -= 1
                    answer = client.post(f"{API}/hands/{body['hand_id']}/actions",
                                         headers=headers,
                                         json={"action": rng.choice(body["legal_actions"]),
                                               "seq": body["seq"]})
                    answer.raise_for_status()
                    body, actions, requests = answer.json(), actions + 1, requests + 1


def drive(url: str, game: str, actions: int, clients: int) -> tuple[int, int, float]:
    """`actions` actions by `clients` threads: (actions, requests, wall seconds)."""
    quota, lock = [actions], threading.Lock()
    done: list[tuple[int, int]] = []

    def run() -> None:
        done.append(play(url, game, quota, lock))

    started = time.perf_counter()
    threads = [threading.Thread(target=run) for _ in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return (sum(a for a, _ in done), sum(r for _, r in done), time.perf_counter() - started)


def one_run(tree: Path, args: argparse.Namespace) -> dict[str, Any]:
    """Serve from `tree`, play, read; the figures."""
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        port = free_port()
        env = {**os.environ, "PYTHONPATH": str(tree),
               "DATABASE_URL": f"sqlite:///{tmp / 'app.sqlite'}",
               "STRATEGY_STORE": str(args.store), "SECRET_KEY": "cpu",
               "APP_DATA_DIR": str(tmp / "data")}
        command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
                   "--port", str(port), "--workers", "1", "--log-level", "warning",
                   "--no-access-log", "--http", "app.core.serve:NoDelayHttpToolsProtocol"]
        server = subprocess.Popen(command, cwd=tree, env=env, start_new_session=True)
        url = f"http://127.0.0.1:{port}"
        found: dict[str, Any] = {"tree": str(tree), "load_average": os.getloadavg()[0]}
        try:
            wait_healthy(url)
            drive(url, args.game, args.warm, args.clients)
            cpu = process_tree_cpu(server.pid)
            actions, requests, wall = drive(url, args.game, args.actions, args.clients)
            cpu = process_tree_cpu(server.pid) - cpu
            found.update(actions=actions, requests=requests,
                         cpu_ms_per_action=round(1e3 * cpu / actions, 3),
                         cpu_ms_per_request=round(1e3 * cpu / requests, 3),
                         actions_per_s=round(actions / wall, 1))
            if args.hands:
                found.update(read_match(url, server.pid, env["DATABASE_URL"], args))
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(json.dumps(found), file=sys.stderr, flush=True)
    return found


def read_match(url: str, pid: int, database_url: str, args: argparse.Namespace
               ) -> dict[str, float]:
    with httpx.Client(base_url=url, timeout=60) as client:
        created = client.post(f"{API}/matches", json={"game": "kuhn"}).json()
        fill_match(database_url, created["match_id"], args.hands)
        headers = {"Authorization": f"Bearer {created['token']}"}
        path = f"{API}/matches/{created['match_id']}"
        for _ in range(5):
            client.get(path, headers=headers).raise_for_status()
        timings = []
        cpu = process_tree_cpu(pid)
        for _ in range(args.reads):
            started = time.perf_counter()
            client.get(path, headers=headers).raise_for_status()
            timings.append(1e3 * (time.perf_counter() - started))
        cpu = process_tree_cpu(pid) - cpu
    return {"match_cpu_ms": round(1e3 * cpu / args.reads, 3),
            "match_p50_ms": round(statistics.median(timings), 2)}


FIGURES = ("cpu_ms_per_action", "cpu_ms_per_request", "actions_per_s", "match_cpu_ms",
           "match_p50_ms", "load_average")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kuhn")
    parser.add_argument("--actions", type=int, default=3000)
    parser.add_argument("--warm", type=int, default=300)
    parser.add_argument("--clients", type=int, default=2)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--store", type=Path, default=default_store_path())
    parser.add_argument("--against", type=Path, help="another checkout, run in turns")
    parser.add_argument("--rounds", type=int, default=1)
    args = parser.parse_args()
    args.store = args.store.resolve()
    trees = {"this": REPO_ROOT}
    if args.against is not None:
        trees = {"other": args.against.resolve(), "this": REPO_ROOT}
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            runs[name].append(one_run(tree, args))
    medians = {name: {key: round(statistics.median(r[key] for r in found), 3)
                      for key in FIGURES if key in found[0]}
               for name, found in runs.items()}
    print(json.dumps(medians, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The web app under load: load, reads, start-up, in one table.

    .venv/bin/python -m benchmarks.serving                  # about 8 minutes
    .venv/bin/python -m benchmarks.serving --time 20s --parts load
    .venv/bin/python -m benchmarks.serving --json-out results.json
    .venv/bin/python -m benchmarks.serving --against ../main --rounds 3

* **load**: `load_test.py` (locust, headless, ``FastHttpUser``s with no think time) with
  ``--users`` players of one game at a time (``--games``, default Kuhn and holdem-mini)
  against one and against two uvicorn workers (``--workers``) on SQLite: actions a second,
  p50/p99 of the action, errors, the server's CPU per action (all its CPU, hand starts
  included, over the actions) and per request, locust's own CPU per request, the load average
  before and after, and the largest write-ahead log seen during the run.
* **reads**: one worker; ``GET /api/v1/matches/{id}`` of a match with ``--hands`` finished
  hands, the play page ``/play/kuhn`` and a match's table ``/matches/{id}``, each read
  ``--reads`` times in a row over one keep-alive connection: p50/p99 and server CPU a read.
* **startup**: exec of ``uvicorn app.main:app`` to ``/healthz`` answering 200 (wall, and the
  server's CPU by then, which the machine's other load stretches less), then what the first
  hand and action of every game in the store cost, and the second ones.

On a shared machine the wall-clock figures move with the other load, and the CPU ones too
when the load is heavy (a CPU second buys less work when the two cores' caches and pipelines
are shared with a dozen other processes): compare commits with ``--against DIR`` (a checkout
of the other commit with this commit's ``benchmarks/`` copied in), which runs the parts in
turns in both trees and prints the medians side by side.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

from benchmarks.profile_serving import (
    fill_match,
    process_tree_cpu,
    server_command,
    server_env,
    wait_healthy,
)
from strategies import default_store_path
from tests.app.server import free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
API = "/api/v1"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered) + 0.5) - 1))]


def load_runs(args: argparse.Namespace) -> list[dict[str, Any]]:
    runs = []
    for game in args.games.split(","):
        for workers in (int(w) for w in args.workers.split(",")):
            command = [sys.executable, "-m", "benchmarks.load_test",
                       "--workers", str(workers), "--users", str(args.users), "--spawn-rate",
                       str(args.users), "--time", args.time, "--think", "0", "--games", game,
                       "--store", str(args.store), "--json"]
            done = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True,
                                  check=False, env={**os.environ, "PYTHONPATH": str(REPO_ROOT)})
            if not done.stdout.strip():
                raise SystemExit(f"load_test.py failed:\n{done.stderr[-3000:]}")
            report = json.loads(done.stdout)
            runs.append(report)
            print(load_line(report), file=sys.stderr, flush=True)
    return runs


def load_line(r: dict[str, Any]) -> str:
    a = r["action"] or {}
    return (f"| {r['games']} | {r['workers']} | {a.get('rps', 0):,.0f} | {a.get('p50_ms')} | "
            f"{a.get('p99_ms')} | {r['errors']} | {r['server_cpu_ms_per_action']:.2f} | "
            f"{r['server_cpu_ms_per_request']:.2f} | {r['locust_cpu_ms_per_request']:.2f} | "
            f"{r['load_average_before'][0]:.1f} → {r['load_average_after'][0]:.1f} | "
            f"{r['wal_max_bytes'] / 2**20:.1f} MiB |")


def timed_reads(client: httpx.Client, pid: int, path: str, reads: int,
                headers: dict[str, str] | None = None) -> dict[str, float]:
    for _ in range(5):  # warm
        client.get(path, headers=headers).raise_for_status()
    timings = []
    cpu = process_tree_cpu(pid)
    for _ in range(reads):
        started = time.perf_counter()
        client.get(path, headers=headers).raise_for_status()
        timings.append(1e3 * (time.perf_counter() - started))
    cpu = process_tree_cpu(pid) - cpu
    return {"p50_ms": round(statistics.median(timings), 2),
            "p99_ms": round(percentile(timings, 99), 2),
            "server_cpu_ms": round(1e3 * cpu / reads, 2)}


def reads(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        env, port = server_env(tmp, args.store), free_port()
        url = f"http://127.0.0.1:{port}"
        server = subprocess.Popen(server_command(port), cwd=REPO_ROOT, env=env,
                                  start_new_session=True)
        try:
            wait_healthy(url)
            with httpx.Client(base_url=url, timeout=60) as client:
                created = client.post(f"{API}/matches", json={"game": "kuhn"}).json()
                fill_match(env["DATABASE_URL"], created["match_id"], args.hands)
                headers = {"Authorization": f"Bearer {created['token']}"}
                found: dict[str, Any] = {"hands": args.hands, "load_average": os.getloadavg()}
                found["match"] = timed_reads(client, server.pid,
                                             f"{API}/matches/{created['match_id']}",
                                             args.reads, headers)
                page = client.get("/play/kuhn")
                found["play_page"] = timed_reads(client, server.pid, "/play/kuhn", args.reads)
                token = page.text.split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
                table = client.post("/play/kuhn", data={"csrf_token": token},
                                    follow_redirects=False).headers["location"]
                found["table_page"] = timed_reads(client, server.pid, table, args.reads)
        finally:
            server.terminate()
            server.wait(timeout=30)
    print(json.dumps(found), file=sys.stderr, flush=True)
    return found


def startup(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        env, port = server_env(tmp, args.store), free_port()
        url = f"http://127.0.0.1:{port}"
        load = os.getloadavg()
        server = subprocess.Popen(server_command(port), cwd=REPO_ROOT, env=env,
                                  start_new_session=True)
        try:
            seconds = wait_healthy(url)
            cpu = process_tree_cpu(server.pid)
            time.sleep(args.settle)  # what a first hand costs once the warming had its time
            first: dict[str, Any] = {}
            with httpx.Client(base_url=url, timeout=120) as client:
                games = client.get("/healthz").json()["games"]
                for game in games:
                    first[game] = [play_one(client, game) for _ in range(2)]
        finally:
            server.terminate()
            server.wait(timeout=30)
    found = {"healthz_seconds": round(seconds, 2), "server_cpu_s": round(cpu, 2),
             "load_average": load, "first_and_second_hand_ms": first}
    print(json.dumps(found), file=sys.stderr, flush=True)
    return found


def play_one(client: httpx.Client, game: str) -> dict[str, float]:
    """A new match, its first hand and one action: the milliseconds of each."""
    times: dict[str, float] = {}
    started = time.perf_counter()
    created = client.post(f"{API}/matches", json={"game": game})
    times["match"] = round(1e3 * (time.perf_counter() - started), 1)
    created.raise_for_status()
    headers = {"Authorization": f"Bearer {created.json()['token']}"}
    started = time.perf_counter()
    view = client.post(f"{API}/matches/{created.json()['match_id']}/hands", headers=headers)
    times["hand"] = round(1e3 * (time.perf_counter() - started), 1)
    view.raise_for_status()
    body = view.json()
    if body["status"] == "in_progress":
        started = time.perf_counter()
        client.post(f"{API}/hands/{body['hand_id']}/actions", headers=headers,
                    json={"action": body["legal_actions"][0], "seq": body["seq"]}
                    ).raise_for_status()
        times["action"] = round(1e3 * (time.perf_counter() - started), 1)
    return times


def against(args: argparse.Namespace) -> int:
    """Run this benchmark in turns in another checkout (``--against DIR``) and in this one,
    ``--rounds`` times, so that both see the same load; print the medians side by side."""
    trees = {"other": args.against.resolve(), "this": REPO_ROOT}
    found: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
    for _ in range(args.rounds):
        for name, tree in trees.items():
            with tempfile.NamedTemporaryFile(suffix=".json") as out:
                command = [sys.executable, "-m", "benchmarks.serving", "--parts",
                           args.parts, "--games", args.games, "--workers", args.workers,
                           "--users", str(args.users), "--time", args.time, "--hands",
                           str(args.hands), "--reads", str(args.reads), "--settle",
                           str(args.settle), "--store",
                           str(args.store.resolve()), "--json-out", out.name]
                subprocess.run(command, cwd=tree, env={**os.environ, "PYTHONPATH": str(tree)},
                               check=True, stdout=subprocess.DEVNULL)
                found[name].append(json.loads(Path(out.name).read_text()))
    print(json.dumps({name: summary(runs) for name, runs in found.items()}, indent=1))
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(found, indent=2) + "\n")
    return 0


def summary(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Medians over the rounds of the figures that matter."""
    def median(values: list[float]) -> float:
        return round(statistics.median(values), 2)

    out: dict[str, Any] = {}
    if runs and "startup" in runs[0]:
        out["startup_cpu_s"] = median([r["startup"]["server_cpu_s"] for r in runs])
        out["healthz_s"] = median([r["startup"]["healthz_seconds"] for r in runs])
    if runs and "reads" in runs[0]:
        for page in ("match", "play_page", "table_page"):
            out[f"{page}_cpu_ms"] = median([r["reads"][page]["server_cpu_ms"] for r in runs])
            out[f"{page}_p50_ms"] = median([r["reads"][page]["p50_ms"] for r in runs])
    for i, load in enumerate(runs[0].get("load", []) if runs else []):
        name = f"{load['games']}x{load['workers']}"
        cell = [r["load"][i] for r in runs]
        out[name] = {key: median([c[key] for c in cell]) for key in (
            "server_cpu_ms_per_request", "server_cpu_ms_per_action",
            "locust_cpu_ms_per_request")}
        out[name]["actions_per_s"] = median([(c["action"] or {}).get("rps", 0) for c in cell])
        out[name]["p99_ms"] = median([(c["action"] or {}).get("p99_ms", 0) for c in cell])
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--parts", default="load,reads,startup")
    parser.add_argument("--games", default="kuhn,holdem-mini")
    parser.add_argument("--workers", default="1,2")
    parser.add_argument("--users", type=int, default=50)
    parser.add_argument("--time", default="30s")
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--reads", type=int, default=200)
    parser.add_argument("--settle", type=float, default=0.0,
                        help="startup: seconds to wait after /healthz before the first hands")
    parser.add_argument("--store", type=Path, default=default_store_path())
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--against", type=Path, help="another checkout to run in turns with "
                        "this one (its benchmarks/ must be this one's)")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if args.against is not None:
        return against(args)
    parts = args.parts.split(",")
    result: dict[str, Any] = {"cpus": os.cpu_count()}
    if "startup" in parts:
        result["startup"] = startup(args)
    if "reads" in parts:
        result["reads"] = reads(args)
    if "load" in parts:
        result["load"] = load_runs(args)
        print("| game | workers | actions/s | p50 ms | p99 ms | errors | server CPU ms/action | "
              "server CPU ms/request | locust CPU ms/request | load average | largest WAL |")
        print("|---|---|---|---|---|---|---|---|---|---|---|")
        for run in result["load"]:
            print(load_line(run))
    for name in ("startup", "reads"):
        if name in result:
            print(f"{name}: {json.dumps(result[name])}")
    if args.json_out is not None:
        args.json_out.write_text(json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

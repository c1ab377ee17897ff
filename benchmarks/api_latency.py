"""Latency of one player action through the REST API, end to end over HTTP.

Starts ``uvicorn app.main:app`` on 127.0.0.1 in a subprocess (on a fresh database in a
temporary folder, with the strategy store of ``--store`` / ``$STRATEGY_STORE``), then plays
random legal actions in random games with httpx and times each ``POST /api/v1/hands/{id}/actions``
(which includes the bot's replies and their database writes), sequentially::

    .venv/bin/python -m benchmarks.api_latency            # 1000 timed actions
    .venv/bin/python -m benchmarks.api_latency --actions 5000 --json
    .venv/bin/python -m benchmarks.api_latency --games hunl --actions 300
    .venv/bin/python -m benchmarks.api_latency --games hunl --actions 300 --deep

Starting hands is not timed; a warm-up (default 50 actions) runs first and is not counted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import httpx

REPO_ROOT = Path(__file__).resolve().parent.parent
GAMES = ("rps", "kuhn", "leduc", "dudo", "dudo-calzo")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def percentile(sorted_values: list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    rank = max(1, min(len(sorted_values), round(q / 100 * len(sorted_values) + 0.5)))
    return sorted_values[rank - 1]


def summary(ms: list[float]) -> dict[str, float]:
    ordered = sorted(ms)
    return {
        "n": len(ordered),
        "p50_ms": round(percentile(ordered, 50), 3),
        "p90_ms": round(percentile(ordered, 90), 3),
        "p95_ms": round(percentile(ordered, 95), 3),
        "p99_ms": round(percentile(ordered, 99), 3),
        "mean_ms": round(statistics.fmean(ordered), 3),
        "max_ms": round(ordered[-1], 3),
    }


def choose(view: dict[str, Any], rng: random.Random, deep: bool) -> dict[str, Any]:
    """A random legal action; with `deep`, a check or call four times in five until the last
    round, then any amount of the range half the time (the sizes no bot's abstraction has)."""
    legal = view["legal_actions"]
    choice = view.get("amount_choice")
    if not deep:
        return {"action": rng.choice(legal)}
    public = view["public"]
    last = public.get("round") is not None and public.get("round") == public.get("rounds")
    if last and choice is not None and rng.random() < 0.5:
        return {"action": choice["action"], "amount": rng.randint(choice["min"], choice["max"])}
    passive = [a for a in legal if a.lower().startswith(("check", "call"))]
    if passive and rng.random() < 0.8:
        return {"action": passive[0]}
    return {"action": rng.choice(legal)}


def wait_ready(client: httpx.Client, server: subprocess.Popen[bytes], timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}")
        try:
            response = client.get("/healthz")
            if response.status_code == 200:
                return
            raise SystemExit(f"/healthz answered {response.status_code}: {response.text}")
        except httpx.TransportError:
            time.sleep(0.1)
    raise SystemExit("the server did not start in time")


def run(args: argparse.Namespace) -> dict[str, object]:
    store = Path(args.store or os.environ.get("STRATEGY_STORE") or
                 REPO_ROOT / "strategies" / "strategies.sqlite")
    if not store.is_file():
        raise SystemExit(f"no strategy store at {store}; run `python -m solver build` first")
    port = free_port()
    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as tmp:
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT),
            "DATABASE_URL": f"sqlite:///{Path(tmp) / 'bench.sqlite'}",
            "STRATEGY_STORE": str(store),
            "SECRET_KEY": "benchmark",
            "APP_DATA_DIR": tmp,
        }
        server = subprocess.Popen(
            [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
             "--port", str(port), "--log-level", "warning", "--no-access-log"],
            cwd=REPO_ROOT, env=env,
        )
        try:
            with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
                wait_ready(client, server, timeout=60)
                headers: dict[str, dict[str, str]] = {}
                matches: dict[str, str] = {}
                for game in args.games:
                    body = client.post("/api/v1/matches", json={"game": game}).json()
                    matches[game] = body["match_id"]
                    headers[game] = {"Authorization": f"Bearer {body['token']}"}
                timings: dict[str, list[float]] = {g: [] for g in args.games}
                by_round: dict[str, list[float]] = {}
                done, total = 0, args.warmup + args.actions
                while done < total:
                    game = rng.choice(args.games)
                    response = client.post(f"/api/v1/matches/{matches[game]}/hands",
                                           headers=headers[game])
                    response.raise_for_status()
                    view = response.json()
                    while view["status"] == "in_progress" and done < total:
                        body = choose(view, rng, args.deep)
                        asked_in = view["public"].get("round")
                        start = time.perf_counter()
                        response = client.post(f"/api/v1/hands/{view['hand_id']}/actions",
                                               headers=headers[game],
                                               json={**body, "seq": view["seq"]})
                        elapsed = (time.perf_counter() - start) * 1000
                        response.raise_for_status()
                        view = response.json()
                        if done >= args.warmup:
                            timings[game].append(elapsed)
                            by_round.setdefault(f"{game} round {asked_in}", []).append(elapsed)
                        done += 1
                    if view["status"] == "in_progress":  # the budget ended mid-hand
                        break
        finally:
            server.terminate()
            server.wait(timeout=10)
    every = [t for ts in timings.values() for t in ts]
    return {
        "actions": len(every),
        "warmup": args.warmup,
        "store": str(store),
        "all": summary(every),
        "by_game": {g: summary(ts) for g, ts in timings.items() if ts},
        "by_round": {r: summary(ts) for r, ts in sorted(by_round.items())},
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--actions", type=int, default=1000, help="timed actions (1000)")
    parser.add_argument("--warmup", type=int, default=50, help="untimed actions first (50)")
    parser.add_argument("--games", nargs="+", default=list(GAMES), metavar="GAME",
                        help=f"games of the store to play (default {' '.join(GAMES)}; "
                             "hunl: heads-up no-limit, the named amounts among its moves)")
    parser.add_argument("--store", help="strategy store (default $STRATEGY_STORE or "
                                        "strategies/strategies.sqlite)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--deep", action="store_true",
                        help="play hands to the last round (checks and calls), then bet any "
                             "amount: what a re-solving bot's decisions cost")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
        return 0
    print(f"{result['actions']} sequential actions over HTTP (after {args.warmup} warm-up), "
          f"store {result['store']}")
    rows = [("all", result["all"]), *result["by_game"].items()]  # type: ignore[attr-defined]
    print(f"{'game':<11} {'n':>5} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'mean ms':>8} "
          f"{'max ms':>8}")
    for name, s in rows:
        print(f"{name:<11} {s['n']:>5} {s['p50_ms']:>8.2f} {s['p90_ms']:>8.2f} "
              f"{s['p99_ms']:>8.2f} {s['mean_ms']:>8.2f} {s['max_ms']:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

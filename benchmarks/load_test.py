"""Load test of the REST API with locust: simulated players, each playing whole hands of random
games (create a match, deal hands, act until each hand is finished, now and then a new match).

This file is both the locustfile and a runner. The runner starts ``uvicorn app.main:app`` with N
workers on 127.0.0.1 on a fresh database in a temporary folder (SQLite unless
``--database-url``), runs ``locust --headless`` against it, and prints requests/s, the p50, p95
and p99 latencies for the action endpoint and overall, and the error count::

    .venv/bin/python -m benchmarks.load_test --workers 1      # 100 users, 60 s
    .venv/bin/python -m benchmarks.load_test --workers 2 --users 100 --time 60s
    .venv/bin/python -m benchmarks.load_test --workers 2 --json

The players are locust ``FastHttpUser``s (geventhttpclient): the load generator shares the two
cores with the server, and its own CPU time per request is a fraction of ``HttpUser``'s
(requests), so less of what is measured is the client. ``--loop`` and ``--http`` pick uvicorn's
event loop and HTTP protocol (default: uvloop if installed, and
:data:`app.core.serve.HTTP_PROTOCOL`).

Each player waits ``--think`` seconds (uniform, default 0.5-1.5) between two requests, as a
player (or a bot client) does between moves; ``--think 0`` measures saturation instead. The
exit status is 1 if any request failed (any answer other than the expected 200/201).

As a plain locustfile: ``locust -f benchmarks/load_test.py --host http://127.0.0.1:8000``
(``LOAD_THINK=0.5-1.5`` sets the think time there).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parent.parent
GAMES = ("rps", "kuhn", "leduc", "dudo", "dudo-calzo")
API = "/api/v1"
ACTION = f"{API}/hands/[id]/actions"
"""The action endpoint's name in locust's statistics (the ids vary)."""
RETRY = f"{ACTION} (retry)"
"""An action sent again with its idempotency key, to another instance where there are several:
it must get the first answer back, marked as replayed."""
HANDS_PER_MATCH = 5
DEFAULT_THINK = "0.5-1.5"


def parse_think(text: str) -> tuple[float, float]:
    low, _, high = text.partition("-")
    return float(low), float(high or low)


# ---- the locustfile --------------------------------------------------------------------------

if __name__ != "__main__":  # imported by locust (importing it here would monkey-patch the runner)
    from locust import FastHttpUser, task
    from locust.exception import RescheduleTask, StopUser

    _THINK = parse_think(os.environ.get("LOAD_THINK", DEFAULT_THINK))
    _GAMES = tuple(os.environ.get("LOAD_GAMES", ",".join(GAMES)).split(","))
    _HOSTS = [h for h in os.environ.get("LOAD_HOSTS", "").split(",") if h]
    """Several instances: each request goes to one at random, as a proxy would send it."""
    _RETRIES = float(os.environ.get("LOAD_RETRIES", "0"))
    _STOP_AFTER = float(os.environ.get("LOAD_STOP_AFTER", "inf"))
    """With --drain: each player stops by itself after this many seconds, between requests."""

    class ApiPlayer(FastHttpUser):
        """One player: one request per task, then a think time."""

        def wait_time(self) -> float:
            return random.uniform(*_THINK)

        def on_start(self) -> None:
            self.headers: dict[str, str] = {}
            self.match_id: str | None = None
            self.hands = 0
            self.view: dict[str, Any] | None = None
            self.started = time.monotonic()

        def _expect(self, method: str, url: str, name: str, status: int,
                    headers: dict[str, str] | None = None, replayed: bool = False,
                    **kwargs: Any) -> dict[str, Any]:
            if _HOSTS:
                url = random.choice(_HOSTS) + url
            with self.client.request(method, url, name=name, catch_response=True,
                                     headers={**self.headers, **(headers or {})},
                                     **kwargs) as response:
                if response.status_code != status or (
                        replayed and response.headers.get("Idempotent-Replayed") != "true"):
                    response.failure(f"{response.status_code}: {response.text[:200]}")
                    self.view = None  # start over with a new hand
                    raise RescheduleTask()
                body: dict[str, Any] = response.json()
                return body

        @task
        def play(self) -> None:
            if time.monotonic() - self.started > _STOP_AFTER:
                raise StopUser()
            if self.match_id is None or (self.hands >= HANDS_PER_MATCH
                                         and (self.view is None
                                              or self.view["status"] == "finished")):
                self.headers = {}
                body = self._expect("POST", f"{API}/matches", f"{API}/matches", 201,
                                    json={"game": random.choice(_GAMES)})
                self.match_id, self.hands, self.view = body["match_id"], 0, None
                self.headers = {"Authorization": f"Bearer {body['token']}"}
            elif self.view is None or self.view["status"] == "finished":
                self.view = self._expect("POST", f"{API}/matches/{self.match_id}/hands",
                                         f"{API}/matches/[id]/hands", 201)
                self.hands += 1
            else:
                view = self.view
                url = f"{API}/hands/{view['hand_id']}/actions"
                body = {"action": random.choice(view["legal_actions"]), "seq": view["seq"]}
                key = {"Idempotency-Key": uuid.uuid4().hex} if _RETRIES else None
                self.view = self._expect("POST", url, ACTION, 200, key, json=body)
                if random.random() < _RETRIES:
                    again = self._expect("POST", url, RETRY, 200, key, replayed=True, json=body)
                    if again != self.view:
                        raise AssertionError("a retry got another answer than the first")


# ---- the runner ------------------------------------------------------------------------------


def seconds(duration: str) -> float:
    """locust's ``-t``: ``90``, ``90s``, ``2m``, ``1h``."""
    units = {"s": 1, "m": 60, "h": 3600}
    if duration and duration[-1] in units:
        return float(duration[:-1]) * units[duration[-1]]
    return float(duration)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, workers: int, env: dict[str, str], log: Path,
                 timeout: float = 120.0, http: str | None = None,
                 loop: str = "auto") -> subprocess.Popen[bytes]:
    from app.core.serve import HTTP_PROTOCOL  # not at the top: locust imports this file too

    command = [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1",
               "--port", str(port), "--workers", str(workers), "--log-level", "info",
               "--no-access-log", "--http", http or HTTP_PROTOCOL, "--loop", loop]
    with open(log, "wb") as out:
        server = subprocess.Popen(command, cwd=REPO_ROOT, env=env, stdout=out,
                                  stderr=subprocess.STDOUT, start_new_session=True)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the server exited with {server.returncode}:\n"
                             f"{log.read_text()[-3000:]}")
        if log.read_text(errors="replace").count("Application startup complete") >= workers:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    return server
            except OSError:
                pass
        time.sleep(0.1)
    stop_server(server)
    raise SystemExit(f"the server did not start within {timeout} s:\n{log.read_text()[-3000:]}")


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is None:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(timeout=30)


def cpu_times() -> list[int] | None:
    """The machine's CPU time counters (``/proc/stat``: user, nice, system, idle, iowait, irq,
    softirq, steal), or None off Linux."""
    try:
        with open("/proc/stat") as handle:
            fields = handle.readline().split()
    except OSError:
        return None
    return [int(x) for x in fields[1:9]] if fields and fields[0] == "cpu" else None


def steal_percent(before: list[int] | None, after: list[int] | None) -> float | None:
    """Share of the CPU time the hypervisor gave to other guests between two readings: on a
    shared VM it stalls the server and the players alike, and shows in the tail latencies."""
    if before is None or after is None:
        return None
    delta = [b - a for a, b in zip(before, after, strict=True)]
    total = sum(delta)
    return round(100 * delta[7] / total, 1) if total > 0 else None


def read_stats(prefix: Path) -> dict[str, dict[str, Any]]:
    """locust's ``<prefix>_stats.csv``: one row per request name, plus ``Aggregated``."""
    with open(f"{prefix}_stats.csv", newline="") as handle:
        return {row["Name"]: row for row in csv.DictReader(handle)}


def row_summary(row: dict[str, Any]) -> dict[str, float]:
    def number(key: str) -> float:
        value = row.get(key) or "0"
        return float(value) if value != "N/A" else float("nan")

    return {
        "requests": int(number("Request Count")),
        "failures": int(number("Failure Count")),
        "rps": round(number("Requests/s"), 1),
        "p50_ms": number("50%"),
        "p95_ms": number("95%"),
        "p99_ms": number("99%"),
        "max_ms": round(number("Max Response Time"), 1),
    }


def run(args: argparse.Namespace) -> dict[str, Any]:
    store = Path(args.store or os.environ.get("STRATEGY_STORE") or
                 REPO_ROOT / "strategies" / "strategies.sqlite")
    if not store.is_file():
        raise SystemExit(f"no strategy store at {store}; run `python -m solver build` first")
    tmp = Path(tempfile.mkdtemp(prefix="load-test-"))
    try:
        ports = [free_port() for _ in range(args.instances)]
        env = {
            **os.environ,
            "PYTHONPATH": str(REPO_ROOT),
            "DATABASE_URL": args.database_url or f"sqlite:///{tmp / 'load.sqlite'}",
            "STRATEGY_STORE": str(store),
            "SECRET_KEY": "load-test",
            "APP_DATA_DIR": str(tmp),
            "LOAD_THINK": args.think,
            "LOAD_GAMES": args.games,
            "LOAD_RETRIES": str(args.retries),
            "LOAD_STOP_AFTER": str(seconds(args.time)) if args.drain else "inf",
            "LOAD_HOSTS": ",".join(f"http://127.0.0.1:{p}" for p in ports)
            if args.instances > 1 else "",
        }
        servers: list[subprocess.Popen[bytes]] = []
        try:
            for i, port in enumerate(ports):
                servers.append(start_server(port, args.workers, env, tmp / f"server{i}.log",
                                            http=args.http, loop=args.loop))
            prefix = tmp / "locust"
            command = [sys.executable, "-m", "locust", "-f", str(Path(__file__).resolve()),
                       "--headless", "-u", str(args.users), "-r", str(args.spawn_rate),
                       "-t", f"{int(seconds(args.time)) + 15}s" if args.drain else args.time,
                       "--host", f"http://127.0.0.1:{ports[0]}",
                       "--csv", str(prefix), "--only-summary", "--stop-timeout", "10",
                       "--loglevel", "WARNING", *(["--reset-stats"] if args.steady else [])]
            from benchmarks.profile_serving import process_tree_cpu  # not at the top: as above

            cpu_before = cpu_times()
            load_before = os.getloadavg()
            server_cpu_before = sum(process_tree_cpu(server.pid) for server in servers)
            children_before = resource.getrusage(resource.RUSAGE_CHILDREN)
            wal = WalWatcher(env["DATABASE_URL"])
            wal.start()
            locust = subprocess.run(command, cwd=REPO_ROOT, env=env, capture_output=True,
                                    text=True, check=False)
            wal.stop()
            children_after = resource.getrusage(resource.RUSAGE_CHILDREN)
            server_cpu = (sum(process_tree_cpu(server.pid) for server in servers)
                          - server_cpu_before)
            locust_cpu = (children_after.ru_utime + children_after.ru_stime
                          - children_before.ru_utime - children_before.ru_stime)
            load_after = os.getloadavg()
            steal = steal_percent(cpu_before, cpu_times())
            if not Path(f"{prefix}_stats.csv").exists():
                raise SystemExit(f"locust failed ({locust.returncode}):\n{locust.stderr[-3000:]}")
            stats = read_stats(prefix)
            failures_text = ""
            failures_csv = Path(f"{prefix}_failures.csv")
            if failures_csv.exists():
                failures_text = failures_csv.read_text()
            exceptions_csv = Path(f"{prefix}_exceptions.csv")
            exceptions = 0
            if exceptions_csv.exists():
                with open(exceptions_csv, newline="") as handle:
                    exceptions = sum(int(r.get("Count") or 0) for r in csv.DictReader(handle))
        finally:
            for server in servers:
                stop_server(server)
        log = "".join(path.read_text(errors="replace") for path in tmp.glob("server*.log"))
        total = row_summary(stats["Aggregated"])
        action = row_summary(stats[ACTION]) if ACTION in stats else None
        actions = action["requests"] if action is not None else 0
        return {
            "games": args.games,
            "workers": args.workers,
            "instances": args.instances,
            "users": args.users,
            "spawn_rate": args.spawn_rate,
            "time": args.time,
            "think_s": args.think,
            "steady_state_only": args.steady,
            "database": "sqlite" if not args.database_url else args.database_url.split(":")[0],
            "overall": total,
            "action": action,
            "by_endpoint": {name: row_summary(row) for name, row in stats.items()
                            if name != "Aggregated"},
            "errors": total["failures"] + exceptions,
            "server_cpu_s": round(server_cpu, 2),
            "server_cpu_ms_per_request": round(1e3 * server_cpu / max(1, total["requests"]), 3),
            "server_cpu_ms_per_action": round(1e3 * server_cpu / max(1, actions), 3),
            "locust_cpu_s": round(locust_cpu, 2),
            "locust_cpu_ms_per_request": round(1e3 * locust_cpu / max(1, total["requests"]), 3),
            "load_average_before": [round(x, 2) for x in load_before],
            "load_average_after": [round(x, 2) for x in load_after],
            "wal_max_bytes": wal.largest,
            "database_bytes": wal.database_size(),
            "cpu_steal_percent": steal,
            "failures": failures_text.strip().splitlines()[1:],
            "server_tracebacks": log.count("Traceback"),
        }
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=1, help="uvicorn workers (1)")
    parser.add_argument("--instances", type=int, default=1,
                        help="app instances on the same database, each with --workers; the "
                             "players send each request to one at random (1)")
    parser.add_argument("--drain", action="store_true",
                        help="the players stop by themselves after --time, between two "
                             "requests, so that every request is answered and counted (for "
                             "checks against the database); locust's own clock stops at "
                             "--time + 15 s, which an idle run then waits out")
    parser.add_argument("--retries", type=float, default=0.0,
                        help="share of actions sent again with their idempotency key (0)")
    parser.add_argument("--users", "-u", type=int, default=100, help="simulated players (100)")
    parser.add_argument("--spawn-rate", "-r", type=float, default=20, help="users/s (20)")
    parser.add_argument("--time", "-t", default="60s", help="duration, e.g. 60s or 2m (60s)")
    parser.add_argument("--think", default=DEFAULT_THINK,
                        help=f"seconds between a player's requests, MIN-MAX ({DEFAULT_THINK})")
    parser.add_argument("--steady", action="store_true",
                        help="count only after all users have started (locust --reset-stats)")
    parser.add_argument("--games", default=",".join(GAMES),
                        help=f"games the players pick from, comma-separated ({','.join(GAMES)})")
    parser.add_argument("--database-url", help="play database (default: SQLite in a temp dir)")
    parser.add_argument("--store", help="strategy store (default $STRATEGY_STORE or "
                                        "strategies/strategies.sqlite)")
    parser.add_argument("--loop", default="auto", choices=("auto", "asyncio", "uvloop"),
                        help="uvicorn's event loop (auto: uvloop if installed)")
    parser.add_argument("--http", help="uvicorn's HTTP protocol (default: app.core.serve's)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    args = parser.parse_args(argv)
    parse_think(args.think)
    result = run(args)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"{result['users']} players of {result['games']}, think {result['think_s']} s, "
              f"{result['time']}, {result['workers']} worker(s), {result['database']}"
              + (", after the ramp-up" if result["steady_state_only"] else ""))
        print(f"{'':<10} {'requests':>9} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7} "
              f"{'p99 ms':>7} {'max ms':>7} {'errors':>7}")
        rows = [("actions", result["action"]), ("overall", result["overall"])]
        for name, s in rows:
            if s is None:
                continue
            print(f"{name:<10} {s['requests']:>9} {s['rps']:>7.1f} {s['p50_ms']:>7.0f} "
                  f"{s['p95_ms']:>7.0f} {s['p99_ms']:>7.0f} {s['max_ms']:>7.0f} "
                  f"{s['failures']:>7}")
        print(f"errors: {result['errors']}")
        print(f"server CPU {result['server_cpu_s']} s: {result['server_cpu_ms_per_request']} ms "
              f"a request, {result['server_cpu_ms_per_action']} ms an action (everything "
              f"divided by the actions); locust CPU {result['locust_cpu_s']} s "
              f"({result['locust_cpu_ms_per_request']} ms a request)")
        print(f"load average {result['load_average_before']} before, "
              f"{result['load_average_after']} after; largest WAL {result['wal_max_bytes']:,} "
              f"bytes beside a {result['database_bytes']:,}-byte database")
        if result["cpu_steal_percent"] is not None:
            print(f"CPU steal during the run: {result['cpu_steal_percent']}% "
                  "(time the hypervisor gave to other guests)")
        for line in result["failures"][:10]:
            print(f"  {line}")
    return 1 if result["errors"] or result["server_tracebacks"] else 0


class WalWatcher:
    """The largest size the SQLite database's write-ahead log reached during a run (sampled
    every 0.2 s in a thread; nothing for another database)."""

    def __init__(self, database_url: str) -> None:
        self.path = (Path(database_url.removeprefix("sqlite:///"))
                     if database_url.startswith("sqlite:///") else None)
        self.largest = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def start(self) -> None:
        if self.path is not None:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join()

    def database_size(self) -> int:
        return self.path.stat().st_size if self.path is not None and self.path.exists() else 0

    def _run(self) -> None:
        assert self.path is not None
        wal = Path(f"{self.path}-wal")
        while not self._stop.wait(0.2):
            with contextlib.suppress(OSError):
                self.largest = max(self.largest, wal.stat().st_size)


if __name__ == "__main__":
    sys.exit(main())

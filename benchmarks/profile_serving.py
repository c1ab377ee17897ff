"""Where a request's time goes: py-spy samples the server while a client drives one path.

    .venv/bin/python -m benchmarks.profile_serving kuhn          # POST an action
    .venv/bin/python -m benchmarks.profile_serving holdem-mini   # hold'em's action
    .venv/bin/python -m benchmarks.profile_serving match         # GET, 10,000 hands
    .venv/bin/python -m benchmarks.profile_serving play-page     # /play/{game}
    .venv/bin/python -m benchmarks.profile_serving table-page    # /matches/{id}
    .venv/bin/python -m benchmarks.profile_serving startup       # exec to /healthz
    ... --out benchmarks/profiles/NAME.txt --seconds 20 --top 15

``uvicorn app.main:app`` (one worker, SQLite in a temporary folder) runs under ``py-spy record``
(sampling at 100 Hz, idle threads left out); a client of four threads keeps it busy with the
path for ``--seconds``; then the samples are summed per function (file and name, lines merged)
into two tables: *own* (the function was on top of the stack) and *total* (it was anywhere on
the stack), as shares of all samples. ``startup`` records from the interpreter's first line to
the first 200 from ``/healthz``. Needs ``py-spy`` (the ``bench`` extra) and root or ptrace
rights, as py-spy reads the server's memory.
"""

from __future__ import annotations

import argparse
import collections
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

import httpx
import psutil

from app.core.serve import HTTP_PROTOCOL
from app.db import hand_store
from app.db.engine import make_engine, make_sessionmaker
from app.db.hand_store import Finish
from strategies import default_store_path
from tests.app.server import free_port

REPO_ROOT = Path(__file__).resolve().parents[1]
API = "/api/v1"
SCENARIOS = ("kuhn", "holdem-mini", "match", "play-page", "table-page", "startup")
_FRAME = re.compile(r"^(?P<name>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")


def py_spy() -> str:
    found = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(found).exists():
        raise SystemExit("py-spy is not installed: .venv/bin/pip install -e '.[bench]'")
    return found


def short(frame: str) -> str:
    """``act (/repo/app/services/play.py:95)`` -> ``act (app/services/play/hands.py)``."""
    match = _FRAME.match(frame)
    if match is None:
        return frame
    file = match["file"]
    for marker in ("site-packages/", f"{REPO_ROOT}/", "lib/python3"):
        if marker in file:
            file = file.split(marker, 1)[1]
    return f"{match['name']} ({file})"


IDLE = ("Condition.wait (threading.py)", "Runner.run (asyncio/runners.py)")
"""Leaves of a thread that waits: the WAL checkpointer's sleep, and the event loop waiting in
uvloop's C code (py-spy sees its Python caller on top)."""


OURS = ("app/", "strategies/", "solver/")
LIBRARY_WORK = ("Session.", "Connection.execute", "TypeAdapter.dump_json", "BaseModel.",
                "solve_dependencies", "serialize_response", "Jinja2Templates.", "Template.",
                "_serialize_response", "create_model_field")
"""What *total* shows: the project's functions and a few library entry points whose cost is
the question (ORM, validation, JSON, templates); the middleware every request passes through
is on every stack and says nothing."""


def summarise(raw: Path, top: int) -> str:
    """The two tables (own and total share of the busy samples) of a py-spy ``raw`` file."""
    own: collections.Counter[str] = collections.Counter()
    total: collections.Counter[str] = collections.Counter()
    samples = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        frames = [short(f) for f in stack.split(";") if not f.startswith(("process ",
                                                                          "thread "))]
        if not frames or frames[-1] in IDLE:
            continue
        samples += count
        own[frames[-1]] += count
        for name in set(frames):
            total[name] += count
    lines = [f"{samples} busy samples"]
    for title, counter in (("own", own), ("total", total)):
        lines.append(f"\n{title:>6}  function")
        shown = [(name, count) for name, count in counter.most_common()
                 if title == "own" or any(f"({ours}" in name for ours in OURS)
                 or name.startswith(LIBRARY_WORK)]
        for name, count in shown[:top]:
            lines.append(f"{100 * count / max(1, samples):5.1f}%  {name}")
    return "\n".join(lines)


def process_tree_cpu(pid: int) -> float:
    """CPU seconds (user + system) of process `pid` and its live children (uvicorn's workers)
    so far."""
    try:
        root = psutil.Process(pid)
        processes = [root, *root.children(recursive=True)]
    except psutil.NoSuchProcess:
        return 0.0
    total = 0.0
    for process in processes:
        try:
            times = process.cpu_times()
        except psutil.NoSuchProcess:
            continue
        total += times.user + times.system
    return total


def server_env(tmp: Path, store: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(REPO_ROOT),
            "DATABASE_URL": f"sqlite:///{tmp / 'app.sqlite'}", "STRATEGY_STORE": str(store),
            "SECRET_KEY": "profile", "APP_DATA_DIR": str(tmp / "data")}


def server_command(port: int) -> list[str]:
    return [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port",
            str(port), "--workers", "1", "--log-level", "warning", "--no-access-log",
            "--http", HTTP_PROTOCOL]


def wait_healthy(url: str, timeout: float = 120.0) -> float:
    """Seconds until ``/healthz`` answers 200."""
    started = time.monotonic()
    with httpx.Client(base_url=url, timeout=5) as client:
        while time.monotonic() - started < timeout:
            try:
                if client.get("/healthz").status_code == 200:
                    return time.monotonic() - started
            except httpx.TransportError:
                pass
            time.sleep(0.02)
    raise SystemExit(f"/healthz did not answer within {timeout} s")


def fill_match(database_url: str, match_id: str, hands: int) -> None:
    """Finished hands written through the app's own hand store, as `match_read.py` does."""
    rng = random.Random(1)
    engine = make_engine(database_url)
    try:
        with make_sessionmaker(engine)() as session:
            match = hand_store.find_match(session, match_id)
            for number in range(1, hands + 1):
                hand = hand_store.new_hand(match, number, (number - 1) % 2)
                hand_store.insert_hand(session, hand, [],
                                       Finish(float(rng.choice((-2, -1, 1, 2)))))
    finally:
        engine.dispose()


def play_hands(client: httpx.Client, game: str, stop: threading.Event) -> int:
    """Play `game` until `stop`; the number of actions played."""
    created = client.post(f"{API}/matches", json={"game": game}).json()
    headers = {"Authorization": f"Bearer {created['token']}"}
    rng, actions = random.Random(), 0
    while not stop.is_set():
        view = client.post(f"{API}/matches/{created['match_id']}/hands", headers=headers).json()
        while view["status"] == "in_progress" and not stop.is_set():
            response = client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                   json={"action": rng.choice(view["legal_actions"]),
                                         "seq": view["seq"]})
            response.raise_for_status()
            view, actions = response.json(), actions + 1
    return actions


Work = Callable[[httpx.Client, threading.Event], int]


def prepare(url: str, scenario: str, database_url: str) -> Work:
    """What a client thread does in `scenario` (until its event is set), after the set-up
    (a 10,000-hand match, a browser's match) is done."""
    with httpx.Client(base_url=url, timeout=60) as setup:
        if scenario in ("kuhn", "holdem-mini"):
            def play(client: httpx.Client, stop: threading.Event) -> int:
                return play_hands(client, scenario, stop)
            return play
        else:
            created = setup.post(f"{API}/matches", json={"game": "kuhn"}).json()
            headers = {"Authorization": f"Bearer {created['token']}"}
            if scenario == "match":
                fill_match(database_url, created["match_id"], 10_000)
                path = f"{API}/matches/{created['match_id']}"
            else:
                page = setup.get("/play/kuhn")
                page.raise_for_status()
                path = "/play/kuhn"
                if scenario == "table-page":  # the table of a match this browser started
                    token = re.search(r'name="csrf-token" content="([^"]+)"', page.text)
                    assert token is not None, "no CSRF token on the play page"
                    started = setup.post("/play/kuhn", data={"csrf_token": token[1]},
                                         follow_redirects=False)
                    path = started.headers["location"]
                # the browser's session cookie, so that its matches are listed
                headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in setup.cookies.items())}

            def read(client: httpx.Client, stop: threading.Event) -> int:
                n = 0
                while not stop.is_set():
                    client.get(path, headers=headers).raise_for_status()
                    n += 1
                return n
            return read


def drive(url: str, work: Work, seconds: float, threads: int = 4) -> str:
    """Keep the server busy with `work` for `seconds`; what was done, in words."""
    stop = threading.Event()
    counts: list[int] = []

    def run() -> None:
        with httpx.Client(base_url=url, timeout=60) as client:
            counts.append(work(client, stop))

    workers = [threading.Thread(target=run) for _ in range(threads)]
    for worker in workers:
        worker.start()
    time.sleep(seconds)
    stop.set()
    for worker in workers:
        worker.join()
    return f"{sum(counts)} requests in {seconds:.0f} s by {threads} client threads"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenario", choices=SCENARIOS)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--store", type=Path, default=default_store_path())
    parser.add_argument("--out", type=Path, help="also write the tables to this file")
    parser.add_argument("--raw", type=Path, help="keep py-spy's samples in this file")
    args = parser.parse_args()
    spy = py_spy()
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        env, port = server_env(tmp, args.store), free_port()
        url, raw = f"http://127.0.0.1:{port}", tmp / "profile.txt"
        record = [spy, "record", "--format", "raw", "--rate", "100",
                  "--output", str(raw)]
        if args.scenario == "startup":
            command = [*record, "--", *server_command(port)]
            server = subprocess.Popen(command, cwd=REPO_ROOT, env=env, start_new_session=True,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            seconds = wait_healthy(url)
            note = f"exec to /healthz answering: {seconds:.2f} s wall"
            os.killpg(server.pid, signal.SIGINT)  # py-spy stops and writes its file
            server.wait(timeout=60)
        else:
            server = subprocess.Popen(server_command(port), cwd=REPO_ROOT, env=env,
                                      start_new_session=True)
            try:
                wait_healthy(url)
                work = prepare(url, args.scenario, env["DATABASE_URL"])
                spy_process = subprocess.Popen(
                    [*record, "--pid", str(server.pid), "--duration", str(int(args.seconds))],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                time.sleep(1.0)  # py-spy attaches
                note = drive(url, work, args.seconds)
                spy_process.wait(timeout=120)
            finally:
                os.killpg(server.pid, signal.SIGTERM)
                server.wait(timeout=30)
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        if args.raw is not None:
            shutil.copyfile(raw, args.raw)
        text = (f"# {args.scenario}: {note}; load average {load}\n"
                + summarise(raw, args.top))
    print(text)
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(text + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

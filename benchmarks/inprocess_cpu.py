"""The app's own CPU per action, without a server or a client: the ASGI app driven in-process.

    .venv/bin/python -m benchmarks.inprocess_cpu --actions 2000
    .venv/bin/py-spy record --format raw -o kuhn.raw -- .venv/bin/python -m benchmarks.inprocess_cpu

A match is created and hands of ``--game`` are played through ``app(scope, receive, send)``
(five hands a match, random legal actions, each sent with its ``seq``), on SQLite in a temporary
folder, after a warm-up: CPU ms (``time.process_time``) per action and per request. Nothing
else runs in the process, so a sampling profiler's shares are those of the app: under uvicorn,
the samples taken while the client was woken by a write land on the write.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastapi import FastAPI

from app.core.config import Settings
from app.main import create_app
from strategies import default_store_path

API = "/api/v1"


async def call(app: FastAPI, method: str, path: str, body: Any = None,
               headers: tuple[tuple[bytes, bytes], ...] = ()) -> Any:
    """One request through the ASGI app; its JSON answer (an error if not 2xx)."""
    raw = json.dumps(body).encode() if body is not None else b""
    sent = [(b"host", b"bench"), *headers]
    if body is not None:
        sent += [(b"content-type", b"application/json"),
                 (b"content-length", str(len(raw)).encode())]
    scope = {"type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1",
             "method": method, "scheme": "http", "path": path, "raw_path": path.encode(),
             "query_string": b"", "root_path": "", "headers": sent,
             "client": ("127.0.0.1", 1), "server": ("127.0.0.1", 80), "state": {}}
    delivered = False
    status: list[int] = []
    chunks: list[bytes] = []

    async def receive() -> dict[str, Any]:
        nonlocal delivered
        if not delivered:
            delivered = True
            return {"type": "http.request", "body": raw, "more_body": False}
        await asyncio.Event().wait()  # no disconnect
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        if message["type"] == "http.response.start":
            status.append(message["status"])
        else:
            chunks.append(message.get("body", b""))

    await app(scope, receive, send)
    if not 200 <= status[0] < 300:
        raise SystemExit(f"{method} {path}: {status[0]} {b''.join(chunks)[:300]!r}")
    return json.loads(b"".join(chunks))


async def play(app: FastAPI, game: str, actions: int, rng: random.Random) -> tuple[int, int]:
    """Play until `actions` actions: (actions, requests)."""
    played = requests = 0
    while played < actions:
        match = await call(app, "POST", f"{API}/matches", {"game": game})
        headers = ((b"authorization", f"Bearer {match['token']}".encode()),)
        requests += 1
        for _ in range(5):
            view = await call(app, "POST", f"{API}/matches/{match['match_id']}/hands", None,
                              headers)
            requests += 1
            while view["status"] == "in_progress":
                view = await call(app, "POST", f"{API}/hands/{view['hand_id']}/actions",
                                  {"action": rng.choice(view["legal_actions"]),
                                   "seq": view["seq"]}, headers)
                played, requests = played + 1, requests + 1
    return played, requests


async def measure(args: argparse.Namespace) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as folder:
        tmp = Path(folder)
        app = create_app(Settings(database_url=f"sqlite:///{tmp / 'app.sqlite'}",
                                  strategy_store=args.store, secret_key="bench",
                                  data_dir=tmp / "data", warm_strategies=False))
        rng = random.Random(1)
        async with app.router.lifespan_context(app):
            await play(app, args.game, args.warm, rng)
            cpu, wall = time.process_time(), time.perf_counter()
            actions, requests = await play(app, args.game, args.actions, rng)
            cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    return {"game": args.game, "actions": actions, "requests": requests,
            "cpu_ms_per_action": round(1e3 * cpu / actions, 3),
            "cpu_ms_per_request": round(1e3 * cpu / requests, 3),
            "wall_ms_per_action": round(1e3 * wall / actions, 3),
            "load_average": os.getloadavg()[0]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="kuhn")
    parser.add_argument("--actions", type=int, default=2000)
    parser.add_argument("--warm", type=int, default=300)
    parser.add_argument("--store", type=Path, default=default_store_path())
    print(json.dumps(asyncio.run(measure(parser.parse_args()))))
    return 0


if __name__ == "__main__":
    sys.exit(main())

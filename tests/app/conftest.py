"""Fixtures of the app tests: one strategy store per session, fresh apps on temporary databases.

The store is built once per session with ``python -m solver build --quiet`` (about 30 s) unless
``TEST_STRATEGY_STORE`` points to an existing one.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from app.core.config import Settings
from app.deps import get_rng
from app.main import create_app
from solver.cli import main
from solver.resolving.kind import ResolvingSpec
from solver.resolving.store import store_resolving
from tests.app.postgres import PostgresServer, postgres_server
from tests.conftest import copy_store

GAMES = ("rps", "kuhn", "leduc", "dudo", "dudo-calzo", "holdem-mini")


@pytest.fixture(scope="session")
def store_without_leduc(store_path: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The complete store minus Leduc's solve."""
    return copy_store(store_path, tmp_path_factory.mktemp("partial") / "no_leduc.sqlite",
                      drop=("leduc",))


ABSTRACTED = "holdem-mini"
"""The game `abstracted_stores` gives an abstraction's bot."""


@pytest.fixture(scope="session")
def abstracted_stores(store_path: Path, tmp_path_factory: pytest.TempPathFactory
                      ) -> tuple[Path, Path]:
    """The test store with holdem-mini's latest solve a blueprint of 4 buckets a round (an
    abstraction's bot, whose values know no exact start of a hand), and a copy whose latest
    re-solves the second round over it; about a minute."""
    folder = tmp_path_factory.mktemp("abstracted")
    blueprint = copy_store(store_path, folder / "blueprint.sqlite")
    assert main(["hulhe", "--game", ABSTRACTED, "--buckets", "4", "--algorithm", "cs",
                 "--metric", "ehs2", "--epochs", "1", "--epoch-iterations", "200",
                 "--workers", "0", "--checkpoint", "none", "--self-play-deals", "0",
                 "--quiet", "--json", "--store", str(blueprint)]) == 0
    resolving = copy_store(blueprint, folder / "resolving.sqlite")
    store_resolving(str(resolving), ABSTRACTED, ResolvingSpec(2, "maxmargin", 10))
    return blueprint, resolving


@dataclass
class AppHandle:
    app: FastAPI
    client: TestClient
    settings: Settings
    rng: random.Random


AppFactory = Callable[..., AppHandle]


@pytest.fixture
def make_app(tmp_path: Path, store_path: Path) -> Iterator[AppFactory]:
    """``make_app(store=..., db=..., seed=..., database_url=..., warm=...)``: a running app
    (lifespan entered) with a seeded rng injected; all are shut down at the end of the test.
    The strategies are not warmed in the background unless `warm` (`tests/app/test_warm.py`
    tests that): a thread reading the store beside a test that breaks it would race it."""
    stack: list[TestClient] = []

    def factory(store: Path | None = None, db: Path | None = None, seed: int = 0,
                database_url: str | None = None, warm: bool = False,
                **client_kw: Any) -> AppHandle:
        settings = Settings(
            database_url=database_url or f"sqlite:///{db or tmp_path / 'app.sqlite'}",
            strategy_store=store or store_path,
            secret_key="test-secret",
            data_dir=tmp_path,
            warm_strategies=warm,
        )
        app = create_app(settings)
        rng = random.Random(seed)
        app.dependency_overrides[get_rng] = lambda: rng
        client = TestClient(app, **client_kw)
        client.__enter__()
        stack.append(client)
        return AppHandle(app, client, settings, rng)

    yield factory
    for client in reversed(stack):
        client.__exit__(None, None, None)


@pytest.fixture
def api(make_app: AppFactory) -> AppHandle:
    return make_app()


def new_match(client: TestClient, game: str) -> tuple[str, dict[str, str]]:
    """Create a match; its id and the Authorization header."""
    response = client.post("/api/v1/matches", json={"game": game})
    assert response.status_code == 201, response.text
    body = response.json()
    return body["match_id"], {"Authorization": f"Bearer {body['token']}"}


def play_random_hand(client: TestClient, match_id: str, headers: dict[str, str],
                     rng: random.Random) -> dict[str, Any]:
    """Start a hand of the match and play random legal actions until it ends; its last view."""
    view: dict[str, Any] = client.post(f"/api/v1/matches/{match_id}/hands",
                                       headers=headers).json()
    while view["status"] == "in_progress":
        view = client.post(f"/api/v1/hands/{view['hand_id']}/actions", headers=headers,
                           json={"action": rng.choice(view["legal_actions"]),
                                 "seq": view["seq"]}).json()
    return view


# ---- PostgreSQL --------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def pg_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server (or ``TEST_POSTGRES_URL``'s), see tests/app/postgres.py."""
    with postgres_server() as server:
        yield server


@pytest.fixture
def pg_url(pg_server: PostgresServer) -> Iterator[str]:
    """A new empty PostgreSQL database for this test (``postgresql+psycopg://...``)."""
    url = pg_server.create_database()
    yield url
    pg_server.drop_database(url)


DATABASES = ("sqlite", "postgresql")


@pytest.fixture(params=DATABASES)
def database_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The play database of a test run on both back ends: an SQLite file, then PostgreSQL."""
    if request.param == "postgresql":
        return str(request.getfixturevalue("pg_url"))
    return f"sqlite:///{tmp_path / 'app.sqlite'}"

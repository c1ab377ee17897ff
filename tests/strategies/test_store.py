"""Tests of the SQLite strategy store (strategies/)."""

from __future__ import annotations

import contextlib
import random
import sqlite3
import threading
from collections.abc import Callable, Iterable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, event, select
from sqlalchemy.orm import Session

import strategies
from strategies import (
    SCHEMA_VERSION,
    InfosetStrategy,
    SolveInfo,
    StoreError,
    StoreMissingError,
    StoreSchemaError,
    StrategyStore,
    TracePoint,
    default_store_path,
)
from strategies.models import InfosetRow, SolveRow
from tests.conftest import stored_infoset

DUDO_INFOSETS = 24_576

STRATEGY = [
    InfosetStrategy("p0:1|", 0, ("call", "raise"), (1 / 3, 2 / 3)),
    InfosetStrategy("p1:2|r", 1, ("fold", "call", "raise"), (0.0, 1e-300, 1.0)),
    # Awkward text: JSON escaping, commas, quotes, non-ASCII.
    InfosetStrategy('p0:"x",y|é', 0, ('say "1x6"', "a,b", "dudo ✓"), (0.125, 0.5, 0.375)),
    InfosetStrategy("p1:empty", 1, (), ()),
]
TRACE = [
    TracePoint(10, 0.5, 0.25, -0.05),
    TracePoint(20, 1.0, 0.125, -0.055),
    TracePoint(30, 1.5, 0.0625, -0.0555),
]


def save(store: StrategyStore, game: str = "kuhn",
         strategy: Iterable[InfosetStrategy] | None = None, **kw: Any) -> SolveInfo:
    args: dict[str, Any] = {
        "algorithm": "cfr+",
        "iterations": 30,
        "seconds": 1.5,
        "exploitability": 0.0625,
        "value": -0.0555,
        "trace": TRACE,
        "solver_version": "0.1.0",
    }
    args.update(kw)
    return store.save_solve(game=game, strategy=STRATEGY if strategy is None else strategy, **args)


@pytest.fixture
def store(tmp_path: Path) -> Iterator[StrategyStore]:
    with StrategyStore.open(tmp_path / "store.sqlite", create=True) as s:
        yield s


# ---- round trip ------------------------------------------------------------------------------


def test_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    before = datetime.now(UTC)
    with StrategyStore.open(path, create=True) as store:
        info = save(store)
    after = datetime.now(UTC)

    assert info.game == "kuhn"
    assert info.algorithm == "cfr+"
    assert info.iterations == 30
    assert info.seconds == 1.5
    assert info.exploitability == 0.0625
    assert info.value == -0.0555
    assert info.solver_version == "0.1.0"
    assert info.created.tzinfo is not None
    assert info.created.utcoffset() == timedelta(0)
    assert before <= info.created <= after

    with StrategyStore.open(path) as store:  # a fresh handle reads it back from disk
        assert store.solves() == [info]
        assert store.latest_solve("kuhn") == info
        got = store.strategy("kuhn")
        assert list(got) == [s.key for s in STRATEGY]  # insertion order kept
        assert list(got.values()) == STRATEGY  # labels, probabilities exact
        for s in got.values():
            assert type(s.labels) is tuple and type(s.probabilities) is tuple
        assert store.strategy("kuhn", info.id) == got
        assert store.trace(info.id) == TRACE


def test_rows_readable_through_the_orm_models(store: StrategyStore) -> None:
    """The bulk path writes exactly what the ORM's JSON columns read."""
    info = save(store)
    engine = create_engine(f"sqlite:///{store.path}")
    with Session(engine) as session:
        rows = session.scalars(
            select(InfosetRow).where(InfosetRow.solve_id == info.id).order_by(InfosetRow.id)
        ).all()
        assert [(r.key, r.player, r.labels, r.probabilities) for r in rows] == [
            (s.key, s.player, list(s.labels), list(s.probabilities)) for s in STRATEGY
        ]
        solve = session.get(SolveRow, info.id)
        assert solve is not None and solve.created == info.created
    engine.dispose()


def test_trace_sorted_by_iteration_and_empty_trace(store: StrategyStore) -> None:
    info = save(store, trace=list(reversed(TRACE)))
    assert store.trace(info.id) == TRACE
    empty = save(store, trace=[])
    assert store.trace(empty.id) == []
    with pytest.raises(KeyError):
        store.trace(empty.id + 100)


def test_save_accepts_lists_and_numpy(store: StrategyStore) -> None:
    import numpy as np
    # What numpy code hands over, not the declared types: saving converts them.
    player: Any = np.int64(1)
    labels: Any = ["a", "b"]
    probs: Any = np.array([0.25, 0.75], dtype=np.float32)
    info = save(store, strategy=[InfosetStrategy("k", player, labels, probs)])
    got = store.infoset("kuhn", "k", info.id)
    assert got == InfosetStrategy("k", 1, ("a", "b"), (0.25, 0.75))
    assert all(type(p) is float for p in got.probabilities)


def test_save_is_one_transaction(store: StrategyStore) -> None:
    bad = [*STRATEGY, InfosetStrategy("bad", 0, ("a", "b"), (1.0,))]
    with pytest.raises(ValueError, match="2 labels but 1 probabilities"):
        save(store, strategy=bad)
    with pytest.raises(ValueError, match="non-finite"):
        save(store, strategy=[InfosetStrategy("nan", 0, ("a",), (float("nan"),))])
    assert store.solves() == []
    assert store.games() == []


# ---- selection of solves ---------------------------------------------------------------------


def test_latest_solve_selection(store: StrategyStore) -> None:
    assert store.latest_solve("kuhn") is None
    assert store.games() == []
    k1 = save(store, "kuhn", strategy=[InfosetStrategy("a", 0, ("x", "y"), (0.1, 0.9))])
    d1 = save(store, "dudo")
    k2 = save(store, "kuhn", strategy=[InfosetStrategy("a", 0, ("x", "y"), (0.2, 0.8))])

    assert store.games() == ["dudo", "kuhn"]
    assert store.latest_solve("kuhn") == k2
    assert store.latest_solve("dudo") == d1
    assert store.latest_solve("leduc") is None
    assert store.solves("kuhn") == [k2, k1]
    assert store.solves() == [k2, d1, k1]
    assert store.solve(k1.id) == k1

    # The default is the latest solve; an explicit id selects an older one.
    assert stored_infoset(store, "kuhn", "a").probabilities == (0.2, 0.8)
    assert stored_infoset(store, "kuhn", "a", k1.id).probabilities == (0.1, 0.9)
    assert store.strategy("kuhn", k1.id)["a"].probabilities == (0.1, 0.9)
    # A solve id of another game, or no solve at all, is an error, not a silent miss.
    with pytest.raises(KeyError):
        store.infoset("kuhn", "a", d1.id)
    with pytest.raises(KeyError):
        store.strategy("kuhn", 9999)

    # A new solve saved through this object replaces the cached latest one at once.
    k3 = save(store, "kuhn", strategy=[InfosetStrategy("a", 0, ("x", "y"), (0.3, 0.7))])
    assert stored_infoset(store, "kuhn", "a").probabilities == (0.3, 0.7)

    # Deleting the latest falls back to the previous one; ids are not reused.
    store.delete_solve(k3.id)
    assert store.latest_solve("kuhn") == k2
    assert stored_infoset(store, "kuhn", "a").probabilities == (0.2, 0.8)
    with pytest.raises(KeyError):
        store.strategy("kuhn", k3.id)
    with pytest.raises(KeyError):
        store.trace(k3.id)
    with pytest.raises(KeyError):
        store.delete_solve(k3.id)
    assert save(store, "kuhn").id > k3.id

    store.delete_solve(d1.id)
    assert store.games() == ["kuhn"]
    counts = sqlite3.connect(store.path).execute(
        "SELECT (SELECT count(*) FROM infosets WHERE solve_id = ?),"
        " (SELECT count(*) FROM trace WHERE solve_id = ?)",
        (d1.id, d1.id),
    )
    assert counts.fetchone() == (0, 0)


def test_opponents_are_remembered_until_another_handle_saves_one(tmp_path: Path) -> None:
    """The lobby lists every game's opponents on every visit: read once, then remembered, and
    a solve saved or deleted through another handle (the solver's process) is seen at once."""
    path = tmp_path / "store.sqlite"
    with StrategyStore.open(path, create=True) as writer, StrategyStore.open(path) as reader:
        save(writer)
        assert reader.opponents("kuhn") == []
        calls = save(writer, opponent="calls", exploitability=0.1, best_reply=(0.15, 0.05))
        assert reader.opponents("kuhn") == [calls]
        statements: list[str] = []
        event.listen(reader._engine, "before_cursor_execute",
                     lambda *args: statements.append(args[2]))
        assert reader.opponents("kuhn") == [calls] and reader.opponents("kuhn") == [calls]
        assert statements == []  # remembered
        folds = save(writer, opponent="folds", exploitability=0.3, best_reply=(0.4, 0.2))
        assert reader.opponents("kuhn") == [folds, calls]
        writer.delete_solve(folds.id)
        assert reader.opponents("kuhn") == [calls]


def test_solve_saved_by_another_handle_is_seen(tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    with StrategyStore.open(path, create=True) as writer, StrategyStore.open(path) as reader:
        assert reader.infoset("kuhn", "a") is None
        save(writer, strategy=[InfosetStrategy("a", 0, ("x", "y"), (0.1, 0.9))])
        assert stored_infoset(reader, "kuhn", "a").probabilities == (0.1, 0.9)
        save(writer, strategy=[InfosetStrategy("a", 0, ("x", "y"), (0.6, 0.4))])
        assert stored_infoset(reader, "kuhn", "a").probabilities == (0.6, 0.4)
        assert reader.games() == ["kuhn"]


def test_latest_solve_id_follows_saves_and_deletes_from_any_handle(tmp_path: Path) -> None:
    """The app's cheap "is this game solved?" check: the newest solve's id, kept up to date
    with solves saved or deleted through another handle (another process)."""
    path = tmp_path / "store.sqlite"
    with StrategyStore.open(path, create=True) as writer, StrategyStore.open(path) as reader:
        assert reader.latest_solve_id("kuhn") is None
        k1 = save(writer, "kuhn")
        assert reader.latest_solve_id("kuhn") == k1.id
        assert reader.latest_solve_id("dudo") is None
        k2 = save(writer, "kuhn")
        latest_id, latest = reader.latest_solve_id("kuhn"), reader.latest_solve("kuhn")
        assert latest is not None and latest_id == k2.id == latest.id
        writer.delete_solve(k2.id)
        assert reader.latest_solve_id("kuhn") == k1.id
        writer.delete_solve(k1.id)
        assert reader.latest_solve_id("kuhn") is None


# ---- infoset lookups -------------------------------------------------------------------------


def test_infoset_hits_and_misses(store: StrategyStore) -> None:
    info = save(store)
    for s in STRATEGY:
        assert store.infoset("kuhn", s.key) == s
        assert store.infoset("kuhn", s.key, info.id) == s
    assert store.infoset("kuhn", "no such key") is None
    assert store.infoset("kuhn", "no such key", info.id) is None
    assert store.infoset("leduc", STRATEGY[0].key) is None
    assert store.strategy("leduc") == {}
    # The returned dict is the caller's: mutating it does not touch the cache.
    store.strategy("kuhn").clear()
    assert store.infoset("kuhn", STRATEGY[0].key) == STRATEGY[0]


def test_concurrent_reads(store: StrategyStore) -> None:
    save(store)
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for i in range(300):
                s = STRATEGY[i % len(STRATEGY)]
                assert store.infoset("kuhn", s.key) == s
                if i % 50 == 0:
                    assert store.latest_solve("kuhn") is not None
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=read) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []


def test_reads_while_another_handle_writes(tmp_path: Path) -> None:
    """WAL: readers keep getting consistent answers while new solves are committed."""
    path = tmp_path / "store.sqlite"
    versions = [
        [InfosetStrategy(f"k{j}", 0, ("x", "y"), (i / 10, 1 - i / 10)) for j in range(2000)]
        for i in range(6)
    ]
    valid = {s.probabilities for v in versions for s in v}
    with StrategyStore.open(path, create=True) as writer, StrategyStore.open(path) as reader:
        save(writer, strategy=versions[0])
        errors: list[BaseException] = []
        stop = threading.Event()

        def read() -> None:
            try:
                i = 0
                while not stop.is_set():
                    got = reader.infoset("kuhn", f"k{i % 2000}")
                    assert got is not None and got.probabilities in valid
                    i += 1
            except BaseException as exc:
                errors.append(exc)

        threads = [threading.Thread(target=read) for _ in range(4)]
        for t in threads:
            t.start()
        for v in versions[1:]:
            save(writer, strategy=v)
        stop.set()
        for t in threads:
            t.join()
        assert errors == []
        assert reader.infoset("kuhn", "k7") == versions[-1][7]
        assert reader.strategy("kuhn") == {s.key: s for s in versions[-1]}


def test_infoset_answers_from_strategy_cache(store: StrategyStore) -> None:
    info = save(store)
    full = store.strategy("kuhn")
    for s in STRATEGY:
        assert store.infoset("kuhn", s.key) is full[s.key]
    assert store.infoset("kuhn", "nope", info.id) is None
    store.clear_cache()
    assert store.infoset("kuhn", STRATEGY[1].key) == STRATEGY[1]


def test_closed_store_refuses_reads(tmp_path: Path) -> None:
    store = StrategyStore.open(tmp_path / "s.sqlite", create=True)
    save(store)
    store.close()
    store.close()  # idempotent
    with pytest.raises(StoreError, match="closed"):
        store.infoset("kuhn", STRATEGY[0].key)


# ---- opening: missing files, foreign files, paths -------------------------------------------


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nowhere" / "store.sqlite"
    with pytest.raises(StoreMissingError) as err:
        StrategyStore.open(path)
    assert str(path) in str(err.value)
    assert "python -m solver build" in str(err.value)
    assert not path.exists() and not path.parent.exists()


def test_create_makes_folder_and_uses_wal(tmp_path: Path) -> None:
    path = tmp_path / "a" / "b" / "store.sqlite"
    with StrategyStore.open(path, create=True) as store:
        assert store.path == path
        save(store)
    assert path.is_file()
    db = sqlite3.connect(path)
    assert db.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
        str(SCHEMA_VERSION),
    )
    db.close()
    with StrategyStore.open(path, create=True) as store:  # create=True keeps existing solves
        assert len(store.solves()) == 1


def _other_version(path: Path) -> None:
    StrategyStore.open(path, create=True).close()
    # Closed explicitly: `with sqlite3.connect()` only commits, and the WAL frames would be
    # checkpointed into the file whenever the garbage collector closes the connection.
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (SCHEMA_VERSION + 1,))


def _unrelated_tables(path: Path) -> None:
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("CREATE TABLE users (id INTEGER PRIMARY KEY, name TEXT)")


def _text_file(path: Path) -> None:
    path.write_text("this is not a database\n" * 200)


@pytest.mark.parametrize("create", [False, True])
@pytest.mark.parametrize(
    ("make", "expected_text"),
    [
        (_other_version, f"schema_version {SCHEMA_VERSION + 1}, expected {SCHEMA_VERSION}"),
        (_unrelated_tables, "not a strategy store (no meta table; tables found: users)"),
        (_text_file, "not a readable SQLite database"),
    ],
    ids=["other-version", "unrelated-tables", "text-file"],
)
def test_foreign_file_refused(tmp_path: Path, make: Callable[[Path], None], expected_text: str,
                              create: bool) -> None:
    path = tmp_path / "store.sqlite"
    make(path)
    before = path.read_bytes()
    with pytest.raises(StoreSchemaError) as err:
        StrategyStore.open(path, create=create)
    message = str(err.value)
    assert expected_text in message
    assert str(path) in message
    assert f"expected {SCHEMA_VERSION}" in message or f"schema_version {SCHEMA_VERSION}" in message
    assert "python -m solver build" in message
    assert path.read_bytes() == before  # never clobbered, even with create=True


def test_directory_refused(tmp_path: Path) -> None:
    with pytest.raises(StoreSchemaError, match="not a file"):
        StrategyStore.open(tmp_path)


def test_default_path_and_env_override(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("STRATEGY_STORE", raising=False)
    package_dir = Path(strategies.__file__).resolve().parent
    assert default_store_path() == package_dir / "strategies.sqlite"

    override = tmp_path / "elsewhere.sqlite"
    monkeypatch.setenv("STRATEGY_STORE", str(override))
    assert default_store_path() == override
    with StrategyStore.open(create=True) as store:
        assert store.path == override
    assert override.is_file()

    monkeypatch.setenv("STRATEGY_STORE", "")  # empty means unset
    assert default_store_path() == package_dir / "strategies.sqlite"


# ---- a Dudo-sized store ----------------------------------------------------------------------


def _dudo_like_strategy(n: int) -> list[InfosetStrategy]:
    rng = random.Random(0)
    claims = [f"{q}x{f}" for q in range(1, 3) for f in range(1, 7)]
    result = []
    for i in range(n):
        k = 1 + i % 12
        labels = (*claims[12 - k :], "dudo") if i % 13 else tuple(claims[12 - k :])
        weights = [rng.random() for _ in labels]
        total = sum(weights)
        history = ",".join(claims[j % 12] for j in range(i % 6))
        result.append(
            InfosetStrategy(
                f"p{i % 2}:{i % 6 + 1}|{history}#{i}",
                i % 2,
                labels,
                tuple(w / total for w in weights),
            )
        )
    return result


@pytest.mark.slow
def test_dudo_sized_store_round_trips(tmp_path: Path) -> None:
    """24,576 infosets: every lookup, the whole strategy and the pages read back what was
    saved (the timings are benchmarks/strategy_store.py's business)."""
    strategy = _dudo_like_strategy(DUDO_INFOSETS)
    rng = random.Random(1)
    with StrategyStore.open(tmp_path / "dudo.sqlite", create=True) as store:
        info = save(store, "dudo", strategy=strategy, trace=TRACE * 100)
        for s in rng.sample(strategy, 2_000):
            assert store.infoset("dudo", s.key) == s
            assert store.infoset("dudo", s.key, info.id) == s
        assert store.strategy("dudo") == {s.key: s for s in strategy}
        total, page = store.infoset_page("dudo", offset=100, limit=50)
        assert total == DUDO_INFOSETS and page == strategy[100:150]
        mine = [s for s in strategy if s.key.startswith("p1:4|")]
        total, page = store.infoset_page("dudo", private="p1:4", limit=10)
        assert total == len(mine) and page == mine[:10]
        after = [s for s in strategy if s.key.split("|", 1)[1].startswith("1x1,")]
        total, page = store.infoset_page("dudo", public_prefix="1x1,", offset=3, limit=7)
        assert total == len(after) and page == after[3:10]
        total, page = store.infoset_page("dudo", private="p0:1", public_prefix="1x1,",
                                         contains="#", limit=None)
        assert page == [s for s in after if s.key.startswith("p0:1|")] and total == len(page)


@pytest.mark.parametrize("version", [4, 5])
def test_an_older_store_is_upgraded_in_place_keeping_its_solves(tmp_path: Path,
                                                                version: int) -> None:
    """Version 5 only added the `blobs` table and `solves.value_ci95`, version 6 the columns
    of exploitable opponents: a version-4 or 5 store (the long builds of a user's data volume
    in it) opens upgraded, every solve kept."""
    path = tmp_path / "store.sqlite"
    with StrategyStore.open(path, create=True) as store:
        kept = save(store)
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DROP INDEX ix_solves_game_opponent_created")
        db.execute("ALTER TABLE solves DROP COLUMN opponent")
        db.execute("ALTER TABLE solves DROP COLUMN best_reply")
        if version == 4:
            db.execute("DROP TABLE blobs")
            db.execute("ALTER TABLE solves DROP COLUMN value_ci95")
        db.execute(f"UPDATE meta SET value = '{version}' WHERE key = 'schema_version'")
    with StrategyStore.open(path) as store:
        (solve,) = store.solves()
        assert solve.id == kept.id and solve.value == kept.value and solve.value_ci95 is None
        assert solve.opponent == "" and solve.best_reply is None
        assert store.infoset("kuhn", next(iter(store.strategy("kuhn")))) is not None
        estimated = save(store, value=0.25, value_ci95=0.01)
        solved = store.solve(estimated.id)
        assert solved is not None and solved.value_ci95 == 0.01
        save(store, opponent="early-3", best_reply=(0.5, 0.25))
        assert store.latest_solve_id("kuhn") == estimated.id
    with contextlib.closing(sqlite3.connect(path)) as db:
        plan = db.execute("EXPLAIN QUERY PLAN SELECT id FROM solves WHERE game = 'kuhn' AND "
                          "opponent = '' ORDER BY created DESC, id DESC LIMIT 1").fetchall()
        assert "ix_solves_game_opponent_created" in str(plan)
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == (
            str(SCHEMA_VERSION),)


def test_an_opponent_is_never_the_latest_solve(store: StrategyStore) -> None:
    """An exploitable opponent is stored as a solve of its game, found by its name, and never
    taken for the game's equilibrium, even when it is newer."""
    equilibrium = save(store)
    weak = save(store, opponent="early-3", exploitability=0.3, best_reply=(0.4, 0.2),
                strategy=[InfosetStrategy(s.key, s.player, s.labels, s.probabilities[::-1])
                          for s in STRATEGY])
    styled = save(store, opponent="calls", exploitability=0.1, best_reply=(0.15, 0.05))
    assert store.latest_solve("kuhn") == equilibrium
    assert store.latest_solve_id("kuhn") == equilibrium.id
    assert store.latest_solve("kuhn", "early-3") == weak
    assert weak.best_reply == (0.4, 0.2) and weak.opponent == "early-3"
    assert store.latest_solve("kuhn", "bluffs") is None
    assert store.opponents("kuhn") == [weak, styled]  # the most exploitable first
    newer = save(store, opponent="early-3", exploitability=0.29)
    assert store.opponents("kuhn") == [newer, styled]
    key = STRATEGY[0].key
    weakest = stored_infoset(store, "kuhn", key, weak.id)
    assert weakest.probabilities == STRATEGY[0].probabilities[::-1]
    assert stored_infoset(store, "kuhn", key).probabilities == STRATEGY[0].probabilities

"""A solve's figures kept in the store with it (`strategies.figures`), and a store of version 6,
whose table of winning chances lay in a file beside it, upgraded to hold it inside."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from pathlib import Path

import pytest

from strategies import SCHEMA_VERSION, StrategyStore
from strategies.figures import STYLE, WIN_CHANCES, side_file
from tests.strategies.test_store import save
from tests.strategies.test_tables import _table

TABLE = {"1v1": 0.486, "2v1": 0.72, "1v2": 0.21}


def test_figures_are_stored_with_the_solve_and_go_with_it(tmp_path: Path) -> None:
    with StrategyStore.open(tmp_path / "store.sqlite", create=True) as store:
        info = save(store, game="dudo-match", figures={WIN_CHANCES: TABLE})
        other = save(store)
        assert store.figures(info.id) == {WIN_CHANCES: TABLE}
        assert store.figures(other.id) == {}
        store.save_figures(other.id, {STYLE: {"seats": []}})
        store.save_figures(other.id, {STYLE: {"seats": [1]}})  # replaces the figure
        assert store.figures(other.id) == {STYLE: {"seats": [1]}}
        with pytest.raises(KeyError):
            store.save_figures(other.id + 100, {STYLE: {}})
        store.delete_solve(info.id)
        assert store.figures(info.id) == {}


def test_a_figure_written_by_another_process_is_read_at_once(tmp_path: Path) -> None:
    """What a reader remembers of a solve's figures goes stale when another connection
    commits (the background step that works out the figures of an older store)."""
    path = tmp_path / "store.sqlite"
    with StrategyStore.open(path, create=True) as writer, StrategyStore.open(path) as reader:
        info = save(writer)
        assert reader.figures(info.id) == {}
        writer.save_figures(info.id, {STYLE: {"seats": [2]}})
        assert reader.figures(info.id) == {STYLE: {"seats": [2]}}


def _version_6(path: Path) -> None:
    """The store at `path` as version 6 wrote it: no figures table."""
    with contextlib.closing(sqlite3.connect(path)) as db, db:
        db.execute("DROP TABLE figures")
        db.execute("UPDATE meta SET value = '6' WHERE key = 'schema_version'")


def _upgraded(path: Path) -> str:
    with contextlib.closing(sqlite3.connect(path)) as db:
        return str(db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0])


def test_a_version_6_store_takes_in_the_table_beside_it(tmp_path: Path) -> None:
    """The long builds of a version-6 store are kept, and the table of winning chances it kept
    in a file beside it is inside it from then on: a copy of the file alone has it."""
    path = tmp_path / "strategies.sqlite"
    with StrategyStore.open(path, create=True) as store:
        match = save(store, game="dudo-match")
        save(store)
    _version_6(path)
    side_file(path, "dudo-match").write_text(json.dumps(
        {"game": "dudo-match", "solve_id": match.id, "abstraction": "recall=1",
         "max_dice": 2, "table": TABLE}))
    with StrategyStore.open(path) as store:
        assert store.figures(match.id) == {WIN_CHANCES: TABLE}
    assert _upgraded(path) == str(SCHEMA_VERSION)
    alone = tmp_path / "copy" / "strategies.sqlite"
    alone.parent.mkdir()
    with contextlib.closing(sqlite3.connect(path)) as src, \
            contextlib.closing(sqlite3.connect(alone)) as dst:
        src.backup(dst)
    with StrategyStore.open(alone) as store:
        assert store.figures(match.id) == {WIN_CHANCES: TABLE}


@pytest.mark.parametrize("written", ["missing", "another solve", "not a table"])
def test_a_version_6_store_without_its_table_is_upgraded_without_one(tmp_path: Path,
                                                                      written: str) -> None:
    """No file, the file of a solve the store does not hold, or a file that is not a table:
    the store is upgraded all the same, and the solve lacks the figure (which the app then
    reports, instead of playing on without it)."""
    path = tmp_path / "strategies.sqlite"
    with StrategyStore.open(path, create=True) as store:
        match = save(store, game="dudo-match")
    _version_6(path)
    if written == "another solve":
        side_file(path, "dudo-match").write_text(json.dumps(
            {"game": "dudo-match", "solve_id": match.id + 7, "table": TABLE}))
    elif written == "not a table":
        side_file(path, "dudo-match").write_text("[1, 2")
    with StrategyStore.open(path) as store:
        assert store.figures(match.id) == {}
    assert _upgraded(path) == str(SCHEMA_VERSION)


def test_processes_opening_a_version_6_store_at_once_upgrade_it_once(tmp_path: Path) -> None:
    """Several workers starting together on an older store: one upgrades it in its write
    transaction, the others wait for it and find it done (none fails, the table is taken in
    once)."""
    path = tmp_path / "strategies.sqlite"
    with StrategyStore.open(path, create=True) as store:
        match = save(store, game="dudo-match")
    _version_6(path)
    side_file(path, "dudo-match").write_text(json.dumps(
        {"game": "dudo-match", "solve_id": match.id, "table": TABLE}))
    errors: list[BaseException] = []
    start = threading.Barrier(6)

    def open_it() -> None:
        try:
            start.wait()
            StrategyStore.open(path).close()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=open_it) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    with contextlib.closing(sqlite3.connect(path)) as db:
        assert db.execute("SELECT COUNT(*) FROM figures").fetchone() == (1,)
    assert _upgraded(path) == str(SCHEMA_VERSION)


def test_a_solve_stored_for_one_game_leaves_the_others_reads_warm(tmp_path: Path) -> None:
    """What belongs to one solve never changes: when a build stores a solve of one game, the
    tables another game's reads decoded stay decoded (a big one takes seconds), and those of a
    solve that a newer one replaces are dropped."""
    path = tmp_path / "store.sqlite"
    with StrategyStore.open(path, create=True) as writer, StrategyStore.open(path) as reader:
        tabled = save(writer, game="holdem", strategy=[], table=_table())
        save(writer)
        decoded = reader.table_strategy("holdem")
        assert decoded is not None
        assert reader.infoset("kuhn", "p0:1|") is not None
        save(writer)  # another game's build stores its solve
        assert reader.table_strategy("holdem") is decoded
        newer = save(writer, game="holdem", strategy=[], table=_table())
        replaced = reader.table_strategy("holdem")
        assert replaced is not None and replaced is not decoded
        assert reader.table_strategy("holdem", tabled.id) is not decoded  # read again
        assert reader.latest_solve_id("holdem") == newer.id

"""Strategies stored as tables: quantisation within 1/255 and summing to one, the blobs' round
trip, and `StrategyStore.infoset` answering from a table solve."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from strategies import StrategyStore
from strategies.tables import LEVELS, PublicPart, TableStrategy, dequantise, quantise


def test_quantised_rows_sum_to_one_within_a_level() -> None:
    rng = np.random.default_rng(0)
    p = rng.dirichlet(np.ones(3) * 0.3, size=(500, 7))
    q = quantise(p)
    assert q.dtype == np.uint8
    assert (q.astype(int).sum(axis=-1) == LEVELS).all()
    assert np.abs(q / LEVELS - p).max() <= 1 / LEVELS
    decoded = dequantise(q, [0, 1, 2])
    assert np.abs(decoded - p).max() <= 1 / LEVELS
    # Two legal actions of three: the third slot holds nothing, and decodes to nothing.
    two = quantise(np.stack([p[..., 0], p[..., 1] + p[..., 2], np.zeros_like(p[..., 0])], -1))
    assert (two[..., 2] == 0).all()
    assert (quantise(np.zeros((2, 3))) == 0).all()
    assert dequantise(np.zeros((1, 3), np.uint8), [1, 2]).tolist() == [[0.5, 0.5]]


def _table() -> TableStrategy:
    rng = np.random.default_rng(1)
    publics = {"": PublicPart(1, ("call", "raise"), 0, 0, (1, 2)),
               "r": PublicPart(0, ("fold", "call", "raise"), 0, 1, (0, 1, 2)),
               "rc|": PublicPart(0, ("check", "bet"), 1, 0, (1, 2))}
    tables = (quantise(rng.dirichlet(np.ones(3), size=(2, 3))),
              quantise(rng.dirichlet(np.ones(3), size=(1, 4)) * [0, 1, 1]))
    return TableStrategy(publics, (("AA", "KK", "AKs"), ("r1:0", "r1:1", "r1:2", "r1:3")),
                         tables)


def test_blobs_round_trip_and_lookups() -> None:
    table = _table()
    back = TableStrategy.from_blobs(table.blobs())
    assert back.publics == table.publics and back.privates == table.privates
    for a, b in zip(back.tables, table.tables, strict=True):
        np.testing.assert_array_equal(a, b)
    assert back.num_infosets == 3 + 3 + 4
    part, probabilities = back.lookup("KK|r") or (None, ())
    assert part is not None and part.player == 0 and len(probabilities) == 3
    assert sum(probabilities) == pytest.approx(1.0)
    row = table.tables[0][1, 1]
    assert probabilities == pytest.approx(row / row.sum())
    found = back.lookup("r1:3|rc|")
    assert found is not None and found[1] == pytest.approx(
        tuple(table.tables[1][0, 3, [1, 2]] / table.tables[1][0, 3, [1, 2]].sum()))
    for missing in ("QQ|r", "AA|rr", "AA", "r1:9|rc|"):
        assert back.lookup(missing) is None
    with pytest.raises(ValueError, match="shape"):
        TableStrategy(table.publics, (("AA",), ()), table.tables)


def test_the_store_answers_infoset_from_a_table_solve(tmp_path: Path) -> None:
    table = _table()
    with StrategyStore.open(tmp_path / "s.sqlite", create=True) as store:
        store.save_solve("holdem-mini", "cs-cfr", 10, 1.0, float("inf"), 0.5, [], [], "t",
                         abstraction="ehs2=k:all", table=table)
    with StrategyStore.open(tmp_path / "s.sqlite") as store:
        found = store.infoset("holdem-mini", "AKs|")
        assert found is not None and found.player == 1 and found.labels == ("call", "raise")
        cells = table.tables[0][0, 2, [1, 2]]
        assert found.probabilities == pytest.approx(tuple(cells / cells.sum()))
        assert store.infoset("holdem-mini", "AKs|rr") is None
        loaded = store.table_strategy("holdem-mini")
        assert loaded is not None and loaded.publics == table.publics
        info = store.latest_solve("holdem-mini")
        assert info is not None and info.abstraction == "ehs2=k:all"
        # Paged as rows would be: publics in order, then each one's private names.
        total, rows = store.infoset_page("holdem-mini")
        assert total == table.num_infosets == len(rows) == 10
        assert [r.key for r in rows[:4]] == ["AA|", "KK|", "AKs|", "AA|r"]
        assert store.infoset_page("holdem-mini", private="KK")[0] == 2
        assert store.infoset_page("holdem-mini", public_prefix="rc")[0] == 4
        assert store.infoset_page("holdem-mini", prefix="r1:", contains=":2")[0] == 1
        assert [r.key for r in store.infoset_page("holdem-mini", offset=8, limit=5)[1]] == [
            "r1:2|rc|", "r1:3|rc|"]
        assert store.infoset_page("holdem-mini", node=0) == (0, [])
        everything = store.strategy("holdem-mini")
        assert len(everything) == 10 and everything["KK|r"] == store.infoset("holdem-mini",
                                                                              "KK|r")
        store.delete_solve(info.id)
        assert store.infoset("holdem-mini", "AKs|") is None
        assert store.table_strategy("holdem-mini") is None

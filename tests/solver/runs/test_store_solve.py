"""The solver-to-store glue without the CLI: a solve goes in and comes back out unchanged."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.algorithms.solve import Checkpoint
from solver.evaluation.stored import stored_strategy_array
from solver.games import get_game
from solver.runs.store_solve import infoset_rows, solve_and_store
from strategies import StoreError, StrategyStore


def test_round_trip(tmp_path: Path) -> None:
    seen: list[Checkpoint] = []
    stored = solve_and_store("kuhn", "cfr+", iterations=7, store_path=tmp_path / "s.sqlite",
                             on_checkpoint=seen.append)
    result = stored.result
    assert stored.info.iterations == result.iterations == 7 == seen[-1].iteration
    assert stored.store == tmp_path / "s.sqlite"
    rows = infoset_rows(result.tree, result.strategy)
    assert [row.key for row in rows] == list(result.tree.infoset_keys)
    with StrategyStore.open(stored.store) as store:
        assert store.latest_solve("kuhn") == stored.info
        _tree, flat = stored_strategy_array(store, get_game("kuhn"))
        assert np.array_equal(flat, result.strategy)
        with pytest.raises(StoreError, match="no solve of 'leduc'"):
            stored_strategy_array(store, get_game("leduc"))

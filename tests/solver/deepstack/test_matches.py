"""The DeepStack bot's matches: a stored no-limit strategy plays through the sparse tabular
policy exactly as it is stored, so a sampled duplicate match's interval covers the exact
expectation; and the exploitability table prints its rows."""

from __future__ import annotations

import numpy as np
import pytest

from solver.deepstack.exploitability_table import main as table
from solver.deepstack.matches import expected
from solver.engine import kernels
from solver.engine.compile import compile_game
from solver.evaluation.holdem.duplicate import duplicate_match
from solver.evaluation.holdem.policy import SparseTabularPolicy
from solver.games import get_game
from solver.games.holdem.game import HoldemGame


def test_the_table_prints_a_row_for_each_count_of_iterations(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert table(["--iterations", "20,40"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| none")]
    assert len(rows) == 2
    first, second = (float(r.split("|")[3]) for r in rows)
    assert first > second > 0  # more iterations, less exploitable


@pytest.mark.slow
def test_a_sampled_match_covers_its_exact_expectation() -> None:
    game = get_game("nolimit-leduc")
    assert isinstance(game, HoldemGame)
    tree = compile_game(game)
    uniform = np.zeros(tree.num_regrets)
    kernels.current_strategy(tree.arrays, np.zeros(tree.num_regrets), uniform)
    rng = np.random.default_rng(2)
    tilted = uniform * rng.random(tree.num_regrets)  # a random strategy, rows renormalised
    offsets = tree.infoset_regret_offset
    for i in range(tree.num_infosets):
        row = tilted[offsets[i]:offsets[i + 1]]
        tilted[offsets[i]:offsets[i + 1]] = row / row.sum()
    exact = 1000 * expected(tree, tilted, uniform)
    assert expected(tree, uniform, uniform) == pytest.approx(0.0, abs=1e-9)
    first = SparseTabularPolicy.from_strategy(game, tree, tilted, "tilted")
    second = SparseTabularPolicy.from_strategy(game, tree, uniform, "uniform")
    result = duplicate_match(game, first, second, 4000, seed=3)
    assert result.estimate.low <= exact <= result.estimate.high
    assert result.adjusted.low <= exact <= result.adjusted.high

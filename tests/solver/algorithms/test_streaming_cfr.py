"""The streaming Dudo kernel iterates exactly like the array kernels of `solver.algorithms.cfr`."""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms.cfr import CFRSolver
from solver.algorithms.solve import STREAMING_NODES, make_solver
from solver.algorithms.streaming_cfr import StreamingCFRSolver, uniform_slots
from solver.engine.compile import compile_game
from solver.games import get_game
from solver.games.dudo.rules import DudoRules
from solver.games.dudo.tree import compile_dudo


@pytest.mark.parametrize("algorithm", ["cfr", "cfr+", "lcfr", "dcfr"])
@pytest.mark.parametrize("rules", [DudoRules(), DudoRules(calzo=True), DudoRules((2, 1), faces=3)])
def test_same_iterates_as_the_array_kernels(rules: DudoRules, algorithm: str) -> None:
    # (Games with exact ties in their regrets, like three-faced calzo, amplify the last bit of a
    # sum into a different regret-matching choice: the kernels add in different orders.)
    tree = compile_dudo("test", rules)
    arrays, streaming = CFRSolver(tree, algorithm), StreamingCFRSolver(tree, algorithm)
    arrays.iterate(25)
    streaming.iterate(25)
    assert np.allclose(arrays.regrets, streaming.regrets, rtol=0, atol=1e-10)
    assert np.allclose(arrays.average_strategy(), streaming.average_strategy(), rtol=0,
                       atol=1e-10)


def test_chosen_for_big_uniform_trees_only() -> None:
    leduc = compile_game(get_game("leduc"))
    assert not uniform_slots(leduc)
    with pytest.raises(ValueError, match="every private state"):
        StreamingCFRSolver(leduc)
    with pytest.raises(ValueError, match="not 'pcfr\\+'"):
        StreamingCFRSolver(compile_game(get_game("dudo")), "pcfr+")
    assert isinstance(make_solver(compile_game(get_game("dudo")), "dcfr"), CFRSolver)
    assert compile_game(get_game("dudo")).num_nodes < STREAMING_NODES

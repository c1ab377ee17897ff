"""Pruning what the other player does not reach (`solver.engine.pruning`) keeps the iterates of
the unpruned kernels, skips a good part of the tree, and solves to the same exploitability."""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.solve import resolve_algorithm, resolve_pruning, solve
from solver.algorithms.streaming_cfr import StreamingCFRSolver
from solver.engine.compile import compile_game
from solver.engine.pruning import depth_first, pruned_iterations_for, uniform_width
from solver.games import get_game
from solver.games.dudo.rules import DudoRules
from solver.games.dudo.tree import compile_dudo


@pytest.mark.parametrize("game", ["kuhn", "leduc", "dudo", "holdem-mini"])
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
def test_same_iterates_as_without(game: str, algorithm: str) -> None:
    # Vanilla CFR and CFR+ discount nothing, so the lazy catch-up adds the same terms; only the
    # order of the average's sums differs.  (The discounted schedules multiply the skipped
    # iterations' discounts together before applying them, which rounds differently, and in
    # games with exact ties in their regrets the last bit can flip a regret-matching choice:
    # those are compared by what they converge to, below.)
    tree = compile_game(get_game(game))
    plain, pruned = CFRSolver(tree, algorithm), CFRSolver(tree, algorithm, pruning=True)
    for block in (1, 9, 90):
        plain.iterate(block)
        pruned.iterate(block)
        assert np.allclose(plain.average_strategy(), pruned.average_strategy(), rtol=0,
                           atol=1e-12)
        assert np.allclose(plain.regrets, pruned.regrets, rtol=0, atol=1e-12)
        assert np.array_equal(plain.strategy, pruned.strategy)


def test_something_is_skipped() -> None:
    # Without skipping, the test above would prove nothing: by 100 iterations of Dudo both
    # players leave hundreds of subtrees unreached, nested roots included.
    solver = CFRSolver(get_game("dudo"), "dcfr", pruning=True)
    solver.iterate(100)
    roots = solver._prune.pruned.sum(axis=1)
    assert (roots > 300).all(), roots
    covered = [solver._prune.size[np.flatnonzero(solver._prune.pruned[p])].sum()
               for p in (0, 1)]
    assert min(covered) > 0.3 * solver.tree.num_nodes
    solver.settle()
    assert solver._prune.pruned.sum() == 0



def test_reading_the_average_settles_nothing() -> None:
    # An exact check reads the average at every checkpoint; settling then would move the
    # iterations' owed work off their clock (`solve` settles once, on it, at the end).
    solver = CFRSolver(get_game("dudo"), "dcfr", pruning=True)
    solver.iterate(100)
    owed, regrets, average = (solver._prune.pruned.copy(), solver.regrets.copy(),
                              solver.average.copy())
    read = solver.average_strategy()
    assert owed.sum() > 300 and np.array_equal(solver._prune.pruned, owed)
    assert np.array_equal(solver.regrets, regrets) and np.array_equal(solver.average, average)
    solver.settle()
    assert np.array_equal(read, solver.average_strategy())


def test_a_kernel_compiled_for_one_width_keeps_the_generic_iterates() -> None:
    # Dudo's nodes all have six slots a player, so its solver runs the kernel compiled with
    # that constant (and folding its forced moves' terminals); the generic kernel (width 0,
    # folding nothing) must walk the very same iterates.
    tree = compile_game(get_game("dudo"))
    assert uniform_width(tree.arrays) == 6
    assert uniform_width(compile_game(get_game("leduc")).arrays) == 0  # a board: 5 or 6
    fixed, generic = CFRSolver(tree, "dcfr", pruning=True), CFRSolver(tree, "dcfr", pruning=True)
    generic._pruned_iterations = pruned_iterations_for(0, False)
    assert fixed._pruned_iterations is not generic._pruned_iterations
    for solver in (fixed, generic):
        solver.iterate(60)
        solver.settle()
    for name in ("regrets", "average", "strategy"):
        assert np.array_equal(getattr(fixed, name), getattr(generic, name)), name

def test_folding_the_terminals_of_forced_moves_keeps_the_iterates() -> None:
    # In Dudo the highest bid leaves the other player only *dudo*: 2,048 forced moves, each onto
    # a terminal, which the pruned kernel values at the move's node without visiting it.
    tree = compile_game(get_game("dudo"))
    folding, visiting = CFRSolver(tree, "dcfr", pruning=True), CFRSolver(tree, "dcfr",
                                                                          pruning=True)
    folded = folding._prune.folded
    assert (folded >= 0).sum() == 2048
    arrays = tree.arrays
    assert np.all(arrays.num_actions[folded >= 0] == 1)
    assert np.all(arrays.parent[folded[folded >= 0]] == np.flatnonzero(folded >= 0))
    visiting._prune = visiting._prune._replace(folded=np.full_like(folded, -1))
    for solver in (folding, visiting):
        solver.iterate(60)
        solver.settle()
    for name in ("regrets", "average", "strategy"):
        assert np.array_equal(getattr(folding, name), getattr(visiting, name)), name
    # Kuhn's and Leduc's moves are never forced: nothing to fold.
    assert (CFRSolver(get_game("leduc"), "cfr", pruning=True)._prune.folded < 0).all()


@pytest.mark.parametrize("game", ["leduc", "dudo"])
@pytest.mark.slow
def test_discounted_cfr_reaches_the_same_exploitability(game: str) -> None:
    plain = solve(get_game(game), "dcfr", target_exploitability=1e-4, pruning=False)
    pruned = solve(get_game(game), "dcfr", target_exploitability=1e-4, pruning=True)
    assert pruned.pruning and not plain.pruning
    assert pruned.exploitability <= 1e-4 and plain.exploitability <= 1e-4
    # Judged again from scratch by the exact best response, not by the solver's own trace.
    assert evaluate_strategy(pruned.tree, pruned.strategy).exploitability <= 1e-4
    assert abs(pruned.value - plain.value) < 2e-4
    assert 0.8 < pruned.iterations / plain.iterations < 1.25


@pytest.mark.parametrize("algorithm", ["cfr+", "dcfr"])
def test_streaming_kernel_prunes_alike(algorithm: str) -> None:
    tree = compile_dudo("test", DudoRules((2, 1), faces=3))
    plain, pruned = StreamingCFRSolver(tree, algorithm), StreamingCFRSolver(
        tree, algorithm, pruning=True)
    arrays = CFRSolver(tree, algorithm, pruning=True)
    for solver in (plain, pruned, arrays):
        solver.iterate(40)
    assert pruned._prune.pruned.sum() > 0
    assert np.allclose(plain.average_strategy(), pruned.average_strategy(), rtol=0, atol=1e-9)
    assert np.allclose(arrays.average_strategy(), pruned.average_strategy(), rtol=0, atol=1e-9)


def test_predictive_schedules_are_not_pruned() -> None:
    with pytest.raises(ValueError, match="last instantaneous regret"):
        CFRSolver(get_game("kuhn"), "pcfr+", pruning=True)
    with pytest.raises(ValueError, match="pruning applies"):
        solve(get_game("kuhn"), "pdcfr+", iterations=1, pruning=True)


def test_depth_first_walk_makes_every_subtree_contiguous() -> None:
    # The generic compiler numbers Leduc's nodes parents first but not depth first.
    parent = compile_game(get_game("leduc")).arrays.parent
    walk, position, size = depth_first(parent)
    assert not np.array_equal(walk, np.arange(len(parent)))
    assert sorted(walk) == list(range(len(parent)))
    for n in range(1, len(parent)):
        up = parent[n]
        assert position[up] < position[n] < position[up] + size[up]
        assert size[n] == 1 + sum(size[c] for c in np.flatnonzero(parent == n))


@pytest.mark.parametrize(("game", "expected"), [
    ("dudo", True), ("dudo-1v2", True), ("dudo-2v1", True),  # pruning won: 1.2x to 2.6x
    ("leduc", False), ("kuhn", False), ("holdem-mini", False),  # it lost or tied
    ("dudo-calzo", False)])  # solved by predictive CFR+, which is never pruned
def test_auto_prunes_where_pruning_wins(game: str, expected: bool) -> None:
    played = get_game(game)
    algorithm = resolve_algorithm(played, "auto")
    assert resolve_pruning(played, algorithm, None) is expected
    with pytest.raises(ValueError, match="pruning applies to"):
        resolve_pruning(played, "pcfr+", True)

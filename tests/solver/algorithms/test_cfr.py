"""Every full-width CFR variant converges to the known game values."""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms.cfr import SCHEDULES, CFRSolver
from solver.algorithms.exploitability import evaluate_strategy
from solver.engine.compile import compile_game
from solver.games import get_game

KUHN, LEDUC, DUDO = -1 / 18, -0.085606424078, -7 / 258

# (game, value, iterations, exploitability threshold, value tolerance) per algorithm.  The
# thresholds are what each variant reliably reaches; vanilla CFR is much slower than the rest.
CASES = {
    "kuhn": (KUHN, 2000, {"cfr": 1e-3, "lcfr": 2e-4}, 1e-4),
    "leduc": (LEDUC, 1500, {"cfr": 1e-2, "lcfr": 6e-3}, 1e-3),
    "dudo": (DUDO, 600, {"cfr": 3e-2, "lcfr": 2e-3}, 1e-3),
}


@pytest.mark.parametrize("algorithm", sorted(SCHEDULES))
@pytest.mark.parametrize("game", sorted(CASES))
@pytest.mark.slow
def test_converges_to_known_value(game: str, algorithm: str) -> None:
    value, iterations, loose, threshold = CASES[game]
    solver = CFRSolver(get_game(game), algorithm)
    solver.iterate(iterations)
    evaluation = evaluate_strategy(solver.tree, solver.average_strategy())
    limit = loose.get(algorithm, threshold)
    assert evaluation.exploitability <= limit
    # A profile that is epsilon-exploitable has value within epsilon of the game value.
    assert abs(evaluation.value - value) <= 2 * limit


def test_exploitability_decreases_with_iterations() -> None:
    solver = CFRSolver(get_game("leduc"), "cfr+")
    seen = []
    for _ in range(4):
        solver.iterate(100)
        seen.append(evaluate_strategy(solver.tree, solver.average_strategy()).exploitability)
    assert seen == sorted(seen, reverse=True)
    assert seen[-1] < seen[0] / 3


@pytest.mark.slow
def test_fastest_reaches_1e4_on_dudo() -> None:
    solver = CFRSolver(get_game("dudo"), "dcfr")
    solver.iterate(1100)
    evaluation = evaluate_strategy(solver.tree, solver.average_strategy())
    assert evaluation.exploitability <= 1e-4
    assert evaluation.value == pytest.approx(DUDO, abs=1e-4)


def test_average_strategy_is_a_distribution() -> None:
    solver = CFRSolver(get_game("kuhn"), "dcfr")
    solver.iterate(10)
    tree = solver.tree
    strategy = solver.average_strategy()
    sums = np.add.reduceat(strategy, tree.infoset_regret_offset[:-1])
    assert np.allclose(sums, 1.0)
    assert (strategy >= 0).all()


def test_kuhn_player_two_equilibrium_is_the_unique_one() -> None:
    solver = CFRSolver(get_game("kuhn"), "pdcfr+")
    solver.iterate(1000)
    tree = solver.tree
    strategy = solver.average_strategy()
    offsets = tree.infoset_regret_offset
    by_key = {key: strategy[offsets[i]:offsets[i + 1]] for i, key in
              enumerate(tree.infoset_keys)}
    # Player 2 bets J after a check with 1/3 and calls a bet with Q with 1/3.
    assert by_key["J|p"][1] == pytest.approx(1 / 3, abs=1e-3)
    assert by_key["Q|b"][1] == pytest.approx(1 / 3, abs=1e-3)
    assert by_key["K|b"][1] == pytest.approx(1.0, abs=1e-3)


def test_unknown_algorithm_names_the_known_ones() -> None:
    with pytest.raises(ValueError, match="dcfr"):
        CFRSolver(compile_game(get_game("kuhn")), "cfr++")


def assert_iterates_match_openspiel(game: str, openspiel_name: str, algorithm: str,
                                   blocks: int, block: int, pruning: bool = False) -> None:
    """Our `algorithm` and OpenSpiel's C++ solver of the same name, `blocks` times `block`
    iterations each: the average strategies' exploitabilities agree after every block."""
    import pyspiel
    theirs_game = pyspiel.load_game(openspiel_name)
    theirs = (pyspiel.CFRSolver if algorithm == "cfr" else pyspiel.CFRPlusSolver)(theirs_game)
    ours = CFRSolver(get_game(game), algorithm, pruning=pruning)
    for _ in range(blocks):
        for _ in range(block):
            theirs.evaluate_and_update_policy()
        ours.iterate(block)
        expected = pyspiel.exploitability(theirs_game, theirs.average_policy())
        got = evaluate_strategy(ours.tree, ours.average_strategy()).exploitability
        assert got == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("game", "openspiel_name"), [("kuhn", "kuhn_poker"),
                                                  ("leduc", "leduc_poker")])
@pytest.mark.parametrize("algorithm", ["cfr", "cfr+"])
@pytest.mark.slow
def test_iterates_match_openspiel(game: str, openspiel_name: str, algorithm: str) -> None:
    """Same algorithm, same iterates: our CFR and CFR+ reproduce OpenSpiel's C++ solvers."""
    assert_iterates_match_openspiel(game, openspiel_name, algorithm, blocks=3, block=25)


@pytest.mark.parametrize("pruning", [False, True])
@pytest.mark.slow
def test_dudo_iterates_match_openspiel(pruning: bool) -> None:
    """Dudo's tree has forced moves (only "dudo" after the highest bid: half its decision
    nodes), which the kernels pass through without a regret update; the iterates are still
    OpenSpiel's, plain and pruned."""
    assert_iterates_match_openspiel("dudo", "liars_dice", "cfr+", blocks=1, block=8,
                                    pruning=pruning)


@pytest.mark.parametrize("algorithm", ["dcfr", "lcfr"])
@pytest.mark.parametrize("pruning", [False, True])
def test_summed_average_is_the_discounted_one(algorithm: str, pruning: bool) -> None:
    """The solver keeps the average as a sum of growing weights (`Schedule.summed`) so that
    the kernels can leave it alone where the traverser's reach is zero; normalised, it is the
    average the schedule's own discounts give, entry by entry."""
    tree = compile_game(get_game("leduc"))
    summed, discounted = (CFRSolver(tree, algorithm, pruning=pruning) for _ in range(2))
    schedule = SCHEDULES[algorithm]
    assert schedule.summed(5)[2] == 1.0 and schedule.discounts(5)[2] < 1.0
    summed.iterate(120)
    discounted._run(np.array([schedule.discounts(t) for t in range(1, 121)]))
    summed.settle()
    discounted.settle()
    assert not np.allclose(summed.average, discounted.average)  # two scales of one average
    np.testing.assert_allclose(summed.average_strategy(), discounted.average_strategy(),
                               rtol=1e-9, atol=1e-12)

"""Monte Carlo CFR (external and outcome sampling) on the compiled history tree.

Convergence is measured exactly with `evaluate_strategy`.  Sampling makes every run different,
so each test fixes its seed; the thresholds leave a margin of about 1.5-2x over what six seeds
reached with the same iteration counts, so they do not hang on one lucky seed.
"""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms.cfr import CFRSolver
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.mccfr import MCCFRSolver
from solver.engine.compile import compile_game
from solver.engine.history_tree import compile_history_tree
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE, TERMINAL_NODE
from solver.games import get_game

KUHN_VALUE = -1 / 18
LEDUC_VALUE = -0.0856064
DUDO_VALUE = -7 / 258


@pytest.mark.parametrize(("game", "histories"), [("kuhn", 58), ("leduc", 9_457),
                                                 ("dudo", 294_883)])
@pytest.mark.slow
def test_history_tree_size(game: str, histories: int) -> None:
    assert compile_history_tree(get_game(game)).num_histories == histories


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_history_tree_matches_the_game(game: str) -> None:
    """Walk every state alongside the arrays: kinds, players, children, payoffs, infosets."""
    history = compile_history_tree(get_game(game))
    tree = compile_game(get_game(game))
    offsets = tree.infoset_regret_offset
    seen = 0
    stack = [(get_game(game).initial_state(), 0)]
    while stack:
        state, n = stack.pop()
        seen += 1
        first, count = int(history.first_child[n]), int(history.num_children[n])
        assert first > n or count == 0
        if state.is_terminal():
            assert history.kind[n] == TERMINAL_NODE and count == 0
            assert history.payoff[n] == state.returns()[0]
            continue
        if state.is_chance():
            assert history.kind[n] == CHANCE_NODE and history.infoset[n] == -1
            outcomes = state.chance_outcomes()
            assert count == len(outcomes)
            for k, (outcome, p) in enumerate(outcomes):
                assert history.action[first + k] == outcome
                assert history.probability[first + k] == p
            actions = [o for o, _ in outcomes]
        else:
            assert history.kind[n] == DECISION_NODE
            assert history.player[n] == state.current_player()
            i = int(history.infoset[n])
            assert tree.infoset_keys[i] == state.information_state_key()
            actions = list(state.legal_actions())
            assert count == len(actions) == offsets[i + 1] - offsets[i]
            assert list(history.action[first : first + count]) == actions
            assert np.all(history.probability[first : first + count] == 1.0)
        for k, a in enumerate(actions):
            stack.append((state.apply_action(a), first + k))
    assert seen == history.num_histories


# (game, algorithm, iterations, value, value tolerance, exploitability bound).  Six seeds gave:
# Kuhn ES <= 0.0052, OS <= 0.0048; Leduc ES 1M 0.021-0.027, OS 3M 0.058-0.063;
# Dudo ES 200k 0.017-0.020, OS 3M 0.070-0.103.
CONVERGENCE = [
    ("kuhn", "es-mccfr", 100_000, KUHN_VALUE, 0.002, 0.01),
    ("kuhn", "os-mccfr", 300_000, KUHN_VALUE, 0.002, 0.01),
    ("leduc", "es-mccfr", 1_000_000, LEDUC_VALUE, 0.008, 0.04),
    ("leduc", "os-mccfr", 3_000_000, LEDUC_VALUE, 0.01, 0.09),
    ("dudo", "es-mccfr", 200_000, DUDO_VALUE, 0.005, 0.03),
    ("dudo", "os-mccfr", 3_000_000, DUDO_VALUE, 0.01, 0.15),
]


@pytest.mark.parametrize(("game", "algorithm", "iterations", "value", "tolerance", "bound"),
                         CONVERGENCE, ids=[f"{c[0]}-{c[1]}" for c in CONVERGENCE])
@pytest.mark.slow
def test_converges(game: str, algorithm: str, iterations: int, value: float, tolerance: float,
                   bound: float) -> None:
    solver = MCCFRSolver(get_game(game), algorithm, seed=0)
    solver.iterate(iterations)
    assert solver.iterations == iterations
    strategy = solver.average_strategy()
    assert strategy.shape == (solver.tree.num_regrets,)
    offsets = solver.tree.infoset_regret_offset
    assert np.allclose(np.add.reduceat(strategy, offsets[:-1]), 1.0)
    evaluation = evaluate_strategy(solver.tree, strategy)
    assert evaluation.value == pytest.approx(value, abs=tolerance)
    assert evaluation.exploitability < bound


@pytest.mark.parametrize("algorithm", ["es-mccfr", "os-mccfr"])
def test_same_seed_same_strategy(algorithm: str) -> None:
    runs = []
    for seed in (7, 7, 8):
        solver = MCCFRSolver(get_game("leduc"), algorithm, seed=seed)
        solver.iterate(2_000)
        runs.append(solver.average_strategy())
    assert np.array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])


@pytest.mark.parametrize("algorithm", ["es-mccfr", "os-mccfr"])
def test_chunks_continue_the_same_run(algorithm: str) -> None:
    whole = MCCFRSolver(get_game("kuhn"), algorithm, seed=3)
    whole.iterate(1_000)
    pieces = MCCFRSolver(get_game("kuhn"), algorithm, seed=3)
    calls: list[int] = []
    pieces.iterate(400)
    pieces.iterate(500)
    pieces.iterate(100, callback=calls.append)
    assert calls == list(range(100))
    assert pieces.iterations == 1_000
    assert np.array_equal(whole.regrets, pieces.regrets)
    assert np.array_equal(whole.average_strategy(), pieces.average_strategy())


def test_same_layout_as_cfr_solver() -> None:
    tree = compile_game(get_game("leduc"))
    sampled = MCCFRSolver(get_game("leduc"), "es-mccfr")
    assert sampled.tree is tree
    full = CFRSolver(tree, "cfr")
    assert sampled.average_strategy().shape == full.average_strategy().shape
    # Before any iteration both play uniformly everywhere.
    assert np.array_equal(sampled.average_strategy(), full.average_strategy())
    assert np.array_equal(sampled.current_strategy(), full.current_strategy())


def test_linear_average_option() -> None:
    solver = MCCFRSolver(get_game("kuhn"), "es-mccfr", seed=0, linear_average=True)
    solver.iterate(100_000)
    assert evaluate_strategy(solver.tree, solver.average_strategy()).exploitability < 0.02


def test_unknown_algorithm() -> None:
    with pytest.raises(ValueError, match="unknown algorithm"):
        MCCFRSolver(get_game("kuhn"), "mccfr")

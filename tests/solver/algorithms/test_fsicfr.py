"""FSICFR over Dudo's recall graphs: with every bid remembered it is CFR on the real game, and
with fewer its strategies lose what the abstraction forgets, measured in the real game."""

from __future__ import annotations

import numpy as np
import pytest

from solver.abstractions.dudo_recall.graph import real_strategy, recall_graph
from solver.algorithms.exploitability import evaluate_strategy
from solver.algorithms.fsicfr import FSICFRSolver
from solver.engine.compile import compile_game
from solver.games import get_game
from solver.games.dudo.rules import DudoRules


def test_full_memory_is_cfr_on_the_real_game() -> None:
    tree = compile_game(get_game("dudo"))
    graph = recall_graph(DudoRules(), None)
    assert len(graph.nodes) == 4096 and sum(map(len, graph.block_keys)) == tree.num_infosets
    solver = FSICFRSolver(graph.graph)
    solver.iterate(600)
    evaluation = evaluate_strategy(tree, real_strategy(tree, graph, solver.average_strategy()))
    assert evaluation.exploitability < 1e-3
    assert evaluation.value == pytest.approx(-7 / 258, abs=1e-3)
    assert solver.evaluate(solver.average_strategy()) == pytest.approx(evaluation.value,
                                                                       abs=1e-12)


def test_short_memory_costs_exploitability() -> None:
    tree = compile_game(get_game("dudo"))
    costs = []
    for memory in (2, 4):
        graph = recall_graph(DudoRules(), memory)
        solver = FSICFRSolver(graph.graph)
        solver.iterate(300)
        strategy = real_strategy(tree, graph, solver.average_strategy())
        costs.append(evaluate_strategy(tree, strategy).exploitability)
    assert costs[0] > 0.05 > costs[1] > 1e-3  # two bids forget much, four little


def test_equal_dice_share_blocks_between_seats() -> None:
    graph = recall_graph(DudoRules((2, 2), faces=3), 2)
    seats: dict[int, set[int]] = {}
    for k, (player, _) in enumerate(graph.nodes):
        seats.setdefault(int(graph.graph.row[k]), set()).add(player)
    shared = [row for row, players in seats.items() if players == {0, 1}]
    assert shared  # after two bids or more, the same memory is the same information set
    first, states, count, users = graph.graph.blocks[0].tolist()
    assert (first, users) == (0, 1) and states == 6
    assert graph.block_keys[0][0] == "33|" and graph.block_labels[0][0] == "1x2"
    solver = FSICFRSolver(graph.graph)
    solver.iterate(50)
    strategy = solver.average_strategy()
    for first, states, count, _ in graph.graph.blocks.tolist():
        rows = strategy[first:first + states * count].reshape(states, count)
        assert np.allclose(rows.sum(axis=1), 1.0)


def test_predictive_schedules_are_refused() -> None:
    with pytest.raises(ValueError, match="not 'pcfr\\+'"):
        FSICFRSolver(recall_graph(DudoRules(), 1).graph, "pcfr+")

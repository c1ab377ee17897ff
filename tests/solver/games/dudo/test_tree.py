"""The directly built Dudo trees equal the generic walk, array for array, where a walk is
affordable: the course's game, calzo, and three-faced dice with one and two dice each."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import numpy as np
import pytest

from solver.algorithms.exploitability import evaluate_strategy
from solver.cli import main
from solver.engine.compile import _build, compile_game
from solver.engine.node_kinds import DECISION_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree
from solver.games import Game, get_game, register_game, unregister_game
from solver.games.dudo.game import DudoGame
from solver.games.dudo.tree import bid_tree, compile_dudo
from solver.games.dudo.view import DudoView

SMALL = [DudoGame(dice=(1, 2), faces=3), DudoGame(dice=(2, 1), faces=3),
         DudoGame(dice=(2, 2), faces=3), DudoGame(dice=(2, 1), faces=3, calzo=True)]


def _factory(game: DudoGame) -> Callable[[], Game]:
    return lambda: game


@pytest.fixture(scope="module", autouse=True)
def three_faced_games() -> Iterator[None]:
    for game in SMALL:
        register_game(game.name, _factory(game), DudoView)
    yield
    for game in SMALL:
        unregister_game(game.name)


def terminal_matrices(tree: PublicTree) -> np.ndarray:
    a = tree.arrays
    size = a.slot_count[0] * a.slot_count[1]
    return np.concatenate([a.payoffs[a.payoff_offset[n]:a.payoff_offset[n] + size[n]]
                           for n in np.flatnonzero(a.kind == TERMINAL_NODE)])


@pytest.mark.slow  # the engine's generic walk of each Dudo game's states, to compare with
@pytest.mark.parametrize("name", ["dudo", "dudo-calzo", *(g.name for g in SMALL)])
def test_direct_tree_is_the_walked_tree(name: str) -> None:
    game = get_game(name)
    assert isinstance(game, DudoGame)
    walked = _build(game)
    direct = compile_dudo(name, game.dudo_rules)
    for field in walked.arrays._fields:
        if field not in ("payoffs", "payoff_offset"):
            same = np.array_equal(getattr(walked.arrays, field), getattr(direct.arrays, field))
            assert same, field
    assert np.array_equal(terminal_matrices(walked), terminal_matrices(direct))
    assert walked.infoset_keys == direct.infoset_keys
    assert walked.infoset_actions == direct.infoset_actions
    assert walked.infoset_labels == direct.infoset_labels
    # Terminals share their matrices: one per (last bid, caller, call).
    calls = 2 if game.calzo else 1
    counts = direct.arrays.slot_count[:, 0]
    assert len(direct.arrays.payoffs) == game.dudo_rules.num_bids * 2 * calls * counts.prod()
    strategy = np.full(direct.num_regrets, 0.0)
    offsets = direct.infoset_regret_offset
    for i in range(direct.num_infosets):
        strategy[offsets[i]:offsets[i + 1]] = 1.0 / (offsets[i + 1] - offsets[i])
    assert evaluate_strategy(direct, strategy) == evaluate_strategy(walked, strategy)


def test_compile_game_builds_dudo_directly() -> None:
    assert compile_game(get_game("dudo-2v2-d3")).num_infosets == 2 ** 12 * 6


def test_bid_tree_sizes() -> None:
    kind, parent, _via, depth, last, call = bid_tree(18, 1)
    assert np.count_nonzero(kind == DECISION_NODE) == 2 ** 18
    assert np.count_nonzero(kind == TERMINAL_NODE) == 2 ** 18 - 1
    assert (parent[1:] < np.arange(1, len(kind))).all()
    assert depth.max() == 18 and last.max() == 17 and (call[kind == TERMINAL_NODE] == 0).all()


@pytest.mark.parametrize("name", ["dudo", "dudo-calzo", *(g.name for g in SMALL)])
def test_dudo_counts_its_tree_without_building_it(name: str) -> None:
    game = get_game(name)
    assert isinstance(game, DudoGame)
    sizes = game.sizes()
    tree = compile_game(game)
    assert sizes["information_sets"] == tree.num_infosets
    assert sizes["information_set_actions"] == tree.num_regrets
    assert sizes["public_nodes"] == tree.num_nodes
    assert sizes["slots"] == tree.num_slots(0) + tree.num_slots(1)


def test_dudo_2v2_is_counted_as_the_readme_says(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", "dudo-2v2", "--json"]) == 0  # at once: nothing is built
    sizes = json.loads(capsys.readouterr().out)
    assert sizes["information_sets"] == 2**24 * 21 == 352_321_536
    assert sizes["information_set_actions"] == (2**25 - 2) * 21 == 704_643_030


def test_dudo_2v2_is_built_remembering_three_bids() -> None:
    """Its exact tree does not fit in a machine's memory (above); the lobby's build is the
    recall solve (the exact one ran before: the game's command was set but never read)."""
    assert get_game("dudo-2v2").build.command == ("recall", "dudo-2v2", "--memory", "3",
                                                  "--quiet")
    assert get_game("dudo-1v2").build.command == ("solve", "dudo-1v2")

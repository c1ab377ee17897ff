"""The compiled public tree has the shape the rules imply and survives the disk cache."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.algorithms.policy import infosets
from solver.engine import compile as compile_module
from solver.engine.compile import _build, compile_game
from solver.engine.node_kinds import DECISION_NODE, TERMINAL_NODE
from solver.games import get_game


@pytest.mark.parametrize(("game_name", "count"), [("kuhn", 12), ("leduc", 936), ("dudo", 24_576)])
def test_one_infoset_per_public_node_and_private_state(game_name: str, count: int) -> None:
    tree = compile_game(get_game(game_name))
    assert tree.num_infosets == count
    assert len(set(tree.infoset_keys)) == count


def test_infosets_match_a_plain_walk() -> None:
    tree = compile_game(get_game("leduc"))
    walked = infosets(get_game("leduc"))
    assert set(tree.infoset_keys) == set(walked)
    for key, actions, labels in zip(tree.infoset_keys, tree.infoset_actions,
                                    tree.infoset_labels, strict=True):
        assert walked[key].actions == actions
        assert walked[key].labels == labels


def test_parents_precede_children() -> None:
    tree = compile_game(get_game("leduc"))
    assert (tree.arrays.parent[1:] < np.arange(1, tree.num_nodes)).all()


def test_terminal_matrices_carry_chance() -> None:
    # Summing |payoff| weights over Kuhn's terminals: each deal (prob 1/6) ends in one terminal
    # per betting line, and the lines are pp, pbp, pbb, bp, bb.
    tree = compile_game(get_game("kuhn"))
    terminals = np.flatnonzero(tree.arrays.kind == TERMINAL_NODE)
    assert len(terminals) == 5
    dudo = compile_game(get_game("dudo"))
    assert np.count_nonzero(dudo.arrays.kind == DECISION_NODE) == 4096


def test_rps_private_moves_compile() -> None:
    tree = compile_game(get_game("rps"))
    assert tree.infoset_keys == ("P1", "P2")
    # Player 1's move is private: one public child, three private states below it.
    assert tree.arrays.slot_count[0].tolist() == [1, 3, 3]


def test_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path))
    built = _build(get_game("leduc"))
    compile_module._save(built, compile_module._cache_path("leduc"))
    loaded = compile_module._load("leduc", compile_module._cache_path("leduc"))
    for field in built.arrays._fields:
        assert np.array_equal(getattr(built.arrays, field), getattr(loaded.arrays, field))
    assert loaded.infoset_keys == built.infoset_keys
    assert loaded.infoset_labels == built.infoset_labels
    assert loaded.infoset_actions == built.infoset_actions


def test_games_named_by_their_parameters_are_cached_under_a_safe_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_module, "_compiled", {})  # built afresh, into this cache
    spec = "holdem(numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,maxRaises=2 2)"
    path = compile_module._cache_path(spec)
    assert path.parent == tmp_path and path.name.startswith("holdem-")
    assert set(path.stem) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert path != compile_module._cache_path(spec.replace("maxRaises=2 2", "maxRaises=1 2"))
    tree = compile_game(get_game(spec))
    assert path.exists() and compile_module._load(spec, path).infoset_keys == tree.infoset_keys

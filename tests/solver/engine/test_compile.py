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

HOLDEM_SPEC = "holdem(numSuits=2,numRanks=3,numHoleCards=1,numBoardCards=0 1,maxRaises=2 2)"


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
    path = compile_module.cache_path(get_game("leduc"))
    compile_module._save(built, path)
    loaded = compile_module._load("leduc", path)
    for field in built.arrays._fields:
        assert np.array_equal(getattr(built.arrays, field), getattr(loaded.arrays, field))
    assert loaded.infoset_keys == built.infoset_keys
    assert loaded.infoset_labels == built.infoset_labels
    assert loaded.infoset_actions == built.infoset_actions
    assert loaded.node_keys == built.node_keys and loaded.node_labels == built.node_labels
    assert built.chance_mass is not None and loaded.chance_mass is not None
    assert np.array_equal(loaded.chance_mass, built.chance_mass)


@pytest.mark.parametrize("game_name", ["leduc", HOLDEM_SPEC])
def test_the_cache_file_holds_no_object_array(game_name: str, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The file is read with ``allow_pickle=False``: every array in it is numbers."""
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path))
    game = get_game(game_name)
    path = compile_module.cache_path(game)
    compile_module._save(compile_module.build(game), path)
    with np.load(path, allow_pickle=False) as data:
        assert data.files and not any(data[name].dtype.hasobject for name in data.files)


def _key_with_edit(game_name: str, edited: Path | None,
                   monkeypatch: pytest.MonkeyPatch) -> str:
    """`game_name`'s cache file name as if `edited` had a line added."""
    read = Path.read_bytes

    def read_bytes(self: Path) -> bytes:
        return read(self) + (b"\n# an edit\n" if self == edited else b"")

    with monkeypatch.context() as patch:
        patch.setattr(Path, "read_bytes", read_bytes)
        return compile_module.cache_path(get_game(game_name)).name


def test_editing_a_game_changes_its_own_cache_key_only(monkeypatch: pytest.MonkeyPatch) -> None:
    games = Path(compile_module.__file__).parents[1] / "games"
    leduc, kuhn = (_key_with_edit(name, None, monkeypatch) for name in ("leduc", "kuhn"))
    assert _key_with_edit("leduc", games / "kuhn.py", monkeypatch) == leduc
    assert _key_with_edit("leduc", games / "dudo" / "game.py", monkeypatch) == leduc
    assert _key_with_edit("kuhn", games / "kuhn.py", monkeypatch) != kuhn
    assert _key_with_edit("leduc", games / "leduc.py", monkeypatch) != leduc
    # What both import, and the engine's code that shapes every tree, are in both keys.
    for shared in (games / "base.py", Path(compile_module.__file__)):
        assert _key_with_edit("leduc", shared, monkeypatch) != leduc
        assert _key_with_edit("kuhn", shared, monkeypatch) != kuhn


def test_games_named_by_their_parameters_are_cached_under_a_safe_name(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path))
    monkeypatch.setattr(compile_module, "_compiled", {})  # built afresh, into this cache
    spec = HOLDEM_SPEC
    path = compile_module.cache_path(get_game(spec))
    assert path.parent == tmp_path and path.name.startswith("holdem-")
    assert set(path.stem) <= set("abcdefghijklmnopqrstuvwxyz0123456789-")
    assert path != compile_module.cache_path(get_game(spec.replace("maxRaises=2 2",
                                                                    "maxRaises=1 2")))
    tree = compile_game(get_game(spec))
    assert path.exists() and compile_module._load(spec, path).infoset_keys == tree.infoset_keys

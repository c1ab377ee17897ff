"""Subgames compiled at play time are the whole compiled tree's subtrees."""

from __future__ import annotations

import numpy as np
import pytest

from solver.engine.compile import compile_game
from solver.engine.node_kinds import DECISION_NODE, SHOWDOWN_NODE
from solver.evaluation.holdem.policy import parse_public
from solver.games import get_game
from solver.games.holdem import HoldemGame
from solver.games.holdem.betting import Betting
from solver.resolving.subgame import compile_subgame
from solver.resolving.subtree import cut_of, subtree, subtree_ends

SAME = ("kind", "actor", "parent", "num_actions", "regret_offset", "slot_offset", "slot_count")
PER_SLOT = ("slot_parent", "slot_edge", "slot_hand")


@pytest.mark.parametrize("name", [
    "holdem-mini", "holdem(numRanks=4,numSuits=2,numBoardCards=0 1 1)",
    # an all-in called before the last round: the rest of the board is dealt before showdown
    "holdem(betting=nolimit,numRanks=4,numSuits=2,numBoardCards=0 1 1,blind=2 1,stack=8 8)"])
def test_a_subgame_is_the_subtree_of_its_public_state(name: str) -> None:
    """Nodes, slots, edges and showdown orders as the whole tree has them below the node, and
    terminal values in proportion (the subgame weighs deals relative to its root)."""
    game = get_game(name)
    assert isinstance(game, HoldemGame)
    tree = compile_game(game)
    a = tree.arrays
    ends = subtree_ends(a.parent)
    rng = np.random.default_rng(0)
    nodes = [0, *rng.choice(np.flatnonzero(a.kind == DECISION_NODE), 12).tolist()]
    for node in nodes:
        betting, board = parse_public(game, tree.node_keys[node])
        sub = compile_subgame(game.definition, betting, board).arrays
        part = subtree(a, cut_of(a, node, ends))
        width = int(sub.slot_count[0].sum())
        for name_ in SAME:
            assert np.array_equal(getattr(sub, name_), getattr(part, name_)), name_
        for name_ in PER_SLOT:
            assert np.array_equal(getattr(sub, name_)[:, :width],
                                  getattr(part, name_)[:, :width]), name_
        for n in np.flatnonzero(sub.kind == SHOWDOWN_NODE).tolist():
            count = int(sub.slot_count[0, n])
            mine, theirs = int(sub.showdown_offset[n]), int(part.showdown_offset[n])
            assert np.array_equal(sub.showdown_order[mine:mine + count],
                                  part.showdown_order[theirs:theirs + count])
        terminal = sub.kind > DECISION_NODE
        ratio = part.terminal_value[terminal] / sub.terminal_value[terminal]
        assert np.allclose(ratio, ratio[0])


def test_nodes_are_found_by_betting_and_board() -> None:
    game = get_game("holdem-mini")
    assert isinstance(game, HoldemGame)
    start = Betting.start(game.definition).apply(1).apply(1)  # limp, check: the board is next
    sub = compile_subgame(game.definition, start, ())
    assert sub.arrays.kind[0] != DECISION_NODE  # the root deals the board card
    node = sub.node(start.apply(2), (5,))
    assert sub.betting[node].acpc() == "cc/r" and sub.board[node] == (5,)
    assert sub.node_weight[node] == pytest.approx(1 / 4)  # 8 cards less four hole cards
    with pytest.raises(KeyError):
        sub.node(start.apply(2), ())
    with pytest.raises(ValueError, match="is over"):
        compile_subgame(game.definition, start.apply(2).apply(0), (5,))

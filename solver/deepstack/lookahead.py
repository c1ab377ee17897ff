"""DeepStack's lookahead on no-limit Leduc: the rest of the round from a decision, in the
lookahead's bet sizes, with the value network at the leaves where the round ends.

In the first round a re-solve looks ahead to the end of the round (`lookahead`: a depth-limited
subgame, `solver.resolving.subgame`); where the first round ends with a call, the deal of the
board card is a leaf, valued at every iteration by the network from both ranges there
(`leaves_for`, `solver.resolving.leaves`).  A called all-in still runs its board card out to
the showdown: it needs no estimate.  In the second round the lookahead is the rest of the hand.

`whole_game` is a game of the family as one compiled tree (the game in the lookahead's sizes,
or the lobby's with every size): the tree the bot's assembled strategy is judged on
(`solver.deepstack.assembly`), and where a lookahead's nodes are found again (`placement`).

Example::

    sub = lookahead(Betting.start(LOOKAHEAD), (), depth_limited=True)
    solved = resolve(sub.arrays, 0, np.ones(HANDS), mode="unsafe", iterations=500,
                     opponent_range=np.ones(HANDS), leaves=leaves_for(sub, net))
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import cache

import numpy as np
from numpy.typing import NDArray

from solver.deepstack.situations import GAME, HANDS, LOOKAHEAD, Situation, solve
from solver.deepstack.value_net import ValueNet
from solver.engine.node_kinds import TERMINAL_NODE
from solver.engine.tree import spans
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules
from solver.resolving.leaves import Leaves, write_both
from solver.resolving.subgame import Subgame, compile_subgame

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]

__all__ = ["ExactLeaves", "Placement", "in_sizes", "leaves_for", "lookahead", "placement",
           "whole_game"]


@cache
def whole_game(rules: HoldemRules = LOOKAHEAD) -> Subgame:
    """A whole game as one compiled tree, from the deal: by default the game in the
    lookahead's sizes; the lobby's every-size game is the same layout as its public tree."""
    return compile_subgame(rules, Betting.start(rules), ())


def in_sizes(rules: HoldemRules) -> HoldemRules:
    """`rules` with the lookahead's bet sizes: a pot-sized bet and all-in."""
    return replace(rules, bets=LOOKAHEAD.bets)


def lookahead(betting: Betting, board: tuple[int, ...], *, depth_limited: bool) -> Subgame:
    """The lookahead from a public state of a game of the family: the actual bets at its
    root, the lookahead's sizes below; `depth_limited`, to the end of the round (the board
    card not out yet), else to the end of the hand."""
    rules = in_sizes(betting.rules)
    return compile_subgame(rules, replace(betting, rules=rules), board,
                           depth_limited=depth_limited and len(board) == 0)


def leaves_for(sub: Subgame, net: ValueNet) -> Leaves:
    """The leaves of a depth-limited lookahead, to be valued by `net` (whose pot input is the
    chips in over the stack: the same network serves the game counted in antes)."""
    nodes = sub.leaves
    chips = np.array([sub.betting[int(n)].spent[0] for n in nodes], np.float64)
    return Leaves(nodes, chips, float((sub.rules.stacks or (1, 1))[0]), net.weights, net.biases)


@dataclass(frozen=True, slots=True)
class ExactLeaves:
    """The leaves valued exactly instead of by the network: the rest of the hand solved from
    both ranges at every leaf (`iterations` of CFR+, `solver.deepstack.situations.solve`) once
    an iteration of the re-solve.  The same re-solver with the value function's error taken
    away, at a few hundred times its cost: a baseline, not a bot."""

    iterations: int = 200

    def refresh_for(self, sub: Subgame) -> Callable[[FloatArray, FloatArray], None]:
        """What `solver.resolving.resolve.resolve` calls each iteration for `sub`'s leaves."""
        nodes = sub.leaves
        scale = GAME.blinds[0] / sub.rules.blinds[0]  # situations are counted at an ante of 100
        chips = [int(sub.betting[int(n)].spent[0]) for n in nodes]
        tree = sub.arrays

        def refresh(reach0: FloatArray, reach1: FloatArray) -> None:
            values = np.zeros((len(nodes), 2, HANDS))
            for i, n in enumerate(nodes.tolist()):
                at = sub.slots(n)
                ranges = np.stack([reach0[at], reach1[at]])
                masses = ranges.sum(axis=1)
                shares = np.where(masses[:, None] > 0, ranges / np.maximum(masses, 1e-300)[:, None],
                                  1.0 / HANDS)
                per_chip = solve(Situation(round(chips[i] * scale), shares), self.iterations)
                values[i] = per_chip * chips[i] * masses[::-1, None]
            write_both(tree, nodes, reach0, reach1, values)

        return refresh


@dataclass(frozen=True, slots=True, eq=False)
class Placement:
    """Where a lookahead's nodes are in a whole game's tree: `nodes` (its leaves at the whole
    tree's deals of the board card; `leaf` marks them), and each player's slots `slots_from[p]`
    at the whole tree's `slots_to[p]` (a node's slots are the same hands in both)."""

    nodes: IntArray
    leaf: NDArray[np.bool_]
    slots_from: tuple[IntArray, IntArray]
    slots_to: tuple[IntArray, IntArray]


def placement(sub: Subgame, whole: Subgame) -> Placement:
    """Find `sub`'s nodes in `whole` by their betting and board (see `Placement`)."""
    a, w = sub.arrays, whole.arrays
    to = np.array([whole.node(sub.betting[m], sub.board[m]) for m in range(a.kind.shape[0])],
                  np.int64)
    slots = [(spans(a.slot_offset[p], a.slot_count[p]),
              spans(w.slot_offset[p, to], a.slot_count[p])) for p in (0, 1)]
    return Placement(to, a.kind == TERMINAL_NODE, (slots[0][0], slots[1][0]),
                     (slots[0][1], slots[1][1]))

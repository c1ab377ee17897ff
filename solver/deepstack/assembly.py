"""DeepStack's continual re-solving on no-limit Leduc, assembled over a whole game so that an
exact best response can judge it.

The bot keeps no strategy.  At its first decision it solves the game from the deal with both
ranges uniform (DeepStack's first re-solve; the second player solves from the deal too, before
its first move, for the opponent's values).  At every later decision it re-solves its lookahead
(`solver.deepstack.lookahead`) safely, with CFR-D's gadget: its own range is its reach under
what it actually played, and the opponent's alternatives are the opponent's best-response
counterfactual values from its previous re-solve at the node the hand has reached, or, after a
size no lookahead had, at the opponent's decision before it (its value there bounds what any of
its actions can be worth).  DeepStack-Leduc carries the values under the re-solve's own
strategies instead; here that measured worse.  When the board card comes after a first round
looked ahead only to its end, the second round is re-solved from the deal, every card at once,
with the gadget's alternatives the network's values for the opponent at that leaf (this network
values the round before its card is known; DeepStack-Leduc's takes the card as an input and
values each card's start instead).  Its strategy at a public state is then a function of the
public history, so a seat's strategy is put together by visiting its decision nodes in
pre-order and re-solving at each as the bot would, as `solver.resolving.continual` does for
the hold'em bots.

``exploitability(leaves, iterations)`` assembles both seats and judges them: with the network
at the leaves (the bot), with `ExactLeaves` (the same re-solver without the network's error),
or with None (no depth limit: the lookahead runs to the end of the hand).

Example::

    net = ValueNet.load(Path("net.npz"))
    exploitability(net, iterations=500).chips               # the bot's
    exploitability(ExactLeaves(200), iterations=500).chips  # the network's error taken away
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from solver.deepstack.lookahead import (
    ExactLeaves,
    leaves_for,
    lookahead,
    placement,
    whole_game,
)
from solver.deepstack.situations import HANDS, LOOKAHEAD
from solver.deepstack.value_net import ValueNet
from solver.engine import kernels
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE
from solver.engine.tree import TreeArrays
from solver.games.holdem.rules import HoldemRules
from solver.resolving.continual import chance_depth, path_reach
from solver.resolving.resolve import Resolved, reach_from, resolve
from solver.resolving.subgame import Subgame

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]

LeafValues = ValueNet | ExactLeaves | None
"""What values a first-round lookahead's leaves: the network, the exact values (a baseline), or
nothing (the lookahead runs to the end of the hand)."""

__all__ = ["Exploitability", "LeafValues", "Seat", "assemble", "best_responses", "exploitability",
           "judge_profile", "tree_exploitability"]


@dataclass(frozen=True, slots=True, eq=False)
class Seat:
    """One seat's assembled strategy (the whole game's entries; the other seat's, and this
    seat's where it never goes, left uniform) and how long each of its re-solves took, in
    seconds."""

    strategy: FloatArray
    seconds: FloatArray


class _Assembler:
    """What one seat's assembly carries from re-solve to re-solve, in the whole game's slots:
    the opponent's values (the gadget's alternatives; in the whole tree's units, a lookahead's
    times the chance of the board at its root, `solver.resolving.subgame`) and which nodes a
    re-solve has covered."""

    def __init__(self, whole: Subgame, player: int, net: LeafValues, iterations: int,
                 mode: str) -> None:
        self.whole = whole
        tree = self.whole.arrays
        self.player, self.other = player, 1 - player
        self.net, self.iterations, self.mode = net, iterations, mode
        size = int(tree.regret_offset[-1]) + _entries(tree, tree.kind.shape[0] - 1)
        self.strategy = np.zeros(size)
        kernels.current_strategy(tree, np.zeros(size), self.strategy)
        other_slots = int(tree.slot_count[self.other].sum())
        self.alternatives = np.zeros(other_slots)
        self.covered = np.zeros(tree.kind.shape[0], bool)
        self.depth = chance_depth(tree.kind, tree.parent)
        self.seconds: list[float] = []

    def slots(self, player: int, node: int) -> slice:
        tree = self.whole.arrays
        first = int(tree.slot_offset[player, node])
        return slice(first, first + int(tree.slot_count[player, node]))

    def solve(self, node: int, own: FloatArray, *, opponent_range: FloatArray | None = None
              ) -> Resolved:
        """Re-solve at `node` from the player's range `own` (unsafe from `opponent_range` if
        given, else safely from the carried alternatives) and carry what it found."""
        started = time.perf_counter()
        whole, tree, o = self.whole, self.whole.arrays, self.other
        sub = lookahead(whole.betting[node], whole.board[node],
                        depth_limited=self.net is not None and tree.kind[node] != CHANCE_NODE)
        leaves = leaves_for(sub, self.net) if isinstance(self.net, ValueNet) else None
        refresh = self.net.refresh_for(sub) if isinstance(self.net, ExactLeaves) else None
        if opponent_range is not None:
            solved = resolve(sub.arrays, self.player, own, mode="unsafe",
                             iterations=self.iterations, opponent_range=opponent_range,
                             leaves=leaves, refresh=refresh)
        else:
            solved = resolve(sub.arrays, self.player, own, mode=self.mode,
                             iterations=self.iterations, leaves=leaves, refresh=refresh,
                             alternatives=self.carried(node) / whole.node_weight[node])
        place = placement(sub, whole)
        self.alternatives[place.slots_to[o]] = (solved.opponent_values[place.slots_from[o]]
                                                * whole.node_weight[node])
        self.covered[place.nodes[~place.leaf]] = True
        self.play(node, sub, solved)
        self.seconds.append(time.perf_counter() - started)
        return solved

    def carried(self, node: int) -> FloatArray:
        """The opponent's values at `node`: where the last re-solve left them, or, after an
        action no lookahead had (a size the bot does not use), at the opponent's decision
        before it (its value there bounds what any of its actions can be worth)."""
        return self.alternatives[self.slots(self.other, self.last_covered(node))]

    def play(self, node: int, sub: Subgame, solved: Resolved) -> None:
        """The re-solve's strategy at its root as the player's at `node` (its sizes among the
        whole game's), if the player acts there."""
        tree = self.whole.arrays
        if tree.actor[node] != self.player:
            return
        ours = sub.betting[0].legal_actions()
        theirs = self.whole.betting[node].legal_actions()
        column = np.array([theirs.index(a) for a in ours], np.int64)
        hands, width = int(tree.slot_count[self.player, node]), len(theirs)
        rows = solved.strategy[:hands * len(ours)].reshape(hands, len(ours))
        placed = np.zeros((hands, width))
        placed[:, column] = rows
        at = int(tree.regret_offset[node])
        self.strategy[at:at + hands * width] = placed.reshape(-1)

    def deal_above(self, node: int) -> int:
        """The deal of the board card above `node`."""
        tree = self.whole.arrays
        while tree.kind[node] != CHANCE_NODE:
            node = int(tree.parent[node])
        return node

    def reach(self, node: int) -> FloatArray:
        """The player's reach at `node`'s slots under what it played."""
        out = np.zeros(int(self.whole.arrays.slot_count[self.player, node]))
        path_reach(self.whole.arrays, self.player, self.strategy, node, out)
        return out

    def run(self) -> Seat:
        tree = self.whole.arrays
        hands = int(tree.slot_count[0, 0])
        self.solve(0, np.ones(hands), opponent_range=np.ones(hands))
        nodes = np.flatnonzero((tree.kind == DECISION_NODE) & (tree.actor == self.player))
        for node in nodes[nodes > 0].tolist():
            own = self.reach(node)
            if not own.any():  # behind a size the player never bets: never played
                continue
            if not self.covered[node] and self.depth[node] > self.depth[self.last_covered(node)]:
                deal = self.deal_above(node)
                self.solve(deal, self.reach(deal))
            self.solve(node, own)
        return Seat(self.strategy, np.array(self.seconds))

    def last_covered(self, node: int) -> int:
        """The nearest node at or above `node` that a re-solve has covered."""
        tree = self.whole.arrays
        while not self.covered[node]:
            node = int(tree.parent[node])
        return node


def assemble(player: int, net: LeafValues, iterations: int, mode: str = "resolve",
             rules: HoldemRules = LOOKAHEAD, whole: Subgame | None = None) -> Seat:
    """`player`'s strategy in the game `rules` as the bot plays it (see the module docstring),
    or in `whole`, a subgame of it where the bot starts with both ranges uniform (DeepStack-
    Leduc's tutorial tree)."""
    return _Assembler(whole or whole_game(rules), player, net, iterations, mode).run()


@dataclass(frozen=True, slots=True)
class Exploitability:
    """What each player's best response to the assembled bot's other seat gets (`best[p]`,
    chips a hand), their mean, which is the exploitability (`chips`: the game's value cancels),
    each re-solve's seconds, and the judged strategy (`profile`, laid out as the whole game's
    compiled tree, so that it can be exported to another judge)."""

    best: tuple[float, float]
    seconds: FloatArray
    profile: FloatArray

    @property
    def chips(self) -> float:
        return (self.best[0] + self.best[1]) / 2


def exploitability(net: LeafValues, iterations: int, mode: str = "resolve",
                   rules: HoldemRules = LOOKAHEAD) -> Exploitability:
    """Both seats assembled and judged by an exact best response in the whole game."""
    seats = [assemble(p, net, iterations, mode, rules) for p in (0, 1)]
    profile = judge_profile(seats[0].strategy, seats[1].strategy, rules)
    return Exploitability(best_responses(profile, rules),
                          np.concatenate([s.seconds for s in seats]), profile)


def judge_profile(first: FloatArray, second: FloatArray, rules: HoldemRules = LOOKAHEAD,
                  whole: Subgame | None = None) -> FloatArray:
    """Player 0's entries from `first`, player 1's from `second` (in the whole game of `rules`,
    or in `whole`)."""
    tree = (whole or whole_game(rules)).arrays
    nodes = np.flatnonzero(tree.kind == DECISION_NODE)  # pre-order: their entries in order
    widths = tree.num_actions[nodes] * tree.slot_count[tree.actor[nodes], nodes]
    owner = np.repeat(tree.actor[nodes], widths)
    return np.where(owner == 0, first, second)


def best_responses(profile: FloatArray, rules: HoldemRules = LOOKAHEAD) -> tuple[float, float]:
    """What each player gets by best-responding to the other's strategy in `profile`, chips a
    hand (each pair of cards dealt with chance 1/30)."""
    deals = HANDS * (HANDS - 1)
    best = _best_replies(whole_game(rules).arrays, profile, np.ones(HANDS))
    return (best[0] / deals, best[1] / deals)


def tree_exploitability(whole: Subgame, profile: FloatArray) -> float:
    """The mean of what each player's best response gains in `whole` when both start with
    uniform ranges (each hand 1/hands, as DeepStack-Leduc's tutorial measures its tree)."""
    hands = int(whole.arrays.slot_count[0, 0])
    return sum(_best_replies(whole.arrays, profile, np.full(hands, 1.0 / hands))) / 2


def _best_replies(tree: TreeArrays, profile: FloatArray, ranges: FloatArray
                  ) -> tuple[float, float]:
    """Each player's best-response value against the other's strategy in `profile`, both
    starting from `ranges` over the root's hands: its counterfactual values there, weighted
    by its range."""
    out = []
    for p in (0, 1):
        o = 1 - p
        reach = np.zeros(int(tree.slot_count[o].sum()))
        reach_from(tree, o, profile, ranges, reach)
        values = np.zeros(int(tree.slot_count[p].sum()))
        kernels.best_response(tree, p, reach, values, np.zeros(len(profile)))
        out.append(float(ranges @ values[:len(ranges)]))
    return (out[0], out[1])


def _entries(tree: TreeArrays, node: int) -> int:
    if tree.kind[node] != DECISION_NODE:
        return 0
    return int(tree.num_actions[node] * tree.slot_count[tree.actor[node], node])

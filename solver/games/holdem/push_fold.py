"""Push or fold: heads-up no-limit hold'em where the small blind goes all-in or folds and the
big blind calls or folds, at a stack of a few big blinds.

At short stacks this is close to how the real game is played, and it is small enough to solve
exactly: each seat holds one of 1,326 hands, and an all-in called before the flop pays by the
hands' exact results over every board (`solver.cards.matchups`), so the game is two decisions
over a 1,326 x 1,326 table.  The compiled tree is that: the small blind's decision, the big
blind's after a push, and three terminals whose payoff matrices hold, per pair of hands that
share no card, the chance of that deal times what it pays (a fold the blind, a call the stack
times the difference of the win and loss chances).

The rules are heads-up no-limit hold'em's (`solver.games.holdem.rules.HUNL`: blinds 50 and 100)
with stacks of the chosen number of big blinds and the bet abstraction ``pushfold``: states,
keys and hand histories are the family's own.  It is a restriction of no-limit, not the game
itself: the big blind cannot raise and the small blind cannot limp or raise small, so what the
charts are worth in the real game is a separate question (close to optimal at short stacks).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from solver.cards.matchups import boards, cached_path, hands, table
from solver.engine.node_kinds import DECISION_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree, pack_tree
from solver.games.base import BuildPlan
from solver.games.holdem.bet_sizes import parse as parse_bet_sizes
from solver.games.holdem.betting import CALL, FOLD
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.rules import HUNL, HoldemRules

STACKS_BB = (5, 10, 15, 20)
"""The stacks, in big blinds, solved when the project is built."""
SMALL_BLIND, BIG_BLIND = 1, 0
"""The seats: universal_poker's player 1 posts the small blind and acts first."""


def rules(stack_bb: int) -> HoldemRules:
    """Heads-up no-limit hold'em at `stack_bb` big blinds a seat, push or fold."""
    chips = stack_bb * HUNL.big_blind
    return replace(HUNL, stacks=(chips, chips), bets=parse_bet_sizes("pushfold"))


def is_push_fold(definition: HoldemRules) -> bool:
    """Whether `definition` is push-or-fold on the whole deck (a game this module compiles)."""
    return definition.push_or_fold and definition.heads_up_no_limit_texas


def name(stack_bb: int) -> str:
    return f"pushfold-{stack_bb}bb"


class PushFoldGame(HoldemGame):
    """A push-or-fold member; `stack_bb` its stack in big blinds."""

    def __init__(self, definition: HoldemRules, game_name: str | None = None) -> None:
        if not is_push_fold(definition):
            raise ValueError(f"{definition.spec} is not push-or-fold on the whole deck")
        stack = (definition.stacks or (0, 0))[0]
        self.stack_bb = stack / definition.big_blind
        super().__init__(definition, game_name,
                         f"Push or fold, {self.stack_bb:g} big blinds")

    @property
    def build(self) -> BuildPlan:
        """Solved exactly; the table of all-in results takes a minute or more the first
        time."""
        return BuildPlan(("solve", self.name, "--target-exploitability", "5e-5"), background=True)

    def compile_seconds(self) -> float:
        """The table of all-in results takes about a minute of two cores the first time (65 s
        measured on a quiet machine, 191 s on a loaded one); after that the tree takes a
        second."""
        return 2.0 if cached_path().exists() else 70.0

    def compile_public_tree(self) -> PublicTree:
        """The small blind's decision over its 1,326 hands, the big blind's after a push, and
        the three terminals' payoff matrices (see the module)."""
        d = self.definition
        pairs = hands()
        n = len(pairs)
        stack = (d.stacks or (0, 0))[0]
        collide = (pairs[:, None, :, None] == pairs[None, :, None, :]).any(axis=(2, 3))
        deal = np.where(collide, 0.0, 1.0 / (n * math.comb(52 - 2, 2)))
        small, big = d.blinds[SMALL_BLIND], d.blinds[BIG_BLIND]
        # Player 0 (the big blind) is the row: it wins the small blind when that folds, loses
        # the big blind when it folds, and at a showdown wins or loses the stack.
        showdown = stack * table().astype(np.float64) / boards()
        payoffs = np.concatenate([(small * deal).ravel(), (-big * deal).ravel(),
                                  (showdown * deal).ravel()])
        # Nodes in pre-order: 0 the small blind, 1 its fold, 2 the big blind after the push,
        # 3 its fold, 4 its call.
        kind = [DECISION_NODE, TERMINAL_NODE, DECISION_NODE, TERMINAL_NODE, TERMINAL_NODE]
        parent = [-1, 0, 0, 2, 2]
        every = np.arange(n)
        # Both players' slots: the root's, then each node's hands below the same hands above.
        parents = np.concatenate([np.full(n, -1), every, every, 2 * n + every, 2 * n + every])
        slot_parent = [parents, parents]
        none = np.full(n, -1)
        slot_action = [np.concatenate([none, none, none, np.zeros(n), np.ones(n)]),
                       np.concatenate([none, np.zeros(n), np.ones(n), none, none])]
        arrays = pack_tree(kind, [SMALL_BLIND, -1, BIG_BLIND, -1, -1], parent, [2, 0, 2, 0, 0],
                           np.full((2, 5), n), slot_parent, slot_action, payoffs)
        names = tuple(self.engine.hand_names)
        push = f"r{stack}"
        infoset_actions = ((FOLD, stack),) * n + ((FOLD, CALL),) * n
        labels = (("fold", f"raise to {stack}"),) * n + (("fold", "call"),) * n
        return PublicTree(self.name, arrays,
                          tuple(f"{h}|" for h in names) + tuple(f"{h}|{push}" for h in names),
                          infoset_actions, labels,
                          node_keys=("", "f", push, f"{push}f", f"{push}c"),
                          node_labels=("", "fold", f"raise to {stack}", "fold", "call"),
                          chance_mass=np.concatenate([deal.ravel()] * 3))

    def sizes(self) -> dict[str, int | dict[str, int]]:
        return {"betting_sequences": 2, "information_sets": 2 * len(hands()),
                "public_nodes": 5, "slots": 10 * len(hands())}


__all__ = ["STACKS_BB", "PushFoldGame", "is_push_fold", "name", "rules"]

"""One re-solve of the re-solving bot, and what it hands the next one (continual re-solving).

Two layouts are re-solved: the general one (`solver.resolving.subgame`, whatever is
left of the hand) and the turn's (`solver.resolving.turn_subgame`).  Both answer the
same two questions, over every hand of the member (rows of `subgame.hand_cards`), so the bot
need not know which it holds: its strategy at its root (`root_strategy`), and, at a later
public state where the same player acts (`carry`), that player's reach under what it played and
the opponent's best-response values there, in the units of a subgame rooted at that state (the
next re-solve's range and alternatives).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from solver.games.holdem.betting import Betting
from solver.resolving.resolve import Resolved
from solver.resolving.subgame import Subgame
from solver.resolving.turn_resolve import TurnResolved
from solver.resolving.turn_subgame import TurnSubgame

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True, eq=False)
class Solved:
    """A re-solve in the general layout: its subgame, the player who re-solved, the result."""

    subgame: Subgame
    player: int
    resolved: Resolved

    def root_strategy(self) -> tuple[IntArray, FloatArray]:
        """The root's hands and the player's probabilities for each, ``(hands, actions)``."""
        sub = self.subgame
        root = sub.root_hands
        count = int(sub.arrays.num_actions[0])
        return root, self.resolved.strategy[:count * len(root)].reshape(len(root), count)

    def margins(self) -> tuple[float, float] | None:
        """The gadget's smallest and mean margin over the opponent's root hands, per unit of
        the player's range at the root (chips a deal that reaches the state, card removal
        aside); None for an unsafe re-solve."""
        own = self.resolved.own_reach[:len(self.subgame.root_hands)]
        return _per_range(self.resolved.margins, float(own.sum()))

    def carry(self, betting: Betting, board: tuple[int, ...], hands: int
              ) -> tuple[FloatArray, FloatArray]:
        """The player's reach and the opponent's values at the state (`hands`: all of the
        member's)."""
        sub = self.subgame
        node = sub.node(betting, board)
        slots = sub.slots(node)
        ids = sub.hands[slots]
        own, alternatives = np.zeros(hands), np.zeros(hands)
        own[ids] = self.resolved.own_reach[slots]
        alternatives[ids] = self.resolved.opponent_values[slots] / sub.node_weight[node]
        return own, alternatives


@dataclass(frozen=True, slots=True, eq=False)
class TurnSolved:
    """A re-solve in the turn's layout."""

    subgame: TurnSubgame
    player: int
    resolved: TurnResolved

    def root_strategy(self) -> tuple[IntArray, FloatArray]:
        return self.subgame.hand_ids, self.resolved.root_strategy.T

    def margins(self) -> tuple[float, float] | None:
        """As `Solved.margins`."""
        return _per_range(self.resolved.margins, float(self.resolved.own_reach[0].sum()))

    def carry(self, betting: Betting, board: tuple[int, ...], hands: int
              ) -> tuple[FloatArray, FloatArray]:
        sub = self.subgame
        got = self.resolved
        ids = sub.hand_ids
        own, alternatives = np.zeros(hands), np.zeros(hands)
        if betting.round == sub.betting[0].round:
            node = sub.node(betting)
            own[ids] = got.own_reach[node]
            alternatives[ids] = got.opponent_values[node]
            return own, alternatives
        leaf = sub.node_of("/".join(betting.rounds[:-1]) + "/")
        at = sub.river_node(leaf, betting)
        number = int(sub.arrays.t_leaf[leaf])
        where = np.flatnonzero(got.river_nodes[number] == at)
        if not len(where):
            raise KeyError(f"{betting.acpc()!r} is not where the player first acts on the "
                           "river")
        card = sub.river_cards.index(board[-1])
        own[ids] = got.own_reach[leaf]
        alternatives[ids] = got.river_values[number, card, int(where[0])] / sub.arrays.weight
        return own, alternatives


def _per_range(margins: FloatArray | None, own: float) -> tuple[float, float] | None:
    if margins is None or not len(margins) or own <= 0.0:
        return None
    return float(margins.min()) / own, float(margins.mean()) / own

"""The subgame of a hold'em member below one public state, compiled at play time.

A bot that re-solves needs the rest of the hand from where it stands: the betting left in this
round and every later round on every board still to come, over every hand that misses the
board.  It is the whole member's compiled tree (`solver.games.holdem.tree`) cut down to one
public state, built directly from the betting and the board in the same layout (pre-order
nodes, slots per node, the same terminals with card removal; a called all-in before the last
round deals the rest of the board before its showdown, as the whole tree does), so
`solver.engine.kernels` and `solver.resolving.resolve` run on it as on any tree.

Terminals are weighted *relative to the root*: a deal of the remaining board cards, given both
hands, has probability ``node_weight`` (one over the completions; every pair of hands that miss
the board has as many).  Values computed here are then the whole tree's divided by the chance
of the board so far, and a value at node n of this tree is that of the subgame rooted at n
times ``node_weight[n]`` (how continual re-solving carries values from one subgame to the next).

A *depth-limited* subgame stops where the round ends: each deal of the next round's cards below
the root becomes a *leaf*, a `TERMINAL_NODE` whose payoff matrix (player 0's hands by player
1's) is whatever a value function puts there (`solver.resolving.leaves`); a called all-in still
runs its board out to the showdown, which needs no estimate.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from solver.engine.node_kinds import (
    CHANCE_NODE,
    DECISION_NODE,
    FOLD_NODE,
    SHOWDOWN_NODE,
    TERMINAL_NODE,
)
from solver.engine.tree import CardTerminals, TreeArrays, pack_tree
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules
from solver.games.holdem.tree import board_slots, showdown_orders

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True, eq=False)
class Subgame:
    """A compiled subgame: `arrays` for the kernels; per node its betting, board (cards in
    dealing order), weight (see the module docstring) and children (by legal-action index at a
    decision, by deal at a chance node); `index` finds a node by (ACPC betting, board)."""

    rules: HoldemRules
    arrays: TreeArrays
    betting: tuple[Betting, ...]
    board: tuple[tuple[int, ...], ...]
    node_weight: FloatArray
    children: tuple[tuple[int, ...], ...]
    index: dict[tuple[str, tuple[int, ...]], int]
    hands: IntArray  # the hand (a row of `hand_cards`) of every slot

    @property
    def root_hands(self) -> IntArray:
        """The hands at the root, in slot order (rows of `hand_cards`)."""
        return self.hands[:int(self.arrays.slot_count[0, 0])]

    def node(self, betting: Betting, board: tuple[int, ...]) -> int:
        """The node of a public state of this subgame; KeyError if it is not one."""
        return self.index[(betting.acpc(), tuple(board))]

    def slots(self, node: int) -> slice:
        """The slots of `node` (the same for both players)."""
        first = int(self.arrays.slot_offset[0, node])
        return slice(first, first + int(self.arrays.slot_count[0, node]))

    @property
    def leaves(self) -> IntArray:
        """The leaves of a depth-limited subgame (none in a whole one), in node order."""
        return np.flatnonzero(self.arrays.kind == TERMINAL_NODE)


def hand_cards(rules: HoldemRules) -> IntArray:
    """Every hand, cards increasing, in lexicographic order (the whole tree's `hand_cards`)."""
    return np.array(list(itertools.combinations(range(rules.num_cards), rules.hole_cards)),
                    np.int64).reshape(-1, rules.hole_cards)


def compile_subgame(rules: HoldemRules, betting: Betting, board: tuple[int, ...],
                    cards: IntArray | None = None, *, depth_limited: bool = False) -> Subgame:
    """The subgame below `betting` on `board` (the cards dealt so far, in dealing order; the
    round's own cards must be out unless the state is a round's chance node), to the end of
    the hand or, `depth_limited`, to the end of the round (see the module docstring)."""
    if betting.over:
        raise ValueError(f"the hand is over after {betting.acpc()!r}: there is no subgame")
    if len(board) != rules.board_dealt(betting.round) and len(board) != (
            rules.board_dealt(betting.round - 1) if betting.round else 0):
        raise ValueError(f"round {betting.round + 1} has {rules.board_dealt(betting.round)} "
                         f"board cards, not {len(board)}")
    hands = hand_cards(rules) if cards is None else cards
    masks = np.bitwise_or.reduce(np.left_shift(1, hands), axis=1)
    builder = _Builder(rules, hands, masks, depth_limited)
    builder.walk(betting, tuple(board))
    return builder.finish()


class _Builder:
    """The pre-order walk and the per-node lists it fills."""

    def __init__(self, rules: HoldemRules, hands: IntArray, masks: IntArray,
                 depth_limited: bool) -> None:
        self.rules, self.hands, self.masks = rules, hands, masks
        self.depth_limited = depth_limited
        self.kind: list[int] = []
        self.actor: list[int] = []
        self.parent: list[int] = []
        self.taken: list[int] = []
        self.num_actions: list[int] = []
        self.value: list[float] = []
        self.weight: list[float] = []
        self.board_of: list[int] = []
        self.bettings: list[Betting] = []
        self.children: list[list[int]] = []
        self.boards: list[tuple[int, ...]] = []
        self.board_hands: list[IntArray] = []
        self.board_from: list[IntArray] = []
        self.board_ids: dict[tuple[int, ...], int] = {}
        self.index: dict[tuple[str, tuple[int, ...]], int] = {}

    def _board(self, cards: tuple[int, ...], parent: int) -> int:
        known = self.board_ids.get(cards)
        if known is not None:
            return known
        mask = sum(1 << c for c in cards)
        held = np.flatnonzero((self.masks & mask) == 0)
        if parent >= 0:
            position = np.full(len(self.hands), -1, np.int64)
            position[self.board_hands[parent]] = np.arange(len(self.board_hands[parent]))
            from_parent = position[held]
        else:
            from_parent = np.arange(len(held))
        self.boards.append(cards)
        self.board_hands.append(held)
        self.board_from.append(from_parent)
        self.board_ids[cards] = len(self.boards) - 1
        return len(self.boards) - 1

    def _add(self, kind: int, actor: int, parent: int, taken: int, board: int, betting: Betting,
             weight: float, value: float = 0.0, actions: int = 0) -> int:
        n = len(self.kind)
        self.kind.append(kind)
        self.actor.append(actor)
        self.parent.append(parent)
        self.taken.append(taken)
        self.num_actions.append(actions)
        self.value.append(value)
        self.weight.append(weight)
        self.board_of.append(board)
        self.bettings.append(betting)
        self.children.append([])
        self.index[(betting.acpc(), self.boards[board])] = n
        if parent >= 0:
            self.children[parent].append(n)
        return n

    def walk(self, betting: Betting, board: tuple[int, ...]) -> None:
        rules = self.rules
        root_board = self._board(board, -1)
        # (betting, board id, parent, action index at the parent, weight)
        stack = [(betting, root_board, -1, -1, 1.0)]
        full_board = rules.board_dealt(rules.num_rounds - 1)
        while stack:
            b, board_id, parent, taken, weight = stack.pop()
            cards = self.boards[board_id]
            # A called all-in ends the betting early: the board runs out before the showdown.
            running_out = b.over and b.folded < 0 and len(cards) < full_board
            if b.over and not running_out:
                folded = b.folded
                if folded >= 0:
                    lost = b.spent[folded]
                    self._add(FOLD_NODE, -1, parent, taken, board_id, b, weight,
                              weight * (-lost if folded == 0 else lost))
                else:
                    self._add(SHOWDOWN_NODE, -1, parent, taken, board_id, b, weight,
                              weight * b.spent[0])
                continue
            if self.depth_limited and parent >= 0 and not running_out and len(cards) < (
                    rules.board_dealt(b.round)):
                self._add(TERMINAL_NODE, -1, parent, taken, board_id, b, weight)
                continue
            if running_out or len(cards) < rules.board_dealt(b.round):
                me = self._add(CHANCE_NODE, -1, parent, taken, board_id, b, weight)
                deal = next(rules.board_cards[r] for r in range(rules.num_rounds)
                            if rules.board_dealt(r) > len(cards))
                left = [c for c in range(rules.num_cards) if c not in cards]
                # Given both hands, the completions left: the same for every pair of hands.
                each = weight / math.comb(len(left) - 2 * rules.hole_cards, deal)
                stack.extend((b, self._board(cards + dealt, board_id), me, -1, each)
                              for dealt in reversed(list(itertools.combinations(left, deal))))
                continue
            actions = b.legal_actions()
            me = self._add(DECISION_NODE, b.player, parent, taken, board_id, b, weight,
                           actions=len(actions))
            stack.extend((b.apply(actions[i]), board_id, me, i, weight)
                         for i in reversed(range(len(actions))))

    def finish(self) -> Subgame:
        kind = np.array(self.kind, np.int64)
        actor = np.array(self.actor, np.int64)
        parent = np.array(self.parent, np.int64)
        num_actions = np.array(self.num_actions, np.int64)
        on = np.array(self.board_of, np.int64)
        sizes = np.array([len(h) for h in self.board_hands], np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        counts = sizes[on]
        slot_hand, slot_parent, slot_action = board_slots(
            parent, actor, on, np.array(self.taken, np.int64), counts, starts,
            np.concatenate(self.board_hands), np.concatenate(self.board_from))
        leaves = np.where(kind == TERMINAL_NODE, counts * counts, 0)
        order, strength, offset = showdown_orders(self.rules, self.hands, self.board_hands,
                                                  self.boards, kind, on)
        arrays = pack_tree(
            kind=kind, actor=actor, parent=parent, num_actions=num_actions,
            slot_count=np.stack([counts, counts]), slot_parent=[slot_parent, slot_parent],
            slot_action=[slot_action[0], slot_action[1]], payoffs=np.zeros(int(leaves.sum())),
            cards=CardTerminals(
                terminal_value=np.array(self.value),
                showdown_offset=np.where(kind == SHOWDOWN_NODE, offset[on], -1),
                showdown_order=order, showdown_strength=strength,
                slot_hand=[slot_hand, slot_hand], hand_cards=self.hands))
        return Subgame(self.rules, arrays, tuple(self.bettings),
                       tuple(self.boards[b] for b in self.board_of), np.array(self.weight),
                       tuple(tuple(c) for c in self.children), self.index, slot_hand)

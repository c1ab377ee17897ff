"""The rest of a hold'em hand from the second-to-last round (the turn), laid out to be re-solved
within a second.

Compiled the general way (`solver.resolving.subgame`), heads-up limit hold'em's turn
subgame is 11,691 public nodes and 12.6 million (node, hand) slots a player: compiling it took
2.6 s of CPU and one CFR+ iteration over it 1.3 s, through per-slot parent and edge indices.
Here the same game is two small betting trees and dense arrays over hands:

* the turn's betting below the public state, its nodes in pre-order (decisions, folds, and
  *leaves* where the turn's betting closes and the river is dealt);
* the river's betting below each leaf, played below every (leaf, river card) *block*: in limit
  betting one tree that every leaf shares (a round starts with equal stakes and no raises, so
  only the pot differs); in no-limit one per stake the leaves close at (the sizes are the
  pot's, the all-in what is left), and a single showdown below a leaf where a called all-in
  ended the betting (the river card still comes);
* the turn's hands (every pair of cards off the board) and, per river card, the hands off it in
  order of strength on that board, so that a river block's reach, values and strategy are
  vectors over hands sorted for its showdowns (`solver.resolving.turn_kernel`).

Values are in the units of `solver.resolving.subgame` (deals weighted relative to the
subgame's root: a river card has weight one over the rivers left given both hands), so values
move between the two layouts unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray

from solver.cards.evaluator import rank_hands
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE, FOLD_NODE, SHOWDOWN_NODE
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


class TurnArrays(NamedTuple):
    """The arrays of `turn_kernel` (numba takes a named tuple of arrays as one argument).

    Entries (one per decision node, action and hand, ``[action][hand]`` inside a node): the
    turn's first, from ``t_offset``; then the river's, leaf after leaf from ``leaf_base``, a
    leaf's blocks one per river card number ``c`` (each ``tree_size`` entries of its river
    tree): ``leaf_base[l] + c * tree_size[t] + r_offset`` for leaf ``l`` and its tree ``t``.
    The river trees' nodes are numbered together, tree ``t`` from ``tree_root[t]`` to
    ``tree_end[t]``, its terminals ``r_terminals[tree_terms[t]:tree_terms_end[t]]`` (the
    showdowns first, ``tree_shows[t]`` of them)."""

    t_kind: IntArray  # per turn node: DECISION_NODE, FOLD_NODE or CHANCE_NODE (a leaf)
    t_actor: IntArray  # the player to act at a decision, else -1
    t_parent: IntArray  # -1 at the root
    t_child: IntArray  # (nodes, most actions): the child after each legal action, else -1
    t_taken: IntArray  # the action index taken at the parent to get here (-1 at the root)
    t_num_actions: IntArray
    t_value: FloatArray  # fold: player 0's payoff; leaf: each player's stake; else 0
    t_leaf: IntArray  # a leaf's number (its blocks' l), else -1
    t_offset: IntArray  # a decision node's first entry
    leaf_tree: IntArray  # per leaf: its river tree
    leaf_base: IntArray  # per leaf: its first block's first entry
    tree_root: IntArray  # per river tree: its first node
    tree_end: IntArray  # per river tree: one past its last node
    tree_size: IntArray  # per river tree: entries of one block
    tree_terms: IntArray  # per river tree: its first terminal in `r_terminals`
    tree_terms_end: IntArray
    tree_shows: IntArray  # per river tree: how many of its terminals are showdowns
    r_kind: IntArray  # per river node: DECISION_NODE, FOLD_NODE or SHOWDOWN_NODE
    r_actor: IntArray
    r_parent: IntArray
    r_child: IntArray  # (nodes, most actions)
    r_taken: IntArray
    r_num_actions: IntArray
    r_sign: FloatArray  # fold: -1 if player 0 folded, +1 if player 1; showdown: 1; else 0
    r_extra: FloatArray  # fold: the folder's chips put in on the river; showdown: each's
    r_offset: IntArray  # a decision node's first entry inside a block
    r_row: IntArray  # (2, nodes): the node whose reach row a player's reach is (its own where
    # the player acted at the parent, else the parent's row: reach only changes where one acts)
    r_terminals: IntArray  # per tree, its showdowns, then its folds
    hands: IntArray  # (H, 2): the turn's hands, as card ids
    order: IntArray  # (C, HR): per river card, the turn hands off it, weakest first
    strength: IntArray  # (C, HR): their values on the board and that card (equal ones tie)
    sorted_cards: IntArray  # (C, HR, 2): their cards, in that order
    card_scratch: FloatArray  # one entry per card id
    weight: float  # a river card's probability given both hands
    river_base: int  # the first river entry (the turn's entry count)
    entries: int  # every entry, the turn's and the river's


@dataclass(frozen=True, slots=True, eq=False)
class TurnSubgame:
    """A compiled turn subgame: `arrays`, and per turn node its betting; the river's betting at
    each leaf is that leaf's betting followed by the river tree's (`river_betting`)."""

    rules: HoldemRules
    board: tuple[int, ...]
    arrays: TurnArrays
    betting: tuple[Betting, ...]
    river_betting: tuple[tuple[Betting, ...], ...]  # per leaf, per river node
    river_cards: tuple[int, ...]
    hand_ids: IntArray  # per turn hand: its row of `subgame.hand_cards(rules)`

    @property
    def leaves(self) -> IntArray:
        return np.flatnonzero(self.arrays.t_kind == CHANCE_NODE)

    @property
    def entries(self) -> int:
        return self.arrays.entries

    def node(self, betting: Betting) -> int:
        """The turn node of `betting` (KeyError if it is not one)."""
        return self.node_of(betting.acpc())

    def node_of(self, acpc: str) -> int:
        """The turn node whose betting ACPC writes `acpc` (a leaf's ends in ``/``)."""
        for n, b in enumerate(self.betting):
            if b.acpc() == acpc:
                return n
        raise KeyError(acpc)

    def river_node(self, leaf: int, betting: Betting) -> int:
        """The river node of `betting` below turn node `leaf` (numbered as `arrays` number
        them, every tree's together)."""
        number = int(self.arrays.t_leaf[leaf])
        wanted = betting.acpc()
        for n, b in enumerate(self.river_betting[number]):
            if b.acpc() == wanted:
                return int(self.arrays.tree_root[self.arrays.leaf_tree[number]]) + n
        raise KeyError(wanted)


def _tree(start: Betting, stop_round: int
          ) -> tuple[list[Betting], list[int], list[int], list[list[int]]]:
    """The betting below `start` in pre-order, stopping where round `stop_round` begins: the
    nodes, their parents, the action index taken at the parent, and children."""
    nodes: list[Betting] = []
    parents: list[int] = []
    taken: list[int] = []
    children: list[list[int]] = []
    stack = [(start, -1, -1)]
    while stack:
        b, parent, index = stack.pop()
        me = len(nodes)
        nodes.append(b)
        parents.append(parent)
        taken.append(index)
        children.append([])
        if parent >= 0:
            children[parent].append(me)
        if b.over or b.round >= stop_round:
            continue
        actions = b.legal_actions()
        stack.extend((b.apply(actions[i]), me, i) for i in reversed(range(len(actions))))
    return nodes, parents, taken, children


def _child_table(children: list[list[int]]) -> IntArray:
    out = np.full((len(children), max([len(k) for k in children] + [1])), -1, np.int64)
    for n, kids in enumerate(children):
        out[n, :len(kids)] = kids
    return out


def compile_turn(rules: HoldemRules, betting: Betting, board: tuple[int, ...],
                 hand_cards: IntArray) -> TurnSubgame:
    """The subgame below `betting` (in the second-to-last round, a player to act) on `board`
    (the cards dealt so far); `hand_cards` numbers the hands (`subgame.hand_cards`)."""
    last = rules.num_rounds - 1
    if betting.over or betting.round != last - 1:
        raise ValueError(f"a turn subgame starts in round {last} with a player to act, not at "
                         f"{betting.acpc()!r}")
    if rules.board_cards[last] != 1 or len(board) != rules.board_dealt(last - 1):
        raise ValueError(f"{rules.spec}: a turn subgame needs the turn's "
                         f"{rules.board_dealt(last - 1)} board cards and one card on the river")
    nodes, parents, taken, children = _tree(betting, last)
    kind = np.array([FOLD_NODE if b.over and b.folded >= 0 else
                     CHANCE_NODE if b.over or b.round == last else DECISION_NODE
                     for b in nodes], np.int64)
    actor = np.where(kind == DECISION_NODE, [b.player for b in nodes], -1).astype(np.int64)
    num_actions = np.array([len(k) for k in children], np.int64)
    value = np.zeros(len(nodes))
    for n, b in enumerate(nodes):
        if kind[n] == FOLD_NODE:
            value[n] = -b.spent[0] if b.folded == 0 else b.spent[1]
        elif kind[n] == CHANCE_NODE:
            value[n] = b.spent[0]
    leaf = np.full(len(nodes), -1, np.int64)
    leaf[kind == CHANCE_NODE] = np.arange(int((kind == CHANCE_NODE).sum()))
    leaves = np.flatnonzero(kind == CHANCE_NODE).tolist()

    off_board = [h for h in range(len(hand_cards)) if not set(hand_cards[h].tolist()) & set(board)]
    hand_ids = np.array(off_board, np.int64)
    hands = hand_cards[hand_ids]
    count = len(hands)
    t_offset = np.zeros(len(nodes), np.int64)
    at = 0
    for n in range(len(nodes)):
        t_offset[n] = at
        if kind[n] == DECISION_NODE:
            at += int(num_actions[n]) * count
    river_base = at

    river_cards = tuple(c for c in range(rules.num_cards) if c not in board)
    rivers_given_hands = rules.num_cards - len(board) - 2 * rules.hole_cards
    orders, strengths = _river_orders(rules, board, hands, river_cards)
    river = _RiverTrees(orders.shape[1])
    river_nodes: list[list[Betting]] = []
    leaf_tree, leaf_base = [], []
    at = river_base
    for n in leaves:
        tree, up, index, kids = _tree(nodes[n], last + 1)
        river_nodes.append(tree)
        number = river.add(tree, up, index, kids, nodes[n].spent[0])
        leaf_tree.append(number)
        leaf_base.append(at)
        at += len(river_cards) * river.sizes[number]
    cards_sorted = hands[orders] if orders.size else np.zeros((0, 0, 2), np.int64)
    arrays = TurnArrays(
        t_kind=kind, t_actor=actor, t_parent=np.array(parents, np.int64),
        t_child=_child_table(children), t_taken=np.array(taken, np.int64),
        t_num_actions=num_actions, t_value=value, t_leaf=leaf, t_offset=t_offset,
        leaf_tree=np.array(leaf_tree, np.int64), leaf_base=np.array(leaf_base, np.int64),
        **river.arrays(), hands=hands,
        order=orders, strength=strengths, sorted_cards=np.ascontiguousarray(cards_sorted),
        card_scratch=np.zeros(rules.num_cards), weight=1.0 / rivers_given_hands,
        river_base=river_base, entries=at)
    return TurnSubgame(rules, tuple(board), arrays, tuple(nodes),
                       tuple(tuple(t) for t in river_nodes), river_cards, hand_ids)


class _RiverTrees:
    """The river trees below a turn subgame's leaves, each kept once: leaves whose rivers are
    the same betting with the same chips at every terminal share one."""

    def __init__(self, width: int) -> None:
        self.width = width  # hands of a block
        self.found: dict[tuple[object, ...], int] = {}
        self.sizes: list[int] = []
        self.parts: list[dict[str, np.ndarray]] = []
        self.nodes = 0

    def add(self, tree: list[Betting], up: list[int], index: list[int],
            kids: list[list[int]], top: int) -> int:
        """The number of the tree below a leaf whose stake is `top` (added if new)."""
        kind = np.array([(FOLD_NODE if b.folded >= 0 else SHOWDOWN_NODE) if b.over
                         else DECISION_NODE for b in tree], np.int64)
        actor = np.where(kind == DECISION_NODE, [b.player for b in tree], -1).astype(np.int64)
        count = np.array([len(k) for k in kids], np.int64)
        sign = np.array([(-1.0 if b.folded == 0 else 1.0) if kind[i] == FOLD_NODE else
                         1.0 if kind[i] == SHOWDOWN_NODE else 0.0 for i, b in enumerate(tree)])
        extra = np.array([(b.spent[b.folded] - top) if kind[i] == FOLD_NODE else
                          (b.spent[0] - top) if kind[i] == SHOWDOWN_NODE else 0.0
                          for i, b in enumerate(tree)], np.float64)
        key = (kind.tobytes(), actor.tobytes(), tuple(up), count.tobytes(), sign.tobytes(),
               extra.tobytes())
        if key in self.found:
            return self.found[key]
        first = self.nodes
        row = np.zeros((2, len(tree)), np.int64)
        for p in (0, 1):
            for i in range(1, len(tree)):
                row[p, i] = i if actor[up[i]] == p else row[p, up[i]]
        offset = np.zeros(len(tree), np.int64)
        size = 0
        for i in range(len(tree)):
            offset[i] = size
            if kind[i] == DECISION_NODE:
                size += int(count[i]) * self.width
        children = _child_table(kids)
        up_ = np.array(up, np.int64)
        self.parts.append({
            "r_kind": kind, "r_actor": actor, "r_parent": np.where(up_ >= 0, up_ + first, -1),
            "r_child": np.where(children >= 0, children + first, -1),
            "r_taken": np.array(index, np.int64), "r_num_actions": count, "r_sign": sign,
            "r_extra": extra, "r_offset": offset, "r_row": row + first,
            "r_terminals": np.concatenate([np.flatnonzero(kind == SHOWDOWN_NODE),
                                           np.flatnonzero(kind == FOLD_NODE)]) + first,
            "shows": np.array([int((kind == SHOWDOWN_NODE).sum())])})
        self.sizes.append(size)
        self.nodes += len(tree)
        self.found[key] = len(self.sizes) - 1
        return len(self.sizes) - 1

    def arrays(self) -> dict[str, np.ndarray]:
        """The trees' fields of `TurnArrays`."""
        parts = self.parts
        nodes = np.array([len(p["r_kind"]) for p in parts], np.int64)
        terminals = np.array([len(p["r_terminals"]) for p in parts], np.int64)
        ends, terms = np.cumsum(nodes), np.cumsum(terminals)
        width = max([p["r_child"].shape[1] for p in parts] + [1])
        out = {name: np.concatenate([p[name] for p in parts]) if parts else
               np.zeros(0, np.float64 if name in ("r_sign", "r_extra") else np.int64)
               for name in ("r_kind", "r_actor", "r_parent", "r_taken", "r_num_actions",
                            "r_sign", "r_extra", "r_offset", "r_terminals")}
        out["r_child"] = np.concatenate(
            [np.pad(p["r_child"], ((0, 0), (0, width - p["r_child"].shape[1])),
                    constant_values=-1) for p in parts]) if parts else np.zeros((0, 1), np.int64)
        out["r_row"] = (np.concatenate([p["r_row"] for p in parts], axis=1) if parts
                        else np.zeros((2, 0), np.int64))
        out["r_terminals"] = out["r_terminals"].astype(np.int64)
        out["tree_root"] = ends - nodes
        out["tree_end"] = ends
        out["tree_size"] = np.array(self.sizes, np.int64)
        out["tree_terms"] = terms - terminals
        out["tree_terms_end"] = terms
        out["tree_shows"] = np.array([int(p["shows"][0]) for p in parts], np.int64)
        return out


def _river_orders(rules: HoldemRules, board: tuple[int, ...], hands: IntArray,
                  river_cards: tuple[int, ...]) -> tuple[IntArray, IntArray]:
    """Per river card, the turn hands off it from the weakest to the strongest, and their
    values."""
    standard = rules.deck.standard_ids
    orders, strengths = [], []
    for card in river_cards:
        live = np.flatnonzero((hands != card).all(axis=1))
        full = np.broadcast_to(np.array(board + (card,), np.int64), (len(live), len(board) + 1))
        values = rank_hands(standard[np.hstack([hands[live], full])]).astype(np.int64)
        order = np.argsort(values, kind="stable")
        orders.append(live[order])
        strengths.append(values[order])
    return np.array(orders, np.int64), np.array(strengths, np.int64)

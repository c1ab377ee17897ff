"""The compiled form of a game: the flat arrays every full-width kernel iterates over.

The arrays describe the game's *public tree*.  A public node groups all histories that share a
public key (the bid history, the betting and the board); inside it each player holds one of a
few private states (a card, a die), and an information set is exactly one (public node, private
state of the player to move) pair.  Iterating over public nodes and vectorising over private
states visits every history while touching each public decision only once: for Dudo that is
4,096 bid sequences x 6 faces instead of 294,883 Python states.

Chance is folded in: private deals multiply into every history's chance reach, which ends up in
the terminal payoff matrices ``M[i0, i1] = sum chance reach x payoff of player 0``.  The reach
vectors then carry the players' own contributions only, and a counterfactual value at a terminal
is a matrix-vector product with the opponent's reach.

Node numbering is a pre-order: a node's parent always has a smaller index, so a forward loop is a
top-down pass and a backward loop a bottom-up pass.

Two objects hold a compiled game: `TreeArrays`, the numeric arrays as one named tuple that the
numba kernels take as a single argument, and `PublicTree`, which adds the Python side (the
information sets' keys, actions and labels).  `solver.engine.compile.compile_game` builds both
by walking a game's states; an engine that knows its public tree can skip the walk and call
`pack_tree` on its own arrays, then ``PublicTree(name, arrays, keys, actions, labels)`` (a game
that does so says it by a ``compile_public_tree()`` method, `CompilesItself`).

Card games with a board do not fit payoff matrices: the private states are hands, a node holds
every hand that misses the board (hundreds), and two hands that share a card cannot meet.  Their
terminals are `FOLD_NODE` and `SHOWDOWN_NODE`, described by the card fields of `TreeArrays`
(`CardTerminals` to `pack_tree`): a fold pays the same for every deal, and a showdown pays by
the order of the hands' strengths on the node's board, both with card removal.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike, NDArray

from solver.engine.node_kinds import (
    DECISION_NODE,
    FOLD_NODE,
    SHOWDOWN_NODE,
    TERMINAL_NODE,
)

IntArray = NDArray[np.int64]
FloatArray = NDArray[np.float64]


class TreeArrays(NamedTuple):
    """A public tree's arrays, packed for the kernels (numba takes a named tuple of arrays as one
    argument).  Build it with `pack_tree`, which derives the offsets and checks the layout.

    Each player numbers its *slots* (one per private state it may hold at a node) node by node:
    player p's slots at node n are ``slot_offset[p, n] .. slot_offset[p, n] + slot_count[p, n]
    - 1``.  The per-slot arrays have one row per player, padded with -1 to the longer row.
    The (information set, action) arrays of the solvers, one *regret index* per entry, run
    over the decision nodes in order, the actor's slots inside a node, the actions inside a slot.
    """

    kind: IntArray  # per node: a `solver.engine.node_kinds` constant
    actor: IntArray  # per node: the player to move at a decision node, else -1
    parent: IntArray  # per node: its parent, -1 at the root (node 0)
    num_actions: IntArray  # per node: legal actions at a decision node, else 0
    regret_offset: IntArray  # per node: regret index of its first (slot, action) pair
    slot_offset: IntArray  # (2, nodes): each player's first slot at each node
    slot_count: IntArray  # (2, nodes): each player's number of private states at each node
    slot_parent: IntArray  # (2, slots): the slot at the parent node it came from, -1 at root
    slot_edge: IntArray  # (2, slots): regret index of the action the player took at the parent
    # node to get here if it acted there, else -1 (chance or the other player moved)
    payoff_offset: IntArray  # per node: first index of a terminal's matrix in `payoffs`
    payoffs: FloatArray  # per terminal, row-major (player 0 slot, player 1 slot): player 0's
    # payoff summed over the histories of that cell, each weighted by its chance probability
    # Card games with a board (`FOLD_NODE`, `SHOWDOWN_NODE`; empty or -1 in other games).  At
    # those nodes both players' slots are the same hands in the same order.
    terminal_value: FloatArray  # per node: at a fold player 0's payoff, at a showdown the stake
    # the stronger hand wins, each times the chance probability of one deal of the node's cards
    # (the same for every deal); else 0
    showdown_offset: IntArray  # per node: at a showdown, where its board's hand order starts in
    # `showdown_order`; else -1
    showdown_order: IntArray  # per board: the slots (0 .. count - 1) from the weakest hand to
    # the strongest, boards one after the other
    showdown_strength: IntArray  # alongside `showdown_order`: each hand's value; equal ones tie
    slot_hand: IntArray  # (2, slots): the hand a slot holds, a row of `hand_cards`; else -1
    hand_cards: IntArray  # (hands, cards per hand): the card ids of each hand
    card_scratch: FloatArray  # one entry per card id: where the terminal kernels sum reach per
    # card, so a tree serves one kernel call at a time


class CardTerminals(NamedTuple):
    """What `pack_tree` needs for `FOLD_NODE` and `SHOWDOWN_NODE` terminals: `terminal_value`
    and `showdown_offset` per node, `showdown_order` and `showdown_strength` per board,
    `slot_hand` per player (in its slot numbering) and `hand_cards`, as in `TreeArrays`."""

    terminal_value: ArrayLike
    showdown_offset: ArrayLike
    showdown_order: ArrayLike
    showdown_strength: ArrayLike
    slot_hand: Sequence[ArrayLike]
    hand_cards: ArrayLike


def pack_tree(kind: ArrayLike, actor: ArrayLike, parent: ArrayLike, num_actions: ArrayLike,
              slot_count: ArrayLike, slot_parent: Sequence[ArrayLike],
              slot_action: Sequence[ArrayLike], payoffs: ArrayLike,
              payoff_offset: ArrayLike | None = None,
              cards: CardTerminals | None = None) -> TreeArrays:
    """`TreeArrays` from what an engine knows about its public tree; the offsets and the edges
    are derived here.

    Per node, in a pre-order (``parent[n] < n``, root 0): `kind`, `actor`, `parent`,
    `num_actions` as in `TreeArrays`, and `slot_count` (2 x nodes).  Per player p (a sequence of
    two arrays, each in p's slot numbering): ``slot_parent[p][s]`` the slot at the parent node
    (in the same numbering, -1 at the root) and ``slot_action[p][s]`` the index (0 ..
    num_actions - 1) of the action p took at the parent node if p acted there, else -1.
    `payoffs`: the terminals' matrices (``slot_count[0, n] x slot_count[1, n]``, row-major)
    concatenated in node order; or, with `payoff_offset` (per node: where its matrix starts in
    `payoffs`), matrices that terminals may share, for a game whose terminals pay alike (a Dudo
    call pays by the last bid and the caller only).  `cards`: what fold and showdown terminals
    need, if the tree has any.
    """
    kind = np.asarray(kind, np.int64)
    actor = np.asarray(actor, np.int64)
    parent = np.asarray(parent, np.int64)
    num_actions = np.asarray(num_actions, np.int64)
    slot_count = np.asarray(slot_count, np.int64)
    payoffs = np.asarray(payoffs, np.float64)
    n = len(kind)
    if not (len(actor) == len(parent) == len(num_actions) == n and slot_count.shape == (2, n)):
        raise ValueError("per-node arrays disagree in length")
    later = parent[1:]  # the parents of nodes 1, 2, ...
    if n == 0 or parent[0] != -1 or ((later < 0) | (later >= np.arange(1, n))).any():
        raise ValueError("nodes must be in pre-order: root first, every parent before its child")
    decision = kind == DECISION_NODE
    if (actor[decision] < 0).any() or (actor[decision] > 1).any():
        raise ValueError("a decision node's actor must be 0 or 1")
    slot_offset = np.zeros((2, n), np.int64)
    slot_offset[:, 1:] = np.cumsum(slot_count, axis=1)[:, :-1]
    regret_sizes = np.where(decision, slot_count[np.maximum(actor, 0), np.arange(n)], 0)
    regret_sizes = regret_sizes * num_actions
    regret_offset = np.zeros(n, np.int64)
    regret_offset[1:] = np.cumsum(regret_sizes)[:-1]
    width = int(slot_count.sum(axis=1).max())
    rows_parent = np.full((2, width), -1, np.int64)
    rows_edge = np.full((2, width), -1, np.int64)
    for p in (0, 1):
        parents = np.asarray(slot_parent[p], np.int64)
        actions = np.asarray(slot_action[p], np.int64)
        total = int(slot_count[p].sum())
        if parents.shape != (total,) or actions.shape != (total,):
            raise ValueError(f"player {p}: slot arrays must have {total} entries")
        node = np.repeat(np.arange(n), slot_count[p])
        above = parent[node]
        inner = above >= 0
        if (parents[~inner] != -1).any() or (actions[~inner] != -1).any():
            raise ValueError(f"player {p}: root slots have no parent slot and no action")
        local = parents - slot_offset[p, above]  # index among the parent node's slots
        if (inner & ((local < 0) | (local >= slot_count[p, above]))).any():
            raise ValueError(f"player {p}: a parent slot is not a slot of the parent node")
        acted = actions >= 0
        own = inner & decision[above] & (actor[above] == p)
        if (acted != own).any() or (actions[acted] >= num_actions[above[acted]]).any():
            raise ValueError(f"player {p}: an action index where the player did not act, none "
                             f"where it did, or one out of range")
        rows_parent[p, :total] = parents
        rows_edge[p, :total] = np.where(
            acted, regret_offset[above] + local * num_actions[above] + actions, -1)
    payoff_sizes = np.where(kind == TERMINAL_NODE, slot_count[0] * slot_count[1], 0)
    if payoff_offset is None:
        offsets = np.zeros(n, np.int64)
        offsets[1:] = np.cumsum(payoff_sizes)[:-1]
        if payoffs.shape != (int(payoff_sizes.sum()),):
            raise ValueError(f"payoffs must hold {int(payoff_sizes.sum())} entries, one matrix "
                             f"per terminal")
    else:
        offsets = np.asarray(payoff_offset, np.int64)
        terminal = kind == TERMINAL_NODE
        if offsets.shape != (n,) or (offsets[terminal] < 0).any() or (
                offsets[terminal] + payoff_sizes[terminal] > len(payoffs)).any():
            raise ValueError("payoff_offset must place every terminal's matrix inside payoffs")
    card_fields = _card_fields(kind, slot_offset, slot_count, width, cards)
    return TreeArrays(kind=kind, actor=actor, parent=parent, num_actions=num_actions,
                      regret_offset=regret_offset, slot_offset=slot_offset,
                      slot_count=slot_count, slot_parent=rows_parent, slot_edge=rows_edge,
                      payoff_offset=offsets, payoffs=payoffs, **card_fields)


def spans(starts: IntArray, counts: IntArray) -> IntArray:
    """The indices ``starts[i] .. starts[i] + counts[i] - 1`` for every i, concatenated."""
    total = int(counts.sum())
    begin = np.repeat(starts - np.concatenate(([0], np.cumsum(counts)[:-1])), counts)
    return begin + np.arange(total)


def _card_fields(kind: IntArray, slot_offset: IntArray, slot_count: IntArray, width: int,
                 cards: CardTerminals | None) -> dict[str, np.ndarray]:
    """The card fields of `TreeArrays`, checked: empty without `cards`."""
    n = len(kind)
    card_nodes = np.flatnonzero((kind == FOLD_NODE) | (kind == SHOWDOWN_NODE))
    if cards is None:
        if len(card_nodes):
            raise ValueError("fold and showdown terminals need the card fields (cards=...)")
        return {"terminal_value": np.zeros(n), "showdown_offset": np.full(n, -1, np.int64),
                "showdown_order": np.zeros(0, np.int64),
                "showdown_strength": np.zeros(0, np.int64),
                "slot_hand": np.full((2, width), -1, np.int64),
                "hand_cards": np.zeros((0, 1), np.int64), "card_scratch": np.zeros(0)}
    value = np.asarray(cards.terminal_value, np.float64)
    offset = np.asarray(cards.showdown_offset, np.int64)
    order = np.asarray(cards.showdown_order, np.int64)
    strength = np.asarray(cards.showdown_strength, np.int64)
    hand_cards = np.asarray(cards.hand_cards, np.int64)
    if value.shape != (n,) or offset.shape != (n,) or order.shape != strength.shape:
        raise ValueError("terminal_value and showdown_offset need one entry per node, and "
                         "showdown_strength one per entry of showdown_order")
    if hand_cards.ndim != 2 or hand_cards.shape[1] not in (1, 2) or (hand_cards < 0).any():
        raise ValueError("hand_cards must list one or two card ids per hand")
    rows = np.full((2, width), -1, np.int64)
    for p in (0, 1):
        hands = np.asarray(cards.slot_hand[p], np.int64)
        if hands.shape != (int(slot_count[p].sum()),):
            raise ValueError(f"player {p}: slot_hand needs one hand per slot")
        if len(hands) and (hands.min() < 0 or hands.max() >= len(hand_cards)):
            raise ValueError(f"player {p}: slot_hand names a hand that is not in hand_cards")
        rows[p, :len(hands)] = hands
    counts = slot_count[0, card_nodes]
    if (counts != slot_count[1, card_nodes]).any() or not np.array_equal(
            rows[0, spans(slot_offset[0, card_nodes], counts)],
            rows[1, spans(slot_offset[1, card_nodes], counts)]):
        raise ValueError("at a fold or showdown both players' slots must be the same hands in "
                         "the same order")
    showdowns = np.flatnonzero(kind == SHOWDOWN_NODE)
    counts = slot_count[0, showdowns]
    if (offset[showdowns] < 0).any() or (offset[showdowns] + counts > len(order)).any():
        raise ValueError("a showdown's order runs outside showdown_order")
    entries = spans(offset[showdowns], counts)
    if ((order[entries] < 0) | (order[entries] >= np.repeat(counts, counts))).any():
        raise ValueError("showdown_order holds a slot outside its node")
    later = np.ones(len(entries), bool)
    later[np.concatenate(([0], np.cumsum(counts)[:-1]))[counts > 0]] = False
    if (np.diff(strength[entries], prepend=0)[later] < 0).any():
        raise ValueError("showdown_order must run from the weakest hand to the strongest")
    scratch = np.zeros(int(hand_cards.max(initial=-1)) + 1)
    return {"terminal_value": value, "showdown_offset": offset, "showdown_order": order,
            "showdown_strength": strength, "slot_hand": rows, "hand_cards": hand_cards,
            "card_scratch": scratch}


@dataclass(frozen=True, slots=True, eq=False)
class PublicTree:
    """A compiled game: the kernels' `arrays` and the information sets in their order.

    Information set i is the i-th (decision node, actor slot) pair in node order, so its
    entries in the flat (infoset, action) arrays start at ``infoset_regret_offset[i]`` and
    follow ``infoset_actions[i]``; ``infoset_node`` and ``infoset_player`` are derived from the
    arrays.
    """

    game: str
    arrays: TreeArrays
    infoset_keys: tuple[str, ...]
    infoset_actions: tuple[tuple[int, ...], ...]  # legal action ids per infoset
    infoset_labels: tuple[tuple[str, ...], ...]
    node_keys: tuple[str, ...] = ()
    """Per node, its public key (empty if the engine did not name its nodes)."""
    node_labels: tuple[str, ...] = ()
    """Per node, the label of the move that led to it from its parent (an action's or a chance
    outcome's; empty at the root)."""
    chance_mass: FloatArray | None = None
    """Laid out like `arrays.payoffs`: the chance probability of each terminal cell, so that a
    pass with these in place of the payoffs measures how likely positions are (see
    `solver.algorithms.action_values`). None if the engine did not provide it."""
    deal_weight: FloatArray | None = None
    """Per node, for a card game's fold and showdown terminals: the chance probability of one
    deal of the node's cards (what `chance_mass` is for matrix terminals)."""
    infoset_node: IntArray = field(init=False)
    infoset_player: IntArray = field(init=False)
    infoset_regret_offset: IntArray = field(init=False)  # per infoset, and one past the end

    def __post_init__(self) -> None:
        a = self.arrays
        decisions = np.flatnonzero(a.kind == DECISION_NODE)
        counts = a.slot_count[a.actor[decisions], decisions]
        node = np.repeat(decisions, counts)
        if not (len(self.infoset_keys) == len(self.infoset_actions) == len(self.infoset_labels)
                == len(node)):
            raise ValueError(f"{self.game}: {len(node)} information sets in the arrays, "
                             f"{len(self.infoset_keys)} keys")
        sizes = np.array([len(actions) for actions in self.infoset_actions], np.int64)
        if not np.array_equal(sizes, a.num_actions[node]):
            raise ValueError(f"{self.game}: infoset actions disagree with num_actions")
        offsets = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
        object.__setattr__(self, "infoset_node", node)
        object.__setattr__(self, "infoset_player", a.actor[node])
        object.__setattr__(self, "infoset_regret_offset", offsets)

    @property
    def num_nodes(self) -> int:
        return len(self.arrays.kind)

    @property
    def num_infosets(self) -> int:
        return len(self.infoset_keys)

    @property
    def num_regrets(self) -> int:
        """Length of the flat (information set, action) arrays."""
        return int(self.infoset_regret_offset[-1])

    def num_slots(self, player: int) -> int:
        """Length of `player`'s per-slot arrays (reach, values)."""
        return int(self.arrays.slot_count[player].sum())

    def unit_arrays(self) -> TreeArrays | None:
        """The arrays of the same tree where every terminal pays player 0 the chance
        probability of its deal instead of its payoff: a pass over them weighs positions by
        how likely chance and the opponent make them (`solver.algorithms.action_values`). None if
        the engine did not provide the probabilities."""
        a = self.arrays
        cards = (a.kind == FOLD_NODE) | (a.kind == SHOWDOWN_NODE)
        if cards.any():
            if self.deal_weight is None:
                return None
            # A fold pays the same to every compatible deal: one that pays the weight counts
            # the deals, showdown or not.
            return a._replace(kind=np.where(cards, FOLD_NODE, a.kind),
                              terminal_value=np.where(cards, self.deal_weight, 0.0))
        if self.chance_mass is None:
            return None
        return a._replace(payoffs=self.chance_mass)


def smallest_tree() -> PublicTree:
    """The smallest public tree: player 0, in its one private state, picks one of two terminals
    paying it +1 or -1.  Numba compiles a kernel once per type of its arguments, not per tree,
    so a solver run once on this tree has every kernel it needs compiled (or loaded from numba's
    cache) before the clock of a real solve starts."""
    arrays = pack_tree(kind=[DECISION_NODE, TERMINAL_NODE, TERMINAL_NODE], actor=[0, -1, -1],
                       parent=[-1, 0, 0], num_actions=[2, 0, 0],
                       slot_count=[[1, 1, 1], [1, 1, 1]], slot_parent=[[-1, 0, 0], [-1, 0, 0]],
                       slot_action=[[-1, 0, 1], [-1, -1, -1]], payoffs=[1.0, -1.0])
    return PublicTree("smallest", arrays, ("",), ((0, 1),), (("win", "lose"),),
                      chance_mass=np.ones(2))

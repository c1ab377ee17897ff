"""The public tree of a limit hold'em member, compiled straight from its rules.

Walking Python states, as `solver.engine.tree` does for small games, would visit every deal of
every betting line.  Here the tree is put together from its two independent parts instead:

* the *betting tree* (`solver.games.holdem.betting`): a few dozen to a few thousand lines,
  the same whatever the cards;
* the *boards*: before each round that deals cards, a chance node with one child per set of
  cards it can deal from what the board left (in increasing order of the cards).

A public node is a betting position on one board.  Its private states (*slots*) are the
hands that miss the board, the same list for both players in the order of `hands`, so a deal
of two colliding hands is simply a pair of slots the terminals leave out (card removal):

* a fold pays every deal the same, so a hand's value is the payoff times the opponent's reach
  over the hands that share no card with it, by inclusion-exclusion over its cards;
* a showdown pays by the order of strength on the board, computed here once per final board:
  the kernels sweep the hands in that order (`solver.engine.kernels.card_terminal_values`).

Chance is folded in as one number per node: every deal of the node's cards (two hands and the
board) has the same probability, ``1 / (C(N, k) C(N - k, k) prod_r C(N - 2k - B_(r-1), b_r))``
for an N-card deck, k hole cards and b_r board cards in round r, and a node's value sums over
the deals, so `terminal_value` is the payoff times that probability.

Slots, information-set keys and action labels are the states' own (a test compiles holdem-mini
both ways and compares), so a strategy solved here plays the game's states directly.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.cards.evaluator import rank_hands
from solver.cards.isomorphism import HandIndexer
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE, FOLD_NODE, SHOWDOWN_NODE
from solver.engine.tree import CardTerminals, PublicTree, TreeArrays, pack_tree
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules

IntArray = NDArray[np.int64]

MAX_SLOTS = 60_000_000
"""The most (public node, hand) pairs per player `HoldemEngine.arrays` builds: the arrays alone
take about 3 GB.  (The benchmark's 16-card, three-round member has 37.5 M and its compile peaks
at 4.7 GB.)"""


MAX_BETTING_NODES = 500_000
"""The most betting positions (cards aside) a member's tree may have: far more than any limit
member's (HULHE has 6,378 decisions), far fewer than the full no-limit game's at deep stacks."""


@dataclass(frozen=True, slots=True)
class _BettingNode:
    """One betting position, its legal actions and their labels, and its children (indices in
    the betting tree) by action index."""

    betting: Betting
    actions: tuple[int, ...]
    labels: tuple[str, ...]
    children: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class _Board:
    """A board as dealt so far, round by round: its cards, the hands that miss them, and where
    each of those sits among the hands of the board before this round's cards."""

    round: int  # the last round whose cards are on it (-1: nothing dealt)
    cards: tuple[int, ...]  # all its cards, in dealing order by round
    written: tuple[str, ...]  # each dealt round's cards as the keys write them
    hands: IntArray  # the hands that miss it, increasing
    from_parent: IntArray  # each of those hands' position in the parent board's `hands`


class _Nodes:
    """Per node, as the compiler writes them: the public key, the label of the move into it
    (an action, or the board cards dealt), and the chance probability of one deal at a
    terminal (0 elsewhere)."""

    __slots__ = ("keys", "labels", "weights")

    def __init__(self) -> None:
        self.keys: list[str] = []
        self.labels: list[str] = []
        self.weights: list[float] = []

    def add(self, key: str, label: str, weight: float) -> None:
        self.keys.append(key)
        self.labels.append(label)
        self.weights.append(weight)


class HoldemEngine:
    """Compiles one member: `public_tree()` for solving, `arrays()` alone for members too big
    to name every information set, `sizes()` without building anything."""

    def __init__(self, name: str, definition: HoldemRules) -> None:
        self.name = name
        """The member's name (its trees are filed under it)."""
        d = self.definition = definition
        self.hand_cards = np.array(list(itertools.combinations(range(d.num_cards), d.hole_cards)),
                                   np.int64).reshape(-1, d.hole_cards)
        """Every hand, its cards increasing; hands in lexicographic order."""
        self.hand_mask = np.bitwise_or.reduce(np.left_shift(1, self.hand_cards), axis=1)
        self.hand_names = tuple(self.written(h) for h in self.hand_cards)
        self.betting = _betting_tree(d)
        dealt = [2 * d.hole_cards + d.board_dealt(r) for r in range(d.num_rounds)]
        self.cards_dealt = tuple(dealt)
        """Cards dealt (hole and board) once each round's board is out."""

    # ---- sizes, counted without building anything ---------------------------------------

    def written(self, cards: Iterable[int]) -> str:
        """Cards high to low, as the game's keys write them (`HoldemGame.written`)."""
        return self.definition.deck.names(sorted(cards, reverse=True))

    def boards(self, round_: int, hole_cards_out: bool = False) -> int:
        """Board sequences (each round's cards as a set) once round `round_` is dealt: from
        the whole deck (the public nodes), or from what two hands leave (`hole_cards_out`)."""
        d = self.definition
        out, dealt = 1, 2 * d.hole_cards if hole_cards_out else 0
        for r in range(round_ + 1):
            out *= math.comb(d.num_cards - dealt, d.board_cards[r])
            dealt += d.board_cards[r]
        return out

    def sizes(self) -> dict[str, int | dict[str, int]]:
        """Exact counts: betting sequences, information sets, histories (every state, chance
        and terminal ones included, as `solver.algorithms.policy.iter_states` walks them), public
        nodes, (public node, hand) slots of both players, and the hands per round up to suits."""
        d = self.definition
        canonical = {}
        for r in range(d.num_rounds):
            shown = d.board_dealt(r)
            indexer = HandIndexer((d.hole_cards, shown) if shown else (d.hole_cards,), d.deck)
            canonical[f"round {r + 1}"] = indexer.size
        return {**self._counts(), "canonical_hands": canonical}

    def _counts(self) -> dict[str, int]:
        d = self.definition
        n, k = d.num_cards, d.hole_cards
        sequences = infosets = histories = public = slots = 0
        for node in self.betting:
            b = node.betting
            r = b.round
            boards = self.boards(r)
            hands = math.comb(n - d.board_dealt(r), k)
            histories += math.perm(n, self.cards_dealt[r])
            public += boards
            slots += boards * hands
            if b.rounds[-1] == "" and not b.over:  # a round starts: the cards before it
                dealing: tuple[int, ...] = (r,)
            elif b.over and b.folded < 0:  # all-in and called: the rest of the board
                dealing = tuple(range(max(i for i, bets in enumerate(b.rounds) if bets) + 1,
                                      r + 1))
            else:
                dealing = ()
            for k_round in dealing:
                before = self.cards_dealt[k_round - 1] if k_round > 0 else 0
                histories += sum(math.perm(n, i)
                                 for i in range(before, self.cards_dealt[k_round]))
                if d.board_cards[k_round] > 0:  # a public chance node deals the board
                    public += self.boards(k_round - 1)
                    slots += (self.boards(k_round - 1)
                              * math.comb(n - d.board_dealt(k_round - 1), k))
            if not b.over:
                sequences += 1
                infosets += boards * hands
        return {"betting_sequences": sequences, "information_sets": infosets,
                "histories": histories, "public_nodes": public, "slots": 2 * slots}

    # ---- the compiled tree ----------------------------------------------------------------

    def public_tree(self) -> PublicTree:
        """The tree with its information sets and public nodes named (`PublicTree`)."""
        arrays, keys, actions, labels, nodes = self._compile(with_keys=True)
        return PublicTree(self.name, arrays, tuple(keys), tuple(actions), tuple(labels),
                          node_keys=tuple(nodes.keys), node_labels=tuple(nodes.labels),
                          deal_weight=np.array(nodes.weights))

    def arrays(self) -> TreeArrays:
        """The kernels' arrays alone: what a best response on a member too big to name every
        information set in Python needs."""
        return self._compile(with_keys=False)[0]

    def _compile(self, with_keys: bool) -> tuple[TreeArrays, list[str], list[tuple[int, ...]],
                                                 list[tuple[str, ...]], _Nodes]:
        d = self.definition
        both = self._counts()["slots"]
        if both // 2 > MAX_SLOTS:
            raise ValueError(
                f"{self.name} has {both // 2:,} (public node, hand) pairs; the exact engine "
                f"builds at most {MAX_SLOTS:,}: the game needs an abstraction to be solved")
        n, k = d.num_cards, d.hole_cards
        weights = [1.0 / (math.comb(n, k) * math.comb(n - k, k) * self.boards(r, True))
                   for r in range(-1, d.num_rounds)]  # weights[r + 1]: once round r is dealt
        boards: list[_Board] = [_Board(-1, (), (), np.arange(len(self.hand_cards)),
                                       np.arange(len(self.hand_cards)))]
        kind: list[int] = []
        actor: list[int] = []
        parent: list[int] = []
        num_actions: list[int] = []
        board_of: list[int] = []
        taken: list[int] = []  # action index at the parent decision node, else -1
        value: list[float] = []
        keys: list[str] = []
        infoset_actions: list[tuple[int, ...]] = []
        infoset_labels: list[tuple[str, ...]] = []
        children_of: dict[int, list[int]] = {}
        nodes = _Nodes()

        def add(node_kind: int, who: int, above: int, board: int, index: int,
                payoff: float = 0.0, actions: int = 0) -> int:
            kind.append(node_kind)
            actor.append(who)
            parent.append(above)
            board_of.append(board)
            taken.append(index)
            value.append(payoff)
            num_actions.append(actions)
            return len(kind) - 1

        # Depth first in pre-order; an explicit stack of (betting node, board, parent, action
        # index at the parent, label of the move), children pushed in reverse so they come out
        # in order.
        stack = [(0, 0, -1, -1, "")]
        while stack:
            b_index, board, above, index, moved = stack.pop()
            node = self.betting[b_index]
            betting = node.betting
            r = betting.round
            here = boards[board]
            weight = weights[here.round + 1]
            if with_keys:
                nodes.add(self._public_key(betting, here), moved,
                          weight if betting.over else 0.0)
            deal = next((k for k in range(here.round + 1, r + 1) if d.board_cards[k] > 0), -1)
            # A no-limit all-in called before the last round deals the rest one round at a time.
            if deal >= 0 and (not betting.over or betting.folded < 0):
                chance = add(CHANCE_NODE, -1, above, board, index)
                dealt = self._deal(here, deal, boards, children_of, board)
                stack.extend((b_index, child, chance, -1, boards[child].written[deal])
                             for child in reversed(dealt))
                continue
            if betting.over:
                folded = betting.folded
                if folded >= 0:
                    lost = betting.spent[folded]
                    add(FOLD_NODE, -1, above, board, index,
                        weight * (-lost if folded == 0 else lost))
                else:
                    add(SHOWDOWN_NODE, -1, above, board, index, weight * betting.won())
                continue
            me = add(DECISION_NODE, betting.player, above, board, index,
                     actions=len(node.actions))
            if with_keys:
                public = self._public_key(betting, here)
                count = len(here.hands)
                keys.extend(f"{self.hand_names[h]}|{public}" for h in here.hands)
                infoset_actions.extend([node.actions] * count)
                infoset_labels.extend([node.labels] * count)
            stack.extend((node.children[i], board, me, i, node.labels[i])
                         for i in reversed(range(len(node.children))))

        arrays = self._pack(kind, actor, parent, num_actions, board_of, taken, value, boards)
        return arrays, keys, infoset_actions, infoset_labels, nodes

    def _deal(self, here: _Board, round_: int, boards: list[_Board],
              children_of: dict[int, list[int]], board: int) -> list[int]:
        """The boards after dealing round `round_`'s cards onto board number `board` (built
        once per board, then shared by every betting line that reaches it)."""
        known = children_of.get(board)
        if known is not None:
            return known
        d = self.definition
        used = set(here.cards)
        position = np.full(len(self.hand_cards), -1, np.int64)
        position[here.hands] = np.arange(len(here.hands))
        out = []
        for cards in itertools.combinations([c for c in range(d.num_cards) if c not in used],
                                            d.board_cards[round_]):
            mask = sum(1 << c for c in cards)
            hands = here.hands[(self.hand_mask[here.hands] & mask) == 0]
            written = here.written + ("",) * (round_ - here.round - 1) + (
                self.written(cards),)
            boards.append(_Board(round_, here.cards + cards, written, hands, position[hands]))
            out.append(len(boards) - 1)
        children_of[board] = out
        return out

    def _public_key(self, betting: Betting, board: _Board) -> str:
        """The state's `public_key` (see `solver.games.holdem.game`)."""
        segments: list[str] = []
        for r, bets in enumerate(betting.rounds):
            if r > 0 or self.definition.board_cards[0] > 0:
                segments.append(board.written[r] if r < len(board.written) else "")
            segments.append(bets)
        return "|".join(segments)

    def _pack(self, kind: list[int], actor: list[int], parent: list[int],
              num_actions: list[int], board_of: list[int], taken: list[int],
              value: list[float], boards: list[_Board]) -> TreeArrays:
        kinds = np.array(kind, np.int64)
        parents = np.array(parent, np.int64)
        actors = np.array(actor, np.int64)
        on = np.array(board_of, np.int64)
        # Every board's hands, and their places on the board before, end to end.
        sizes = np.array([len(b.hands) for b in boards], np.int64)
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
        all_hands = np.concatenate([b.hands for b in boards])
        all_from = np.concatenate([b.from_parent for b in boards])
        counts = sizes[on]
        slot_hand, slot_parent, slot_action = board_slots(
            parents, actors, on, np.array(taken, np.int64), counts, starts, all_hands, all_from)
        order, strength, offset = showdown_orders(
            self.definition, self.hand_cards, [b.hands for b in boards], [b.cards for b in boards],
            kinds, on)
        showdown_offset = np.where(kinds == SHOWDOWN_NODE, offset[on], -1)
        return pack_tree(
            kind=kinds, actor=actors, parent=parents, num_actions=num_actions,
            slot_count=np.stack([counts, counts]), slot_parent=[slot_parent, slot_parent],
            slot_action=[slot_action[0], slot_action[1]], payoffs=np.zeros(0),
            cards=CardTerminals(terminal_value=np.array(value), showdown_offset=showdown_offset,
                                showdown_order=order, showdown_strength=strength,
                                slot_hand=[slot_hand, slot_hand], hand_cards=self.hand_cards))


def showdown_orders(rules: HoldemRules, hand_cards: IntArray, board_hands: Sequence[IntArray],
                    board_cards: Sequence[Sequence[int]], kind: IntArray, on: IntArray,
                    ) -> tuple[IntArray, IntArray, IntArray]:
    """Per board that holds a showdown (`on`: each node's board; `board_hands[b]`: the rows of
    `hand_cards` its slots hold), its hands as slot indices from the weakest to the strongest,
    with their values; and each board's offset into them (-1 for none)."""
    standard = rules.deck.standard_ids
    offset = np.full(len(board_hands), -1, np.int64)
    orders: list[IntArray] = []
    strengths: list[IntArray] = []
    start = 0
    for b in np.unique(on[kind == SHOWDOWN_NODE]).tolist():
        held = hand_cards[board_hands[b]]
        table = np.hstack([held, np.broadcast_to(np.array(board_cards[b], np.int64),
                                                 (len(held), len(board_cards[b])))])
        values = rank_hands(standard[table]).astype(np.int64)
        order = np.argsort(values, kind="stable")
        orders.append(order)
        strengths.append(values[order])
        offset[b] = start
        start += len(order)
    if not orders:
        return np.zeros(0, np.int64), np.zeros(0, np.int64), offset
    return np.concatenate(orders), np.concatenate(strengths), offset


@njit(cache=True)
def board_slots(parent: IntArray, actor: IntArray, board: IntArray, taken: IntArray,
                count: IntArray, start: IntArray, hands: IntArray, from_parent: IntArray,
                ) -> tuple[IntArray, IntArray, IntArray]:
    """Every node's slots, node after node: the hand each holds, its slot at the parent node
    (the same hand; after a deal, its place among the hands of the board before) and the
    index of the action taken at the parent by each player (-1 where it did not act).  One
    pass with no temporaries, for members with tens of millions of slots."""
    total = count.sum()
    slot_hand = np.empty(total, np.int64)
    slot_parent = np.empty(total, np.int64)
    slot_action = np.full((2, total), -1, np.int64)
    offset = np.empty(parent.shape[0], np.int64)
    s = 0
    for n in range(parent.shape[0]):
        offset[n] = s
        b = board[n]
        above = parent[n]
        dealt = above >= 0 and board[above] != b
        for j in range(count[n]):
            slot_hand[s + j] = hands[start[b] + j]
            if above < 0:
                slot_parent[s + j] = -1
            elif dealt:
                slot_parent[s + j] = offset[above] + from_parent[start[b] + j]
            else:
                slot_parent[s + j] = offset[above] + j
        if above >= 0 and actor[above] >= 0:
            slot_action[actor[above], s:s + count[n]] = taken[n]
        s += count[n]
    return slot_hand, slot_parent, slot_action


def _betting_tree(rules: HoldemRules) -> tuple[_BettingNode, ...]:
    """The betting positions in depth-first pre-order, children by action index."""
    nodes: list[_BettingNode] = []
    order: list[Betting] = []
    children: list[list[int]] = []
    start = Betting.start(rules)
    stack: list[tuple[Betting, int, int]] = [(start, -1, -1)]
    while stack:  # depth first, children in action order; each made when its turn comes
        before, action, parent = stack.pop()
        betting = before if action < 0 else before.apply(action)
        if len(order) == MAX_BETTING_NODES:
            raise ValueError(
                f"{rules.spec} has more than {MAX_BETTING_NODES:,} betting positions, too many "
                f"to build: give it a bet abstraction (bettingAbstraction=fcpa, or sizes such "
                f"as 0.5p p a) or smaller stacks")
        if parent >= 0:
            children[parent].append(len(order))
        stack.extend((betting, a, len(order)) for a in reversed(betting.legal_actions()))
        order.append(betting)
        children.append([])
    for betting, kids in zip(order, children, strict=True):
        actions = betting.legal_actions()
        nodes.append(_BettingNode(betting, actions, tuple(betting.label(a) for a in actions),
                                  tuple(kids)))
    return tuple(nodes)

"""Dudo's public tree built directly as arrays, without walking a single game state.

A Dudo game is a tree of bid sequences: every increasing sequence of the 6(a + b) bids is a
decision node, and each ends in a call (dudo, or calzo).  With 18 bids (one die against two) that
is 2^18 decision nodes, 2^18 - 1 terminals and, below each, 6 x 21 dice pairs: some 33 million
histories, far too many to walk as Python states.  Everything about a node is arithmetic on its
bid sequence, so a numba loop lays the nodes out in the same pre-order as the generic compiler
(`solver.engine.compile.compile_game` walking the states), and every player has the same private
states (dice multisets) at every node, so the slot arrays are a few numpy expressions.

The private states are numbered as the generic walk first meets them: the walk pops the last
roll first, so slot j of a player is its roll ``count - 1 - j``.  With the same node order and
slot order the arrays are identical to the walked ones (a test checks it on every game small
enough to walk), except that terminals share their payoff matrices: a call pays according to
the last bid, the caller and the kind of call only, so 2 x (number of bids) matrices (twice
that with calzo) serve every terminal.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from solver.engine.node_kinds import DECISION_NODE, TERMINAL_NODE
from solver.engine.tree import PublicTree, pack_tree
from solver.games.dudo.rules import DudoRules, count_matching, dice_text, rolls, tables


@njit(cache=True)
def bid_tree(num_bids, calls):
    """The public tree of `num_bids` bids and `calls` kinds of call (1: dudo; 2: and calzo),
    in pre-order with children in action order.  Per node: kind, parent, the index of the
    action that led to it at the parent (-1 at the root), its number of bids so far (depth),
    the last bid (-1 before the first) and, at a terminal, the kind of call (0 dudo, 1 calzo;
    -1 elsewhere)."""
    decisions = 1 << num_bids
    total = decisions + calls * (decisions - 1)
    kind = np.empty(total, np.int64)
    parent = np.empty(total, np.int64)
    via = np.empty(total, np.int64)
    depth = np.empty(total, np.int64)
    last = np.empty(total, np.int64)
    call = np.empty(total, np.int64)
    kind[0], parent[0], via[0], depth[0], last[0], call[0] = DECISION_NODE, -1, -1, 0, -1, -1
    # The frames of the decision nodes being expanded: node and next action index.
    frame_node = np.empty(num_bids + 2, np.int64)
    frame_next = np.empty(num_bids + 2, np.int64)
    frame_node[0], frame_next[0] = 0, 0
    top = 0
    count = 1
    while top >= 0:
        node = frame_node[top]
        a = frame_next[top]
        higher = num_bids - 1 - last[node]
        actions = higher + (calls if last[node] >= 0 else 0)
        if a >= actions:
            top -= 1
            continue
        frame_next[top] = a + 1
        child = count
        count += 1
        parent[child] = node
        via[child] = a
        if a < higher:
            kind[child] = DECISION_NODE
            depth[child] = depth[node] + 1
            last[child] = last[node] + 1 + a
            call[child] = -1
            top += 1
            frame_node[top], frame_next[top] = child, 0
        else:
            kind[child] = TERMINAL_NODE
            depth[child] = depth[node]
            last[child] = last[node]
            call[child] = a - higher
    return kind, parent, via, depth, last, call


def tree_sizes(rules: DudoRules) -> dict[str, int]:
    """Exact counts of the tree `compile_dudo` builds, by arithmetic on the bids alone (so
    ``python -m solver info`` and the memory check of a solve need not build it): every
    increasing bid sequence is a decision node whose player holds one of its rolls, and each of
    the sequences (but the empty one) ends in a call, or two with calzo."""
    bids, calls = rules.num_bids, 2 if rules.calzo else 1
    held = (len(rolls(rules.dice[0], rules.faces)), len(rolls(rules.dice[1], rules.faces)))
    decisions = 1 << bids
    nodes = decisions + calls * (decisions - 1)
    # Sequences ending in bid `last`: the subsets of the bids below it, half of them (or the
    # one empty subset) of either parity; an even number of bids so far means player 0 moves.
    pairs = bids * held[0]  # the opening: every bid, for player 0's rolls
    for last in range(bids):
        odd = 1 if last == 0 else 1 << (last - 1)
        even = 0 if last == 0 else 1 << (last - 1)
        pairs += (bids - 1 - last + calls) * (even * held[0] + odd * held[1])
    return {"information_sets": (decisions // 2) * (held[0] + held[1]),
            "information_set_actions": pairs,
            "histories": 1 + held[0] + held[0] * held[1] * nodes,
            "public_nodes": nodes,
            "slots": nodes * (held[0] + held[1])}


def payoff_matrices(rules: DudoRules, loser_payoffs: tuple[float, float] = (-1.0, 1.0),
                    chance: bool = True) -> np.ndarray:
    """``[bid, caller, call, slot of player 0, slot of player 1]``: player 0's payoff times the
    dice's probability (unless not `chance`) when `caller` calls (0 dudo, 1 calzo) on `bid`.
    Player 0 gets ``loser_payoffs[0]`` when it loses the call and ``loser_payoffs[1]`` when
    player 1 does (a round of a match pays in match-winning chances)."""
    t = tables(rules)
    rolls = [tuple(reversed(t.rolls[p])) for p in (0, 1)]  # slot order
    calls = 2 if rules.calzo else 1
    out = np.zeros((rules.num_bids, 2, calls, len(rolls[0]), len(rolls[1])))
    for bid, (quantity, face) in enumerate(t.bids):
        counts = [np.array([count_matching(dice, face) for dice, _ in rolls[p]]) for p in (0, 1)]
        total = counts[0][:, None] + counts[1][None, :]
        weight = np.array([p for _, p in rolls[0]])[:, None] * np.array(
            [p for _, p in rolls[1]])[None, :] if chance else 1.0
        for c in range(calls):
            caller_wins = total < quantity if c == 0 else total == quantity
            for caller in (0, 1):
                player0_wins = caller_wins if caller == 0 else ~caller_wins
                out[bid, caller, c] = weight * np.where(player0_wins, loser_payoffs[1],
                                                        loser_payoffs[0])
    return out


def compile_dudo(name: str, rules: DudoRules,
                 loser_payoffs: tuple[float, float] = (-1.0, 1.0)) -> PublicTree:
    """The public tree of Dudo under `rules`, as `compile_game` would walk it (see the module's
    doc), named `name`; the calls pay as `payoff_matrices` says."""
    t = tables(rules)
    calls = 2 if rules.calzo else 1
    kind, parent, via, depth, last, call = bid_tree(rules.num_bids, calls)
    n = len(kind)
    decision = kind == DECISION_NODE
    actor = np.where(decision, depth % 2, -1)
    higher = rules.num_bids - 1 - last
    num_actions = np.where(decision, higher + np.where(last >= 0, calls, 0), 0)
    counts = (len(t.rolls[0]), len(t.rolls[1]))
    slot_count = np.array([np.full(n, counts[0]), np.full(n, counts[1])], np.int64)
    slot_parent, slot_action = [], []
    above = np.maximum(parent, 0)
    for p in (0, 1):
        own = np.repeat(np.arange(counts[p]), 1)[None, :]
        parents = np.where(parent[:, None] >= 0, above[:, None] * counts[p] + own, -1)
        acted = (parent >= 0) & (actor[above] == p)
        actions = np.where(acted[:, None], via[:, None], -1) + 0 * own
        slot_parent.append(parents.ravel())
        slot_action.append(actions.ravel())
    matrices = payoff_matrices(rules, loser_payoffs)
    size = counts[0] * counts[1]
    caller = actor[above]
    index = ((np.maximum(last, 0) * 2 + caller) * calls + np.maximum(call, 0)) * size
    arrays = pack_tree(kind, actor, parent, num_actions, slot_count, slot_parent, slot_action,
                       matrices.ravel(), payoff_offset=np.where(kind == TERMINAL_NODE, index, 0))
    keys, action_ids, labels, node_keys, node_labels = _infosets(
        rules, kind, parent, last, actor, num_actions, call)
    # The dice's probability of each cell, laid out like the payoffs (each call's matrix).
    chance = payoff_matrices(rules, (1.0, 1.0))
    return PublicTree(name, arrays, keys, action_ids, labels, node_keys=node_keys,
                      node_labels=node_labels, chance_mass=chance.ravel())


def _infosets(rules: DudoRules, kind: np.ndarray, parent: np.ndarray, last: np.ndarray,
              actor: np.ndarray, num_actions: np.ndarray, call: np.ndarray
              ) -> tuple[tuple[str, ...], tuple[tuple[int, ...], ...], tuple[tuple[str, ...], ...],
                         tuple[str, ...], tuple[str, ...]]:
    """Keys, action ids and labels of the information sets in the tree's order (each decision
    node's actor slots in turn), and every node's public key and the label of the move into
    it."""
    t = tables(rules)
    private = [[dice_text(dice) for dice, _ in reversed(t.rolls[p])] for p in (0, 1)]
    by_last = [t.after_bid[b] for b in range(rules.num_bids)]
    label_of = {ids: tuple(t.labels[a] for a in ids) for ids in (t.opening, *by_last)}
    public = [""] * len(kind)
    keys: list[str] = []
    actions: list[tuple[int, ...]] = []
    labels: list[tuple[str, ...]] = []
    bid_labels = t.labels
    moved = [""] * len(kind)
    calls = ("dudo", "calzo")
    for n in np.flatnonzero(kind != DECISION_NODE).tolist():  # the calls, ending a round
        moved[n] = calls[int(call[n])]
    kinds = kind.tolist()
    for n in range(len(kinds)):
        if kinds[n] != DECISION_NODE:
            up = int(parent[n])
            public[n] = f"{public[up]},{moved[n]}" if public[up] else moved[n]
            continue
        up = int(parent[n])
        b = int(last[n])
        if up >= 0:
            moved[n] = bid_labels[b]
            public[n] = bid_labels[b] if up == 0 else f"{public[up]},{bid_labels[b]}"
        ids = t.opening if b < 0 else by_last[b]
        assert len(ids) == num_actions[n]
        suffix = "|" + public[n]
        mine = private[int(actor[n])]
        keys.extend([own + suffix for own in mine])
        actions.extend([ids] * len(mine))
        labels.extend([label_of[ids]] * len(mine))
    return tuple(keys), tuple(actions), tuple(labels), tuple(public), tuple(moved)

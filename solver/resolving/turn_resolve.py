"""Re-solving a turn subgame (`solver.resolving.turn_subgame`) with a safe gadget.

The same algorithm as `solver.resolving.resolve.resolve` (CFR+ a player at a time, the
opponent's root reach set by CFR-D's gadget or max-margin's each iteration), run by
`solver.resolving.turn_kernel` over the dense layout; a test checks that both give
the same strategy on a small member.  What the next re-solve needs is kept, and nothing of
the size of the subgame: the player's reach at every turn node, the opponent's best-response
values at every turn node and at the river nodes where the player may act first, and the
player's strategy at the root.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numba
import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.bot import HulheBot
from solver.algorithms.cfr import SCHEDULES
from solver.engine.memory import MemoryEstimate, check
from solver.engine.node_kinds import DECISION_NODE
from solver.games.holdem.policy import HoldemPolicy
from solver.resolving.resolve import MODES, gadget_step
from solver.resolving.turn_kernel import (
    BEST_RESPONSE,
    UPDATE,
    Lanes,
    normalise,
    turn_pass,
    uniform_strategy,
)
from solver.resolving.turn_subgame import TurnSubgame

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
ENTRY_BYTES = 12
"""Per entry: the strategy, the regrets and the average, float32."""


@dataclass(frozen=True, slots=True, eq=False)
class TurnResolved:
    """A re-solved turn subgame (hands are the subgame's turn hands): the player's root
    strategy ``(actions, hands)``; its reach at every turn node ``(nodes, hands)``; the
    opponent's best-response counterfactual values at every turn node and, per leaf and river
    card, at `river_nodes` (per leaf, where the player acts first on the river: the root, or
    the nodes after the opponent's first action), ``(leaves, cards, k, hands)``; and
    the margins at the root (safe modes); `blueprint` if it is the strategy it started from
    played as it is (`played_as_is`), not a re-solve."""

    root_strategy: FloatArray
    own_reach: FloatArray
    opponent_values: FloatArray
    river_nodes: IntArray
    river_values: NDArray[np.float32]
    margins: FloatArray | None
    blueprint: bool = False


class Buffers:
    """The arrays of one subgame's solve, allocated once (after the memory check), with one
    river block's scratch per thread numba runs (`turn_kernel.Lanes`)."""

    def __init__(self, sub: TurnSubgame, threads: int | None = None) -> None:
        a = sub.arrays
        lanes = max(1, threads or numba.get_num_threads())
        width = a.order.shape[1]
        terminals = max(int((a.tree_terms_end - a.tree_terms).max(initial=0)), 1)
        leaves = len(sub.leaves)
        hands = len(a.hands)
        scratch = 8 * (lanes * (3 * len(a.r_kind) * width + 3 * (sub.rules.num_cards + 1)
                                * terminals + 2 * width * terminals)
                       + len(sub.river_cards) * leaves * hands)
        check(MemoryEstimate(f"re-solving the turn of {sub.rules.spec}",
                             ENTRY_BYTES * sub.entries + scratch,
                             f"{sub.entries:,} (decision, action, hand) entries"))
        self.strategy = np.zeros(sub.entries, np.float32)
        self.regrets = np.zeros(sub.entries, np.float32)
        self.average = np.zeros(sub.entries, np.float32)
        self.t_reach = np.zeros((2, len(a.t_kind), hands))
        self.t_values = np.zeros((len(a.t_kind), hands))
        self.lanes = Lanes(
            r_reach=np.zeros((lanes, 2, len(a.r_kind), width)),
            r_values=np.zeros((lanes, len(a.r_kind), width)),
            sums=np.zeros((lanes, 3, sub.rules.num_cards + 1, terminals)),
            held=np.zeros((lanes, width, terminals)),
            out=np.zeros((lanes, width, terminals)),
            card_values=np.zeros((len(sub.river_cards), leaves, hands)))
        self.none = np.zeros((0, 0), np.int64)
        self.no_out = np.zeros((1, 1, 1, 1))
        self.every = np.arange(len(sub.river_cards), dtype=np.int64)


def first_river_nodes(sub: TurnSubgame, player: int) -> IntArray:
    """Per leaf, the river nodes where `player` acts first: the root, or every node after the
    other's first action; ``(leaves, most of them)``, -1 after a leaf's own."""
    a = sub.arrays
    found: list[list[int]] = []
    for tree in a.leaf_tree.tolist():
        root = int(a.tree_root[tree])
        if a.r_kind[root] != DECISION_NODE:
            found.append([])
        elif a.r_actor[root] == player:
            found.append([root])
        else:
            found.append([c for c in a.r_child[root].tolist()
                          if c >= 0 and a.r_actor[c] == player])
    out = np.full((len(found), max([len(f) for f in found] + [1])), -1, np.int64)
    for leaf, nodes in enumerate(found):
        out[leaf, :len(nodes)] = nodes
    return out


def leaf_blocks(sub: TurnSubgame, out: NDArray[np.float32], leaf: int
                 ) -> tuple[NDArray[np.float32], int, int]:
    """Leaf `leaf`'s river blocks in `out` as ``(river cards, entries of a block)``, and its
    tree's first and last-plus-one node."""
    a = sub.arrays
    tree = int(a.leaf_tree[leaf])
    size = int(a.tree_size[tree])
    base = int(a.leaf_base[leaf])
    blocks = out[base:base + len(sub.river_cards) * size].reshape(len(sub.river_cards), size)
    return blocks, int(a.tree_root[tree]), int(a.tree_end[tree])


def blueprint_strategy(sub: TurnSubgame, player: int, blueprint: HoldemPolicy,
                       out: NDArray[np.float32]) -> None:
    """`out` (entries in the subgame's layout): `player`'s probabilities under `blueprint` at
    its decisions, uniform at the other's.  A `HulheBot` is read by bucket codes, every
    river card's at once; any other policy is asked once per decision and river card."""
    a = sub.arrays
    uniform_strategy(a, out)
    for n in np.flatnonzero((a.t_kind == DECISION_NODE) & (a.t_actor == player)).tolist():
        b = sub.betting[n]
        rows = blueprint.action_probabilities(b, sub.board, a.hands)[:, list(b.legal_actions())]
        out[a.t_offset[n]:a.t_offset[n] + rows.size] = rows.T.reshape(-1)
    cards = len(sub.river_cards)
    width = a.order.shape[1]
    holes = a.hands[a.order]  # (cards, width, 2)
    codes = None
    if isinstance(blueprint, HulheBot):
        boards = np.array([sub.board + (c,) for c in sub.river_cards], np.int64)
        deals = np.concatenate([holes, np.broadcast_to(boards[:, None, :], (
            cards, width, boards.shape[1]))], axis=2).reshape(cards * width, -1)
        codes = blueprint.codes_of(sub.rules.num_rounds - 1, deals).reshape(cards, width)
    for leaf in range(len(sub.leaves)):
        river, root, end = leaf_blocks(sub, out, leaf)
        for m in range(root, end):
            if a.r_kind[m] != DECISION_NODE or a.r_actor[m] != player:
                continue
            b = sub.river_betting[leaf][m - root]
            legal = list(b.legal_actions())
            if codes is not None and isinstance(blueprint, HulheBot):
                grid = blueprint.bucket_probabilities(b)[:, legal][codes]
            else:
                grid = np.stack([blueprint.action_probabilities(
                    b, sub.board + (card,), holes[c])[:, legal]
                    for c, card in enumerate(sub.river_cards)])
            start = int(a.r_offset[m])
            river[:, start:start + len(legal) * width] = grid.transpose(0, 2, 1).reshape(
                cards, -1)


def best_response_values(sub: TurnSubgame, player: int, own_range: FloatArray,
                         strategy: NDArray[np.float32], buffers: Buffers | None = None
                         ) -> FloatArray:
    """The opponent's best-response values at the root against `player` playing `strategy`
    (entries in the subgame's layout) from `own_range`."""
    b = buffers or Buffers(sub)
    roots = np.zeros((2, len(own_range)))
    roots[player] = own_range
    turn_pass(sub.arrays, 1 - player, BEST_RESPONSE, strategy, b.regrets, b.average, roots,
              b.t_reach, b.t_values, b.lanes, 1.0, 1.0, False, 1.0, 0.0,
              b.none, b.no_out, b.every, 1.0)
    values: FloatArray = b.t_values[0].copy()
    return values


def zero_entries(sub: TurnSubgame, player: int, out: NDArray[np.float32]) -> None:
    """`out`'s entries at `player`'s decisions set to 0."""
    a = sub.arrays
    hands = len(a.hands)
    for n in np.flatnonzero((a.t_kind == DECISION_NODE) & (a.t_actor == player)).tolist():
        out[a.t_offset[n]:a.t_offset[n] + a.t_num_actions[n] * hands] = 0.0
    width = a.order.shape[1]
    for leaf in range(len(sub.leaves)):
        river, root, end = leaf_blocks(sub, out, leaf)
        for m in range(root, end):
            if a.r_kind[m] == DECISION_NODE and a.r_actor[m] == player:
                river[:, a.r_offset[m]:a.r_offset[m] + a.r_num_actions[m] * width] = 0.0


def resolve_turn(sub: TurnSubgame, player: int, own_range: FloatArray, *, mode: str,
                 iterations: int, opponent_range: FloatArray | None = None,
                 alternatives: FloatArray | None = None, algorithm: str = "cfr+",
                 buffers: Buffers | None = None, sampled: int = 0, seed: int = 0,
                 warm: float = 0.0) -> TurnResolved:
    """Re-solve `sub` for `player` (who acts at its root) from its range `own_range` (over
    the subgame's hands); as `solver.resolving.resolve.resolve` takes its arguments.
    `sampled`: river cards an iteration plays, drawn anew each iteration (0: every card).
    `warm` > 0 starts from the strategy already in `buffers` (`blueprint_strategy`'s): each
    entry's regret starts at `warm` times its probability times the alternatives' mean size,
    so regret matching plays that strategy until the iterations' regrets outweigh it."""
    if mode not in MODES:
        raise ValueError(f"re-solving modes are {', '.join(MODES)}, not {mode!r}")
    a = sub.arrays
    hands = len(a.hands)
    if a.t_kind[0] != DECISION_NODE or a.t_actor[0] != player:
        raise ValueError("the player re-solves where it acts")
    other = 1 - player
    own = np.asarray(own_range, np.float64)
    if own.shape != (hands,):
        raise ValueError(f"the player has {hands} root hands")
    if mode == "unsafe":
        if opponent_range is None:
            raise ValueError("unsafe re-solving needs the opponent's range")
        root = np.array(opponent_range, np.float64)
        alt = np.zeros(hands)
    else:
        if alternatives is None:
            raise ValueError(f"{mode} re-solving needs the opponent's alternative values")
        alt = np.asarray(alternatives, np.float64)
        root = np.full(hands, 0.5 if mode == "resolve" else 1.0 / max(hands, 1))
    if root.shape != (hands,) or alt.shape != (hands,):
        raise ValueError(f"the opponent has {hands} root hands")
    if warm > 0.0 and buffers is None:
        raise ValueError("a warm start needs the buffers holding the strategy to start from")
    b = buffers or Buffers(sub)
    b.average[:] = 0.0
    if warm > 0.0:
        np.multiply(b.strategy, np.float32(warm * max(float(np.abs(alt).mean()), 1e-12)),
                    out=b.regrets)
        zero_entries(sub, other, b.regrets)
    else:
        b.regrets[:] = 0.0
        uniform_strategy(a, b.strategy)
    schedule = SCHEDULES[algorithm]
    gadget = np.zeros((2, hands))
    weight = np.ones(hands)
    code = MODES.index(mode)
    roots = np.zeros((2, hands))
    roots[player] = own
    cards = len(sub.river_cards)
    per = sampled if 0 < sampled < cards else cards
    rng = np.random.default_rng(seed)
    scale = cards / per
    for t in range(1, iterations + 1):
        positive, negative, avg_discount, avg_weight = schedule.discounts(t)
        visit = b.every if per == cards else np.sort(rng.choice(cards, per, replace=False))
        roots[other] = root
        turn_pass(a, other, UPDATE, b.strategy, b.regrets, b.average, roots, b.t_reach,
                  b.t_values, b.lanes, positive, negative, schedule.floor,
                  avg_discount, 0.0, b.none, b.no_out, visit, scale)  # its average unread
        if mode != "unsafe":
            gadget_step(code, b.t_values[0], alt, weight, gadget, root, positive, negative,
                        schedule.floor)
            roots[other] = root
        turn_pass(a, player, UPDATE, b.strategy, b.regrets, b.average, roots, b.t_reach,
                  b.t_values, b.lanes, positive, negative, schedule.floor,
                  avg_discount, avg_weight, b.none, b.no_out, visit, scale)
    normalise(a, b.average, b.strategy)
    played = played_as_is(sub, player, own, b)
    margins = None if mode == "unsafe" else alt - played.opponent_values[0]
    return replace(played, margins=margins, blueprint=False)


def played_as_is(sub: TurnSubgame, player: int, own_range: FloatArray, buffers: Buffers
                 ) -> TurnResolved:
    """What `resolve_turn` returns, for the strategy in `buffers` as it is (the blueprint's,
    from `blueprint_strategy`, when a re-solve is not played): the opponent's best responses
    to it, and margins 0 (it is what the alternatives were computed against)."""
    a = sub.arrays
    b = buffers
    hands = len(a.hands)
    nodes = first_river_nodes(sub, player)
    river = np.zeros((len(sub.leaves), len(sub.river_cards), nodes.shape[1], hands),
                     np.float32)
    roots = np.zeros((2, hands))
    roots[player] = own_range
    turn_pass(a, 1 - player, BEST_RESPONSE, b.strategy, b.regrets, b.average, roots,
              b.t_reach, b.t_values, b.lanes, 1.0, 1.0, False, 1.0, 0.0, nodes, river,
              b.every, 1.0)
    count = int(a.t_num_actions[0])
    played = b.strategy[:count * hands].reshape(count, hands).astype(np.float64)
    return TurnResolved(played, b.t_reach[player].copy(), b.t_values.copy(), nodes, river,
                        np.zeros(hands), blueprint=True)

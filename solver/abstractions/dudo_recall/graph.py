"""Dudo with imperfect recall: the graph of a round in which a player remembers only the last
`memory` bids (plus its own dice and the dice counts), for `solver.algorithms.fsicfr`.

A node is (player to move, the last `memory` bids); a player with fewer bids behind it
remembers them all, so the first moves are exact.  Bids only go up, so ordering the nodes by
their last bid is a topological order, and everything below a node (the legal bids, what a call
pays) depends on its last bid only: the abstraction merges histories whose futures are alike.
When both players hold as many dice, a position one reaches with the same memory as the other
is one information set for both (its key says nothing of the seat).

The private states are laid out as in `solver.games.dudo.tree` (slot j is roll ``count - 1 - j``),
so a block of the abstract strategy is a block of the real tree's: `real_strategy` plays the
abstract strategy in the real game, where `solver.algorithms.exploitability` measures it exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver.abstractions.dudo_recall.remembered_bids import remembered
from solver.algorithms.fsicfr import Graph
from solver.engine.memory import (
    ACTION_BYTES,
    BASE_BYTES,
    INFOSET_BYTES,
    MemoryEstimate,
    tree_bytes,
)
from solver.engine.node_kinds import DECISION_NODE
from solver.engine.tree import PublicTree
from solver.games.dudo.rules import DudoRules, dice_text, rolls, tables
from solver.games.dudo.tree import bid_tree, payoff_matrices, tree_sizes

Node = tuple[int, tuple[int, ...]]
"""(player to move, the bids it remembers)."""


@dataclass(frozen=True, slots=True, eq=False)
class RecallGraph:
    """A Dudo round's abstract graph and the information sets of its regret blocks."""

    rules: DudoRules
    memory: int | None  # None: every bid (the real game)
    graph: Graph
    nodes: tuple[Node, ...]
    block_player: tuple[int, ...]
    block_keys: tuple[tuple[str, ...], ...]  # per block, per private state
    block_labels: tuple[tuple[str, ...], ...]  # per block, its actions

    def infoset_rows(self, strategy: np.ndarray) -> list[tuple[str, int, tuple[str, ...],
                                                              tuple[float, ...]]]:
        """(key, player, labels, probabilities) of every information set."""
        out = []
        for b, (first, states, count, _) in enumerate(self.graph.blocks.tolist()):
            for j in range(states):
                at = first + j * count
                out.append((self.block_keys[b][j], self.block_player[b], self.block_labels[b],
                            tuple(float(x) for x in strategy[at:at + count])))
        return out


def recall_graph(rules: DudoRules, memory: int | None,
                 loser_payoffs: tuple[float, float] = (-1.0, 1.0),
                 prefix: str = "") -> RecallGraph:
    """The graph of Dudo under `rules` when players remember `memory` bids; the calls pay
    player 0 ``loser_payoffs`` (see `solver.games.dudo.tree.payoff_matrices`); information-set keys
    are `prefix` + ``dice|bids``."""
    t = tables(rules)
    bids = rules.num_bids
    calls = 2 if rules.calzo else 1
    root: Node = (0, ())
    seen = {root}
    stack = [root]
    while stack:
        player, suffix = stack.pop()
        last = suffix[-1] if suffix else -1
        for b in range(last + 1, bids):
            after = (1 - player, remembered(suffix + (b,), memory))
            if after not in seen:
                seen.add(after)
                stack.append(after)
    nodes = sorted(seen, key=lambda n: (n[1][-1] if n[1] else -1, len(n[1]), n[1], n[0]))
    index = {node: k for k, node in enumerate(nodes)}
    states = (len(t.rolls[0]), len(t.rolls[1]))
    private = [[dice_text(d) for d, _ in reversed(t.rolls[p])] for p in (0, 1)]
    blocks: dict[tuple[int, tuple[int, ...]], int] = {}
    block_rows: list[list[int]] = []
    block_player: list[int] = []
    block_keys: list[tuple[str, ...]] = []
    block_labels: list[tuple[str, ...]] = []
    actor: list[int] = []
    num_actions: list[int] = []
    row: list[int] = []
    edge_start: list[int] = []
    child: list[int] = []
    payoff: list[int] = []
    first = 0
    for player, suffix in nodes:
        last = suffix[-1] if suffix else -1
        actions = t.opening if last < 0 else t.after_bid[last]
        # Both seats share a block only when it is the same information: same dice count.
        key = (rules.dice[player], suffix)
        found = blocks.get(key)
        if found is None:
            found = blocks[key] = len(block_rows)
            block_rows.append([first, states[player], len(actions), 0])
            first += states[player] * len(actions)
            public = ",".join(t.labels[x] for x in suffix)
            block_player.append(player)
            block_keys.append(tuple(f"{prefix}{own}|{public}" for own in private[player]))
            block_labels.append(tuple(t.labels[a] for a in actions))
        b = found
        block_rows[b][3] |= 1 << player
        actor.append(player)
        num_actions.append(len(actions))
        row.append(block_rows[b][0])
        edge_start.append(len(child))
        for a in actions:
            if a < bids:
                child.append(index[(1 - player, remembered(suffix + (a,), memory))])
                payoff.append(-1)
            else:
                child.append(-1)
                payoff.append((last * 2 + player) * calls + (a - bids))
    matrices = payoff_matrices(rules, loser_payoffs, chance=False)
    chance = [np.array([p for _, p in reversed(t.rolls[p])]) for p in (0, 1)]
    graph = Graph(
        actor=np.array(actor, np.int64), num_actions=np.array(num_actions, np.int64),
        row=np.array(row, np.int64), edge_start=np.array(edge_start, np.int64),
        child=np.array(child, np.int64), payoff=np.array(payoff, np.int64),
        payoffs=np.ascontiguousarray(matrices.reshape(-1, states[0], states[1])),
        chance0=chance[0], chance1=chance[1], blocks=np.array(block_rows, np.int64))
    return RecallGraph(rules, memory, graph, tuple(nodes), tuple(block_player),
                       tuple(block_keys), tuple(block_labels))


def real_strategy(tree: PublicTree, recall: RecallGraph, strategy: np.ndarray) -> np.ndarray:
    """The abstract `strategy` (laid out as `recall`'s blocks) played in the real game `tree`
    (built by `solver.games.dudo.tree` for the same rules): each real information set takes the
    block of the node its player remembers."""
    rules = recall.rules
    kind, parent, _, depth, last, _ = bid_tree(rules.num_bids, 2 if rules.calzo else 1)
    a = tree.arrays
    if len(kind) != len(a.kind):
        raise ValueError(f"{tree.game} is not the tree of {rules}")
    block_of = {}
    for k, (player, suffix) in enumerate(recall.nodes):
        block_of[(player, suffix)] = int(recall.graph.row[k])
    suffixes: dict[int, tuple[int, ...]] = {0: ()}
    source = np.empty(tree.num_regrets, np.int64)
    for n in np.flatnonzero(kind == DECISION_NODE).tolist():
        if n:
            suffixes[n] = remembered(suffixes[int(parent[n])] + (int(last[n]),), recall.memory)
        size = int(a.slot_count[a.actor[n], n] * a.num_actions[n])
        start = int(a.regret_offset[n])
        node = (int(depth[n]) % 2, suffixes[n])
        source[start:start + size] = block_of[node] + np.arange(size)
    return strategy[source]


GRAPH_NODE_BYTES = 500
"""Per node of the abstract graph while it is built in Python (its key in a set, a dict and a
list, its row of every per-node list), beside its utility matrix and reach."""
GRAPH_EDGE_BYTES = 100
"""Per action out of a node (child and payoff, in lists, then arrays)."""
ITERATION_SECONDS_PER_CELL = 3.2e-9
"""FSICFR's time per (node, dice pair, action) and iteration: 2v2 remembering three bids, 1,000
iterations in 155 s on the shared 2-core VM."""


def graph_bounds(rules: DudoRules, memory: int | None) -> tuple[int, int]:
    """Upper bounds on the abstract graph's nodes and actions without building it: a node is a
    player and up to `memory` increasing bids (fewer only at the start, where the player is
    known), and a node has at most every bid and the calls as actions."""
    bids = rules.num_bids
    kept = bids if memory is None else min(memory, bids)
    nodes = sum(math.comb(bids, n) for n in range(kept)) + 2 * math.comb(bids, kept)
    return nodes, nodes * (bids + (2 if rules.calzo else 1))


def recall_estimate(rules: DudoRules, memory: int | None, what: str,
                    measured: bool = False) -> MemoryEstimate:
    """What `solve_recall` (or a round of a match) needs: the graph, FSICFR's arrays (a utility
    matrix of dice pairs per node) and the stored rows, and the real game's tree where it is
    compiled to measure the strategy (`measured`)."""
    nodes, edges = graph_bounds(rules, memory)
    held = (len(rolls(rules.dice[0], rules.faces)), len(rolls(rules.dice[1], rules.faces)))
    pairs = edges * max(held)  # (information set, action) pairs, at most
    total = (BASE_BYTES + nodes * (8 * held[0] * held[1] + 8 * sum(held) + GRAPH_NODE_BYTES)
             + edges * GRAPH_EDGE_BYTES + pairs * ACTION_BYTES
             + nodes * max(held) * INFOSET_BYTES)
    detail = (f"at most {nodes:,} abstract nodes of {held[0]} x {held[1]} dice pairs, "
              f"{pairs:,} (information set, action) pairs")
    if measured:
        real = tree_sizes(rules)
        total += tree_bytes(real["information_sets"], real["information_set_actions"],
                            real["slots"], real["public_nodes"], solved=False) - BASE_BYTES
        detail += f", and the real game's tree ({real['information_sets']:,} information sets)"
    return MemoryEstimate(what, total, detail,
                          "remember fewer bids (--memory)" if memory is not None else "")


def recall_seconds(rules: DudoRules, memory: int | None, iterations: int) -> float:
    """About how long `iterations` FSICFR iterations take (`ITERATION_SECONDS_PER_CELL`)."""
    _, edges = graph_bounds(rules, memory)
    cells = len(rolls(rules.dice[0], rules.faces)) * len(rolls(rules.dice[1], rules.faces))
    return iterations * edges * cells * ITERATION_SECONDS_PER_CELL

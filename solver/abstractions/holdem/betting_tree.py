"""A hold'em member's betting compiled into arrays, cards aside (`BettingTree`), and where a
bucket abstraction's regrets and strategies sit in flat tables (`Layout`): what the sampled
solvers (`solver.abstractions.holdem.sampled_cfr`), the bot's tables and the coach's values
share.

The tree lists every betting position as `solver.games.holdem.betting.walk` does, in the same
pre-order (a parent before its children, a subtree contiguous), so a kernel walks it with
arrays alone.  A node's actions sit in *slots*: fold 0, call 1, and its raises from 2 up, in
increasing amount (`slot_of`); limit betting has one raise, so three slots, and a no-limit bet
abstraction as many as its widest node needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.sampled_kernel import (
    DECISION,
    FOLDED,
    SHOWDOWN,
    SLOTS,
    BettingArrays,
)
from solver.games.holdem.betting import Betting
from solver.games.holdem.policy import slot_of
from solver.games.holdem.rules import HoldemRules

IntArray = NDArray[np.int64]


@dataclass(frozen=True, slots=True, eq=False)
class BettingTree:
    """A member's betting, cards aside, compiled into arrays; `sequences` names each node by
    its ACPC betting string (``rrc/cr``) and `rounds_of` by its rounds' betting."""

    rules: HoldemRules
    arrays: BettingArrays
    sequences: tuple[str, ...]
    labels: tuple[tuple[str, ...], ...]  # of the legal actions, in action order
    index: dict[str, int] = field(repr=False)

    @property
    def num_nodes(self) -> int:
        return len(self.sequences)

    @property
    def slots(self) -> int:
        """Action slots per node: 3 in limit betting, more with several raise sizes."""
        return int(self.arrays.child.shape[1])

    def decisions(self, round_: int | None = None) -> IntArray:
        a = self.arrays
        mask = a.kind == DECISION
        if round_ is not None:
            mask &= a.round == round_
        return np.flatnonzero(mask)

    def rows(self, round_: int) -> int:
        """Decision nodes of round `round_`."""
        return int(((self.arrays.kind == DECISION) & (self.arrays.round == round_)).sum())

    def node(self, betting: Betting) -> int:
        try:
            return self.index[betting.acpc()]
        except KeyError:
            raise ValueError(f"no betting {betting.acpc()!r} in {self.rules.spec}") from None


@cache
def betting_tree(rules: HoldemRules) -> BettingTree:
    """Every betting position of `rules` (as `solver.games.holdem.betting.walk` lists them, in
    the same pre-order), compiled."""
    kind: list[int] = []
    player: list[int] = []
    round_: list[int] = []
    child: list[dict[int, int]] = []
    end: list[int] = []
    payoff: list[float] = []
    sequences: list[str] = []
    labels: list[tuple[str, ...]] = []

    def visit(betting: Betting) -> int:
        n = len(kind)
        sequences.append(betting.acpc())
        labels.append(tuple(betting.label(a) for a in betting.legal_actions()))
        round_.append(betting.round if not betting.over else len(betting.rounds) - 1)
        player.append(max(betting.player, -1))
        child.append({})
        end.append(-1)
        if betting.over:
            folded = betting.folded
            if folded >= 0:
                kind.append(FOLDED)
                spent = betting.spent[folded]
                payoff.append(float(-spent if folded == 0 else spent))
            else:
                kind.append(SHOWDOWN)
                payoff.append(float(betting.spent[0]))
        else:
            kind.append(DECISION)
            payoff.append(0.0)
            for action in betting.legal_actions():
                child[n][slot_of(betting, action)] = visit(betting.apply(action))
        end[n] = len(kind)
        return n

    visit(Betting.start(rules))
    rounds = np.array(round_, np.int8)
    kinds = np.array(kind, np.int8)
    width = max(SLOTS, 1 + max(max(slots, default=0) for slots in child))
    children = np.full((len(kinds), width), -1, np.int32)
    for n, slots in enumerate(child):
        for slot, c in slots.items():
            children[n, slot] = c
    row = np.full(len(kinds), -1, np.int32)
    for r in range(rules.num_rounds):
        mine = np.flatnonzero((kinds == DECISION) & (rounds == r))
        row[mine] = np.arange(len(mine))
    arrays = BettingArrays(kinds, np.array(player, np.int8), rounds, children,
                           np.array(end, np.int32), row, np.array(payoff, np.float32))
    return BettingTree(rules, arrays, tuple(sequences), tuple(labels),
                       {s: i for i, s in enumerate(sequences)})





@dataclass(frozen=True, slots=True, eq=False)
class Layout:
    """Where each round's entries start in the flat regret table, and their order: (bucket,
    decision row, action slot) for chance sampling, whose deal touches one bucket's rows, or
    (row, bucket, slot) when `by_row`, for public chance sampling, whose node touches every
    bucket of one row."""

    tree: BettingTree
    buckets: tuple[int, ...]
    starts: IntArray  # per round, then the total
    by_row: bool = False

    @classmethod
    def of(cls, tree: BettingTree, buckets: tuple[int, ...], by_row: bool = False) -> Layout:
        sizes = [buckets[r] * tree.rows(r) * tree.slots for r in range(tree.rules.num_rounds)]
        return cls(tree, buckets, np.concatenate(([0], np.cumsum(sizes))).astype(np.int64),
                   by_row)

    @property
    def size(self) -> int:
        return int(self.starts[-1])

    @property
    def infosets(self) -> int:
        return sum(self.buckets[r] * self.tree.rows(r) for r in range(len(self.buckets)))

    def round_table(self, flat: NDArray[Any], round_: int) -> NDArray[Any]:
        """Round `round_`'s part of a flat table as a (bucket, row, slot) view."""
        lo, hi = self.starts[round_], self.starts[round_ + 1]
        rows, slots = self.tree.rows(round_), self.tree.slots
        if self.by_row:
            return flat[lo:hi].reshape(rows, self.buckets[round_], slots).transpose(1, 0, 2)
        return flat[lo:hi].reshape(self.buckets[round_], rows, slots)


def legal_mask(layout: Layout) -> NDArray[np.bool_]:
    """True at the (bucket, node, slot) entries of legal actions."""
    out = np.zeros(layout.size, bool)
    tree = layout.tree
    a = tree.arrays
    for r in range(len(layout.buckets)):
        nodes = tree.decisions(r)
        table = layout.round_table(out, r)
        table[:, a.row[nodes], :] = a.child[nodes] >= 0
    return out

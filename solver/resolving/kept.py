"""What the re-solving bots share: their re-solves kept by public state, so that every hand and
every later question at a state reuses one re-solve; a range of hands read off the rows of a
re-solve's root (every hand of the member is a row of `solver.resolving.subgame.hand_cards`);
and the opponent's values against a blueprint, the first re-solve's alternatives.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Generic, TypeVar

import numpy as np
from numpy.typing import NDArray

from solver.engine import kernels
from solver.engine.node_kinds import DECISION_NODE
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules
from solver.resolving.resolve import reach_from
from solver.resolving.subgame import Subgame, hand_cards

T = TypeVar("T")
FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


class Kept(Generic[T]):
    """Re-solves by public state (ACPC betting, board), the least recently used dropped first
    beyond `keep`.  A re-solve may ask for earlier ones while it is made (its range comes from
    them), so the lock is re-entrant."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._items: OrderedDict[tuple[str, tuple[int, ...]], T] = OrderedDict()
        self._lock = threading.RLock()

    def get(self, betting: Betting, board: tuple[int, ...], solve: Callable[[], T]) -> T:
        """The re-solve kept at the state, or `solve()`'s, kept from now on."""
        key = (betting.acpc(), board)
        with self._lock:
            known = self._items.get(key)
            if known is not None:
                self._items.move_to_end(key)
                return known
            made = solve()
            self._items[key] = made
            while len(self._items) > self.keep:
                self._items.popitem(last=False)
            return made

    def items(self) -> list[tuple[str, T]]:
        """The re-solves kept, oldest first, each with its public state's betting (ACPC)."""
        with self._lock:
            return [(key[0], made) for key, made in self._items.items()]


class Hands:
    """Every hand of a member, as rows of `hand_cards`, and the row of any hand."""

    def __init__(self, rules: HoldemRules) -> None:
        self.hole_cards = rules.hole_cards
        self.cards = hand_cards(rules)
        self._index = {tuple(int(c) for c in row): i for i, row in enumerate(self.cards)}

    def __len__(self) -> int:
        return len(self.cards)

    def rows(self, root: IntArray, grid: FloatArray, holes: NDArray[np.int64]) -> FloatArray:
        """The rows of `grid` (one per hand of `root`) of each hand of `holes`; ValueError for
        a hand that is not among them (it shares a card with the board)."""
        position = np.full(len(self.cards), -1, np.int64)
        position[root] = np.arange(len(root))
        held = np.asarray(holes, np.int64).reshape(-1, self.hole_cards)
        wanted = position[[self._index[tuple(sorted(int(c) for c in row))] for row in held]]
        if (wanted < 0).any():
            raise ValueError("a hand shares a card with the board")
        return grid[wanted]


def best_response_at_root(sub: Subgame, player: int, own: FloatArray,
                          block_of: Callable[[int], FloatArray]) -> FloatArray:
    """The opponent's best-response values at the root of `sub` when `player`, from its root
    range `own`, plays at each of its decisions n the rows ``block_of(n)`` (one per slot of n,
    one column per legal action): the first re-solve's alternatives, against a blueprint."""
    a = sub.arrays
    size = int(a.regret_offset[-1] + (a.num_actions[-1] * a.slot_count[0, -1]
                                      if a.kind[-1] == DECISION_NODE else 0))
    strategy = np.zeros(size)
    for n in np.flatnonzero((a.kind == DECISION_NODE) & (a.actor == player)).tolist():
        block = block_of(n)
        start = int(a.regret_offset[n])
        strategy[start:start + block.size] = block.reshape(-1)
    reach = np.zeros(int(a.slot_count[player].sum()))
    reach_from(a, player, strategy, own, reach)
    values = np.zeros(int(a.slot_count[1 - player].sum()))
    kernels.best_response(a, 1 - player, reach, values, np.zeros(size))
    return values[:int(a.slot_count[1 - player, 0])]

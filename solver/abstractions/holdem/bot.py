"""The sampled hold'em solve as a strategy: its compact store layout and `HulheBot`.

`strategy_table` lays a `solver.abstractions.holdem.sampled_cfr.Solver`'s average strategy out as
the store's `strategies.tables.TableStrategy`: one group per betting round, a row per decision node
of the round (its public key is the betting, rounds separated by ``|``), a column per bucket (named
as `solver.abstractions.holdem.percentiles` writes them), so ``<bucket>|<betting>`` — the key the
abstraction's `strategy_key` gives a real position — finds its probabilities.  `store_solve`
saves it as a normal solve row with the abstraction's descriptor and the tables as blobs.

`HulheBot` plays the same tables in the real game through `HoldemPolicy`
(`solver.games.holdem.policy`): for a whole range of hole cards at once, it indexes each hand's
class on the board, reads its bucket and the row of the betting, all vectorised.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.betting_tree import Layout
from solver.abstractions.holdem.percentiles import (
    Percentiles,
    PercentileSpec,
    bucket_text,
    hand_codes,
    round_buckets,
)
from solver.abstractions.holdem.sampled_cfr import Solver
from solver.abstractions.holdem.sampled_kernel import SLOTS
from solver.games import get_game
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules
from strategies import StrategyStore
from strategies.tables import PublicPart, TableStrategy, dequantise, quantise

FloatArray = NDArray[np.float64]


def public_key(betting: Betting) -> str:
    """The public part of an abstract key: each round's betting, separated by ``|``."""
    return "|".join(betting.rounds)


def strategy_table(solver: Solver) -> TableStrategy:
    """The solver's average strategy as quantised tables (see the module doc)."""
    return table_of(solver.layout, solver.average_strategy(), solver.rules)


def table_of(layout: Layout, strategy: NDArray[np.floating], rules: HoldemRules,
             quantised: bool = True) -> TableStrategy:
    """`strategy` (flat, laid out as `layout`) as tables; unquantised (float32) only to
    measure what the quantisation costs."""
    tree = layout.tree
    a = tree.arrays
    publics: dict[str, PublicPart] = {}
    tables: list[NDArray[Any]] = []
    privates = []
    for r in range(rules.num_rounds):
        nodes = tree.decisions(r)
        for node in nodes.tolist():
            slots = tuple(int(s) for s in np.flatnonzero(a.child[node] >= 0))
            publics[tree.sequences[node].replace("/", "|")] = PublicPart(
                int(a.player[node]), tree.labels[node], r, int(a.row[node]), slots)
        grid = layout.round_table(strategy, r)  # (bucket, row, slot)
        rows = np.ascontiguousarray(grid.transpose(1, 0, 2))
        tables.append(quantise(rows) if quantised else rows.astype(np.float32))
        privates.append(tuple(bucket_text(rules, r, b) for b in range(layout.buckets[r])))
    return TableStrategy(publics, tuple(privates), tuple(tables))


@dataclass(frozen=True, slots=True, eq=False)
class HulheBot:
    """A hold'em member's bucket-abstraction strategy, played in the real game
    (`HoldemPolicy`)."""

    name: str
    rules: HoldemRules
    spec: PercentileSpec
    table: TableStrategy

    @classmethod
    def from_solver(cls, solver: Solver, name: str = "hulhe-cfr") -> HulheBot:
        return cls(name, solver.rules, solver.setup.spec, strategy_table(solver))

    @classmethod
    def from_store(cls, game: str = "holdem", store_path: str | None = None,
                   name: str | None = None) -> HulheBot:
        """The latest solve of `game` in the store (it must be a table solve, ``ehs2`` or
        ``hist`` buckets, or a re-solving bot's, whose tables are its blueprint's)."""
        with StrategyStore.open(store_path) as store:
            info = store.latest_solve(game)
            table = store.table_strategy(game)
        if info is None or table is None:
            raise ValueError(f"no table solve of {game!r} in the store: run "
                             f"`python -m solver hulhe`")
        abstraction = abstraction_for(get_game(game), info.abstraction)
        # A re-solving bot's solve holds its blueprint's tables: read them as the blueprint.
        tables_of = getattr(abstraction, "blueprint", abstraction)
        if not isinstance(tables_of, Percentiles):
            raise ValueError(f"the solve of {game!r} uses {info.abstraction!r}, not table "
                             "buckets (ehs2= or hist=)")
        return cls(name or f"{game}-solve-{info.id}", tables_of.rules, tables_of.spec, table)

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        """See `solver.games.holdem.policy.HoldemPolicy`."""
        if betting.over:
            raise ValueError(f"the hand is over after {betting.acpc()!r}: nobody acts")
        holes = np.asarray(holes, np.int64).reshape(-1, self.rules.hole_cards)
        codes = hand_codes(self.rules, self.spec, betting.round, holes, board)
        return self.probabilities_of(betting, codes)

    def codes_of(self, round_: int, deals: NDArray[np.int64]) -> NDArray[np.int64]:
        """The buckets in round `round_` of `deals` (rows: hole cards, then the board dealt so
        far), each row with its own board: what `probabilities_of` reads."""
        info = round_buckets(self.rules, self.spec)[round_]
        return np.asarray(info.codes[info.indexer.index_many(np.asarray(deals, np.int64))],
                          np.int64)

    def probabilities_of(self, betting: Betting, codes: NDArray[np.int64]
                         ) -> NDArray[np.float64]:
        """The probabilities of fold, call and raise after `betting` for hands in the buckets
        `codes` (of the betting's round)."""
        return self.bucket_probabilities(betting)[codes]

    def bucket_probabilities(self, betting: Betting) -> NDArray[np.float64]:
        """The probabilities of fold, call and raise after `betting`, per bucket of its round:
        ``(buckets, slots)``, 3 slots in limit betting, one per raise size beyond in no-limit
        (`solver.games.holdem.policy.slot_of`)."""
        part = self.table.publics.get(public_key(betting))
        if part is None:
            raise ValueError(f"no betting {betting.acpc()!r} in the solve of {self.rules.spec}")
        grid = self.table.tables[part.group][part.row]  # (bucket, slot)
        out = np.zeros((len(grid), max(SLOTS, 1 + max(part.slots))))
        out[:, list(part.slots)] = dequantise(grid, part.slots)
        return out

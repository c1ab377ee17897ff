"""Hold'em policies judged exactly where the member's tree compiles: `TabularPolicy` (a solved
strategy answering as a `solver.games.holdem.policy.HoldemPolicy`, over a whole range of hole
cards at once, as Local Best Response needs) and the exact evaluation of a pair of policies.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from solver.algorithms.exploitability import Evaluation, evaluate_strategy
from solver.algorithms.solve import solve
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.evaluation.stored import stored_strategy_array
from solver.games.holdem.betting import Betting, moves
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.policy import ACTIONS, AnyPolicy, answer, uniform_rows
from strategies import StrategyStore


def public_key(game: HoldemGame, betting: Betting, board: tuple[int, ...]) -> str:
    """The public part of the game's information-state keys (``rc|4c|cr``) for `betting` and
    `board`, written by the game's own `HoldemState.public_key` so that the two never drift
    apart (the hole cards, which that method does not read, are placeholders)."""
    placeholder = (0,) * (2 * game.definition.hole_cards)
    return HoldemState(game, (), placeholder + tuple(board), betting).public_key()


def parse_public(game: HoldemGame, public: str) -> tuple[Betting, tuple[int, ...]]:
    """The betting and the board a public key (`public_key`) writes."""
    rules = game.definition
    segments = public.split("|")
    if rules.board_cards[0] == 0:
        segments.insert(0, "")
    betting = Betting.start(rules)
    board: list[int] = []
    for r in range(0, len(segments), 2):
        board.extend(_parse_cards(game, segments[r]))
        for action in moves(segments[r + 1] if r + 1 < len(segments) else ""):
            betting = betting.apply(action)
    return betting, tuple(board)


MAX_EXACT_INFOSETS = 20_000_000
"""The most information sets a member may have for the exact tools here (`TabularPolicy`,
`exact_evaluation`), which compile its whole tree: 16 cards and three rounds (13.9 M) compile in
seconds; HULHE's 3.2 × 10^14 never will."""


def require_small(game: HoldemGame) -> None:
    """ValueError unless `game` is small enough to compile (`MAX_EXACT_INFOSETS`)."""
    infosets = game.sizes()["information_sets"]
    assert isinstance(infosets, int)
    if infosets > MAX_EXACT_INFOSETS:
        raise ValueError(f"{game.name} has {infosets:.3g} information sets: exact strategies and "
                         f"evaluations are for members of at most {MAX_EXACT_INFOSETS:,}; "
                         f"measure its bots by sampling (duplicate matches, LBR)")


def _parse_cards(game: HoldemGame, written: str) -> tuple[int, ...]:
    ids = {name: card for card, name in enumerate(game.card_names)}
    return tuple(ids[written[i:i + 2]] for i in range(0, len(written), 2))


@dataclass(slots=True, eq=False)
class TabularPolicy:
    """An exact strategy of a member small enough to compile (holdem-mini), played through the
    game's information-state keys: the test subject whose exploitability is known exactly.

    `tables` maps a public key to an array indexed by the hole cards (``[a, b]`` for two hole
    cards, either order; ``[a]`` for one) holding the three action probabilities.  Hands the
    strategy never names (they share a card with the board) play uniformly.

    (A mutable dataclass: `HoldemPolicy.name` is a plain attribute, which a frozen dataclass
    cannot match for mypy.)"""

    name: str
    game: HoldemGame
    tables: dict[str, NDArray[np.float64]]

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        key = public_key(self.game, betting, board)
        table = self.tables.get(key)
        if table is None:
            raise KeyError(f"{self.name} has no information sets at public state {key!r}")
        holes = np.asarray(holes, dtype=np.int64)
        rows: NDArray[np.float64] = table[tuple(holes.T)].copy()
        return rows

    @classmethod
    def from_strategy(cls, game: HoldemGame, tree: PublicTree, strategy: NDArray[np.float64],
                      name: str = "tabular") -> TabularPolicy:
        """The flat (infoset, action) `strategy` of the compiled `tree` of `game`."""
        n, k = game.definition.num_cards, game.definition.hole_cards
        tables: dict[str, NDArray[np.float64]] = {}
        offsets = tree.infoset_regret_offset
        for i, (key, actions) in enumerate(zip(tree.infoset_keys, tree.infoset_actions,
                                               strict=True)):
            private, _, public = key.partition("|")
            table = tables.get(public)
            if table is None:
                betting, _ = parse_public(game, public)
                table = np.broadcast_to(uniform_rows(betting, 1)[0], (n,) * k + (ACTIONS,)).copy()
                tables[public] = table
            row = np.zeros(ACTIONS)
            row[list(actions)] = strategy[offsets[i]:offsets[i + 1]]
            for order in itertools.permutations(_parse_cards(game, private)):
                table[order] = row
        return cls(name, game, tables)

    @classmethod
    def from_store(cls, game: HoldemGame, store: str | os.PathLike[str] | None = None,
                   ) -> TabularPolicy:
        """The latest solve of `game` in the strategy store (default: the default store)."""
        require_small(game)
        with StrategyStore.open(Path(store) if store else None) as opened:
            info = opened.latest_solve(game.name)
            if info is not None and info.abstraction:
                raise ValueError(f"the stored {game.name} solve is abstract ({info.abstraction})"
                                 f"; play it through its own bot, not as an exact strategy")
            tree, flat = stored_strategy_array(opened, game)
        return cls.from_strategy(game, tree, flat, name=f"stored {game.name}")

    @classmethod
    def solved(cls, game: HoldemGame, target: float = 1e-4) -> TabularPolicy:
        """Solve `game` here (the repo's default algorithm) to exploitability `target`."""
        require_small(game)
        result = solve(game, target_exploitability=target)
        return cls.from_strategy(game, result.tree, result.strategy,
                                 name=f"solved {game.name}")


@dataclass(slots=True, eq=False)
class SparseTabularPolicy:
    """`TabularPolicy` for a no-limit member (every size): each public state names its own
    legal actions (`SparsePolicy`), `tables` mapping its key to those actions and an array
    indexed by the hole cards holding their probabilities."""

    name: str
    game: HoldemGame
    tables: dict[str, tuple[tuple[int, ...], NDArray[np.float64]]]

    def sparse_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]
                             ) -> tuple[tuple[int, ...], NDArray[np.float64]]:
        key = public_key(self.game, betting, board)
        if key not in self.tables:
            raise KeyError(f"{self.name} has no information sets at public state {key!r}")
        actions, table = self.tables[key]
        rows: NDArray[np.float64] = table[tuple(np.asarray(holes, dtype=np.int64).T)].copy()
        return actions, rows

    @classmethod
    def from_strategy(cls, game: HoldemGame, tree: PublicTree, strategy: NDArray[np.float64],
                      name: str = "tabular") -> SparseTabularPolicy:
        """The flat (infoset, action) `strategy` of the compiled `tree` of `game`; hands it
        never names (they share a card with the board) play uniformly."""
        n, k = game.definition.num_cards, game.definition.hole_cards
        tables: dict[str, tuple[tuple[int, ...], NDArray[np.float64]]] = {}
        offsets = tree.infoset_regret_offset
        for i, (key, actions) in enumerate(zip(tree.infoset_keys, tree.infoset_actions,
                                               strict=True)):
            private, _, public = key.partition("|")
            if public not in tables:
                width = len(actions)
                tables[public] = (tuple(actions), np.full((n,) * k + (width,), 1.0 / width))
            table = tables[public][1]
            for order in itertools.permutations(_parse_cards(game, private)):
                table[order] = strategy[offsets[i]:offsets[i + 1]]
        return cls(name, game, tables)


def strategy_of(game: HoldemGame, tree: PublicTree, policies: Sequence[AnyPolicy],
                ) -> NDArray[np.float64]:
    """A profile as the flat (infoset, action) array of `tree`, the compiled `game`: seat p
    plays ``policies[p]`` (pass one policy to play both seats), read by
    `solver.games.holdem.policy.answer` (a column per action, or the actions named).  Every
    information set of a public state is asked in one call, so the whole tree takes one call
    per public decision.

    With `solver.algorithms.exploitability.evaluate_strategy` this gives any policy of a small
    member its exact value and best responses: the yardstick of the sampled evaluators."""
    flat = np.zeros(tree.num_regrets)
    offsets = tree.infoset_regret_offset
    groups: dict[str, list[int]] = {}
    for i, key in enumerate(tree.infoset_keys):
        groups.setdefault(key.partition("|")[2], []).append(i)
    for public, members in groups.items():
        betting, board = parse_public(game, public)
        policy = policies[betting.player % len(policies)]
        holes = np.array([_parse_cards(game, tree.infoset_keys[i].partition("|")[0])
                          for i in members], dtype=np.int64)
        actions, rows = answer(policy, betting, board, holes)
        named = {a: k for k, a in enumerate(actions)}
        columns = [named.get(a, -1) for a in tree.infoset_actions[members[0]]]
        padded = np.concatenate([rows, np.zeros((len(rows), 1))], axis=1)  # column -1: zero
        for i, row in zip(members, padded, strict=True):
            flat[offsets[i]:offsets[i + 1]] = row[columns]
    return flat


def exact_evaluation(game: HoldemGame, policies: Sequence[AnyPolicy]) -> Evaluation:
    """Exact value (chips to seat 0) and best-response values of a profile (`strategy_of`)
    on a member small enough to compile (`require_small`)."""
    require_small(game)
    tree = compile_game(game)
    return evaluate_strategy(tree, strategy_of(game, tree, policies))

"""A no-limit bot that plays its translated blueprint until the last round and re-solves the
rest of the hand at each of its decisions in it, whatever size was bet: nested safe re-solving
(Brown & Sandholm 2017) over the blueprint of `solver.abstractions.holdem.translated`.

At a decision in the last round, the subgame below the public state is compiled with the
hand's actual betting at its root and the blueprint's bet sizes below it, taken as fractions of
the actual pot (`abstract_state`; `solver.resolving.subgame`), and re-solved with a safe gadget
(`solver.resolving.resolve`, ``resolve`` or ``maxmargin``):

* the bot's range is its reach under what it actually played: the translated blueprint's
  probabilities of its moves along the hand (`solver.abstractions.holdem.translated.readings`),
  then, from its first re-solve on, the previous re-solve's reach at this state;
* the opponent's alternatives, the values the gadget holds the opponent to, are its
  best-response counterfactual values against the translated blueprint in this subgame at the
  first re-solve, then those of the previous re-solve at this state.  Where the opponent has
  since bet a size the previous subgame does not have, the state is read as the one after the
  nearer size it does have (`solver.abstractions.holdem.translation`, not randomised): the
  opponent is held to what its nearest size was worth, and the new subgame holds its actual
  bet.

Unsafe re-solving is not offered: it needs the opponent's range, which translation does not
give for a size the blueprint never bets.  `first_round` starts re-solving in an earlier
round, the range and values then carried across the deal of a card; the second-to-last round
of a game with one card to come is re-solved in the turn's dense layout
(`solver.resolving.no_limit_turn`), with `turn_iterations` (the time a decision has allows
few).  On a small member of three rounds, re-solving the last two gives up a quarter to a
half of translation's exploitability (docs/games/no-limit.md).

As the limit re-solving bot (`solver.resolving.resolving_bot`), everything the bot does at a
public state depends on the public history alone, so it answers for a whole range at once and
keeps its re-solves (least recently used first out).

Example::

    from solver.abstractions.holdem.translated import TranslatedPolicy
    from solver.games import get_game
    from solver.resolving.no_limit_bot import NoLimitResolvingBot

    bot = NoLimitResolvingBot("hunl-resolving", TranslatedPolicy.from_store(get_game("hunl")))
    actions, rows = bot.sparse_probabilities(betting, board, holes)
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.translated import TranslatedPolicy, readings
from solver.engine.node_kinds import CHANCE_NODE, DECISION_NODE
from solver.games.holdem.betting import Betting, history
from solver.games.holdem.rules import HoldemRules
from solver.resolving.kept import Hands, Kept, best_response_at_root
from solver.resolving.no_limit_turn import (
    abstract_state,
    blueprint_turn_strategy,
    nearest,
    turn_position,
)
from solver.resolving.resolve import MODES, resolve
from solver.resolving.solved import Solved, TurnSolved
from solver.resolving.subgame import Subgame, compile_subgame
from solver.resolving.turn_resolve import Buffers, best_response_values, resolve_turn
from solver.resolving.turn_subgame import compile_turn

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]
SAFE_MODES = tuple(m for m in MODES if m != "unsafe")


def _dealt(sub: Subgame, node: int, board: tuple[int, ...]) -> int:
    """The decision `node` of `sub`, or past its chance nodes the one on `board`'s cards; -1
    where the hand has left the subgame's decisions."""
    while sub.arrays.kind[node] == CHANCE_NODE:
        betting = sub.betting[node]
        if betting.over:  # an all-in called: the board runs out to a showdown
            return -1
        node = sub.index.get((betting.acpc(), board[:sub.rules.board_dealt(betting.round)]), -1)
        if node < 0:
            return -1
    return node if sub.arrays.kind[node] == DECISION_NODE else -1


@dataclass(slots=True, eq=False)
class NoLimitResolvingBot:
    """See the module docstring.  `iterations` of CFR+ a re-solve; `keep` re-solves cached."""

    name: str
    blueprint: TranslatedPolicy
    mode: str = "resolve"
    iterations: int = 300
    keep: int = 64
    first_round: int = -1
    """The round (0-based) from which it re-solves; -1 the last."""
    turn_iterations: int | None = None
    """Iterations of a re-solve in the turn's layout (None: `iterations`)."""
    _hands: Hands = field(init=False, repr=False)
    _kept: Kept[Solved | TurnSolved] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in SAFE_MODES:
            raise ValueError(f"the no-limit re-solving bot's modes are {', '.join(SAFE_MODES)}"
                             f", not {self.mode!r}")
        if not (self.first_round == -1 or 1 <= self.first_round <= self.last_round):
            raise ValueError(f"the bot re-solves from a round 1 to {self.last_round} (0-based) "
                             f"or -1 for the last, not {self.first_round}")
        self._hands = Hands(self.rules)
        self._kept = Kept(self.keep)

    @property
    def rules(self) -> HoldemRules:
        return self.blueprint.translated.rules

    @property
    def last_round(self) -> int:
        return self.rules.num_rounds - 1

    @property
    def from_round(self) -> int:
        """The first round it re-solves in (0-based)."""
        return self.first_round if self.first_round >= 0 else self.last_round

    @property
    def abstract(self) -> HoldemRules:
        return self.blueprint.translated.abstract

    def sparse_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> tuple[tuple[int, ...], FloatArray]:
        """See `solver.games.holdem.policy.SparsePolicy`."""
        if betting.round < self.from_round:
            return self.blueprint.sparse_probabilities(betting, board, holes)
        solved = self.solved(betting, tuple(board))
        rows = self._hands.rows(*solved.root_strategy(), holes)
        return solved.subgame.betting[0].legal_actions(), rows

    def kept(self) -> list[tuple[str, Solved | TurnSolved]]:
        """The re-solves kept, oldest first, each with its public state's betting (ACPC)."""
        return self._kept.items()

    def solved(self, betting: Betting, board: tuple[int, ...]) -> Solved | TurnSolved:
        """The re-solve at a public state where the bot acts (from the cache if done)."""
        return self._kept.get(betting, board, lambda: self._solve(betting, board))

    def _solve(self, betting: Betting, board: tuple[int, ...]) -> Solved | TurnSolved:
        if self._turn_layout(betting):
            return self._solve_turn(betting, board)
        player = betting.player
        sub = compile_subgame(self.abstract, abstract_state(betting, self.abstract), board,
                              self._hands.cards)
        hands = sub.root_hands
        carried = self._carried(betting, board)
        if carried is not None:
            own, alternatives = (v[hands] for v in carried)
        else:
            own = self._blueprint_reach(betting, board, hands)
            alternatives = self._blueprint_values(sub, player, own)
        resolved = resolve(sub.arrays, player, own, mode=self.mode, iterations=self.iterations,
                           alternatives=alternatives)
        return Solved(sub, player, resolved)

    def _turn_layout(self, betting: Betting) -> bool:
        """Whether the state is re-solved in the turn's dense layout: the second-to-last
        round of a member with two hole cards and one card to come."""
        rules = self.rules
        return (betting.round == self.last_round - 1 and rules.board_cards[-1] == 1
                and rules.hole_cards == 2)

    def _solve_turn(self, betting: Betting, board: tuple[int, ...]) -> TurnSolved:
        player = betting.player
        sub = compile_turn(self.abstract, abstract_state(betting, self.abstract), board,
                           self._hands.cards)
        hands = sub.hand_ids
        buffers = Buffers(sub)
        carried = self._carried(betting, board)
        if carried is not None:
            own, alternatives = (v[hands] for v in carried)
        else:
            own = self._blueprint_reach(betting, board, hands)
            blueprint_turn_strategy(sub, player, self.blueprint, self.rules, buffers.strategy)
            alternatives = best_response_values(sub, player, own, buffers.strategy, buffers)
        resolved = resolve_turn(sub, player, own, mode=self.mode,
                                iterations=self.turn_iterations or self.iterations,
                                alternatives=alternatives, buffers=buffers)
        return TurnSolved(sub, player, resolved)

    def _carried(self, betting: Betting, board: tuple[int, ...]
                 ) -> tuple[FloatArray, FloatArray] | None:
        """The bot's reach and the opponent's values at this state from the bot's previous
        re-solve in the hand, its actions followed in that subgame and the opponent's read as
        the nearer size it has; None at the first re-solve, or where the reading leaves the
        subgame's decisions."""
        actions = history(betting)
        at = Betting.start(self.rules)
        before: list[tuple[Betting, int]] = []
        for n, action in enumerate(actions):
            if at.player == betting.player and at.round >= self.from_round:
                before.append((at, n))
            at = at.apply(action)
        if not before:
            return None
        start, first = before[-1]
        previous = self.solved(start, board[:self.rules.board_dealt(start.round)])
        if isinstance(previous, TurnSolved):
            there = turn_position(previous.subgame, start, actions[first:])
            return None if there is None else previous.carry(there, board, len(self._hands))
        sub = previous.subgame
        node, real = 0, start
        for action in actions[first:]:
            node = _dealt(sub, node, board)
            if node < 0:
                return None
            node = sub.children[node][nearest(real, action, sub.betting[node])]
            real = real.apply(action)
        node = _dealt(sub, node, board)
        if node < 0:
            return None
        return previous.carry(sub.betting[node], sub.board[node], len(self._hands))

    def _blueprint_reach(self, betting: Betting, board: tuple[int, ...],
                         hands: IntArray) -> FloatArray:
        """The translated blueprint's reach of the bot's moves along the hand, per hand."""
        bot = self.blueprint.translated
        own = bot.own(self.blueprint.table, self._hands.cards[hands], board)
        found = readings(betting, bot.abstract, betting.player, own, len(hands),
                         bot.translation)
        reach = np.zeros(len(hands))
        for weight in found.values():
            reach += weight
        return reach

    def _blueprint_values(self, sub: Subgame, player: int, own: FloatArray) -> FloatArray:
        """The opponent's best-response values at the root against the translated blueprint
        in the subgame (each size it names read as the subgame's nearest)."""
        def block_of(n: int) -> FloatArray:
            mine = sub.betting[n]
            real = replace(mine, rules=self.rules)
            named, rows = self.blueprint.sparse_probabilities(
                real, sub.board[n], self._hands.cards[sub.hands[sub.slots(n)]])
            block = np.zeros((len(rows), len(mine.legal_actions())))
            for column, action in enumerate(named):
                block[:, nearest(real, action, mine)] += rows[:, column]
            return block
        return best_response_at_root(sub, player, own, block_of)

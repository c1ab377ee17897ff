"""A hold'em bot that plays its blueprint early in the hand and re-solves the rest of the hand
at each of its decisions from a chosen round on (continual re-solving, DeepStack-style).

At a decision in round ``from_round`` or later, the bot compiles the subgame below the public
state (`solver.resolving.subgame`) and re-solves it (`solver.resolving.resolve`):

* its own range is its reach under what it actually played: the blueprint's probabilities of
  its actions along the hand, then, from its first re-solve on, the re-solved strategy of its
  previous decision (`Resolved.own_reach` at this node of the previous subgame);
* the opponent's alternatives are the opponent's best-response counterfactual values: against
  the blueprint in this subgame at the bot's first re-solve of the hand, then those of the
  previous re-solve at this node (`Resolved.opponent_values`, divided by the node's chance
  weight, since every subgame weighs its deals relative to its own root);
* ``unsafe`` mode instead takes the opponent's range from the blueprint's probabilities of the
  opponent's actions (Bayes along the hand) and has no gadget.

Everything the bot does at a public state depends on the public history alone, so it answers
for a whole range of hands at once (`solver.games.holdem.policy.HoldemPolicy`) and a re-solve
is kept (least recently used first out) and reused for every hand and every later question at
that state.  On a member whose tree compiles, the bot's profile is exactly the one
`solver.resolving.continual.assemble` puts together (a test checks it).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from solver.games.holdem.betting import Betting
from solver.games.holdem.policy import ACTIONS, HoldemPolicy
from solver.games.holdem.rules import HoldemRules
from solver.resolving.kept import Hands, Kept, best_response_at_root
from solver.resolving.resolve import MODES, resolve
from solver.resolving.solved import Solved, TurnSolved
from solver.resolving.subgame import Subgame, compile_subgame
from solver.resolving.turn_resolve import (
    Buffers,
    best_response_values,
    blueprint_strategy,
    played_as_is,
    resolve_turn,
)
from solver.resolving.turn_subgame import TurnSubgame, compile_turn

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def path(betting: Betting) -> list[tuple[Betting, int]]:
    """Every (betting before an action, the action) of the hand so far, in order."""
    out = []
    at = Betting.start(betting.rules)
    for r, actions in enumerate(betting.rounds):
        for char in actions:
            action = "fcr".index(char)
            out.append((at, action))
            at = at.apply(action)
        if r + 1 < len(betting.rounds) and at.round == r:
            raise ValueError(f"betting {betting.acpc()!r} starts a round before it closes")
    return out


@dataclass(slots=True, eq=False)
class ResolvingBot:
    """See the module docstring.  `iterations` of CFR+ a re-solve; `keep` re-solves cached."""

    name: str
    rules: HoldemRules
    blueprint: HoldemPolicy
    from_round: int = 2
    mode: str = "maxmargin"
    iterations: int = 200
    turn_iterations: int | None = None
    turn_sample: int = 0
    turn_warm: float = 0.0
    """> 0: a turn re-solve starts from the blueprint (`resolve_turn`'s `warm`)."""
    turn_guard: bool = False
    """Play a turn re-solve whose alternatives are the best responses to the blueprint only if
    its margins, weighted by the opponent's range under the blueprint, are non-negative (it
    gives a best-responding opponent reaching the state no more than the blueprint does), and
    the blueprint itself otherwise."""
    keep: int = 64
    _hands: Hands = field(init=False, repr=False)
    _kept: Kept[Solved | TurnSolved] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"re-solving modes are {', '.join(MODES)}, not {self.mode!r}")
        self._hands = Hands(self.rules)
        self._kept = Kept(self.keep)

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        """See `solver.games.holdem.policy.HoldemPolicy`."""
        if betting.round < self.from_round:
            return self.blueprint.action_probabilities(betting, board, holes)
        rows = self._hands.rows(*self.solved(betting, tuple(board)).root_strategy(), holes)
        out = np.zeros((len(rows), ACTIONS))
        out[:, list(betting.legal_actions())] = rows
        return out

    def solved(self, betting: Betting, board: tuple[int, ...]) -> Solved | TurnSolved:
        """The re-solve at a public state where the bot acts (from the cache if done)."""
        return self._kept.get(betting, board, lambda: self._solve(betting, board))

    def kept(self) -> list[tuple[str, Solved | TurnSolved]]:
        """The re-solves kept, oldest first, each with its public state's betting (ACPC)."""
        return self._kept.items()

    def _solve(self, betting: Betting, board: tuple[int, ...]) -> Solved | TurnSolved:
        player = betting.player
        history = path(betting)
        earlier = [b for b, _ in history if b.player == player and b.round >= self.from_round]
        turn = self._turn_layout(betting)
        cards = self._hands.cards
        sub: Subgame | TurnSubgame = (compile_turn(self.rules, betting, board, cards)
                                      if turn else
                                      compile_subgame(self.rules, betting, board, cards))
        hands = sub.hand_ids if isinstance(sub, TurnSubgame) else sub.root_hands
        opponent = self._blueprint_reach(history, board, hands, 1 - player)
        buffers = Buffers(sub) if isinstance(sub, TurnSubgame) else None
        warm = self.turn_warm if isinstance(sub, TurnSubgame) else 0.0
        if warm and isinstance(sub, TurnSubgame) and buffers is not None:
            blueprint_strategy(sub, player, self.blueprint, buffers.strategy)
        previous_is_blueprint = False
        if earlier:
            before = earlier[-1]
            previous = self.solved(before, board[:self.rules.board_dealt(before.round)])
            previous_is_blueprint = (isinstance(previous, TurnSolved)
                                     and previous.resolved.blueprint)
            own, alternatives = (v[hands] for v in previous.carry(betting, board,
                                                                  len(self._hands)))
        else:
            own = self._blueprint_reach(history, board, hands, player)
            if isinstance(sub, TurnSubgame) and buffers is not None:
                if not warm:
                    blueprint_strategy(sub, player, self.blueprint, buffers.strategy)
                alternatives = best_response_values(sub, player, own, buffers.strategy,
                                                    buffers)
            elif isinstance(sub, Subgame):
                alternatives = self._blueprint_values(sub, player, own)
        if isinstance(sub, TurnSubgame):
            turned = resolve_turn(sub, player, own, mode=self.mode,
                                  iterations=self.turn_iterations or self.iterations,
                                  opponent_range=opponent, alternatives=alternatives,
                                  buffers=buffers, sampled=self.turn_sample, warm=warm)
            if (self.turn_guard and buffers is not None and turned.margins is not None
                    and float(opponent @ turned.margins) < 0.0
                    and (not earlier or previous_is_blueprint)):
                blueprint_strategy(sub, player, self.blueprint, buffers.strategy)
                turned = played_as_is(sub, player, own, buffers)
            return TurnSolved(sub, player, turned)
        resolved = resolve(sub.arrays, player, own, mode=self.mode, iterations=self.iterations,
                           opponent_range=opponent, alternatives=alternatives)
        return Solved(sub, player, resolved)

    def _turn_layout(self, betting: Betting) -> bool:
        """Whether the state is re-solved in the turn's layout: the second-to-last round, one
        card to come on the last."""
        rules = self.rules
        return (self.turn_iterations is not None and betting.round == rules.num_rounds - 2
                and rules.board_cards[-1] == 1 and rules.hole_cards == 2)

    def _blueprint_reach(self, history: list[tuple[Betting, int]], board: tuple[int, ...],
                         hands: IntArray, player: int) -> FloatArray:
        """`player`'s reach under the blueprint along the hand, for each of `hands`."""
        reach = np.ones(len(hands))
        cards = self._hands.cards[hands]
        for before, action in history:
            if before.player != player:
                continue
            seen = board[:self.rules.board_dealt(before.round)]
            reach *= self.blueprint.action_probabilities(before, seen, cards)[:, action]
        return reach

    def _blueprint_values(self, sub: Subgame, player: int, own: FloatArray) -> FloatArray:
        """The opponent's best-response values at the root against the blueprint below."""
        def block_of(n: int) -> FloatArray:
            betting = sub.betting[n]
            rows = self.blueprint.action_probabilities(
                betting, sub.board[n], self._hands.cards[sub.hands[sub.slots(n)]])
            return rows[:, list(betting.legal_actions())]
        return best_response_at_root(sub, player, own, block_of)

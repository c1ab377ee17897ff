"""A game that lives in one module of its own: Kuhn poker with four cards (J < Q < K < A).

Nothing outside this module (and the line that registers it) knows it; the tests that use it
show that a new game is compiled, solved, stored, listed, played and drawn through the one
game interface alone. The state is its history: two deals, then pass (0) or bet (1) moves.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.games.base import CHANCE, TERMINAL, GameDefaults, OpenSpielMapping, State
from solver.games.game_view import ViewDefaults
from solver.games.view_values import Card, LabelPart, Piece, PieceKind, PublicView

RANKS = "JQKA"
ENDINGS = {(0, 0), (1, 0), (1, 1), (0, 1, 0), (0, 1, 1)}
"""Move sequences that end the hand: check-check, bet-fold, bet-call, check-bet-fold/call."""


@dataclass(frozen=True, slots=True)
class Kuhn4State:
    history: tuple[int, ...] = ()

    @property
    def moves(self) -> tuple[int, ...]:
        return self.history[2:]

    def current_player(self) -> int:
        if len(self.history) < 2:
            return CHANCE
        return TERMINAL if self.moves in ENDINGS else len(self.moves) % 2

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return len(self.history) < 2

    def legal_actions(self) -> tuple[int, ...]:
        if self.is_chance():
            return tuple(c for c in range(4) if c not in self.history)
        return () if self.is_terminal() else (0, 1)

    def action_label(self, action: int) -> str:
        if self.is_chance():
            return RANKS[action]
        facing = 1 in self.moves
        return ("fold", "call")[action] if facing else ("check", "bet")[action]

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        if not self.is_chance():
            return ()
        left = self.legal_actions()
        return tuple((c, 1 / len(left)) for c in left)

    def apply_action(self, action: int) -> Kuhn4State:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}; legal actions: {self.legal_actions()}")
        return Kuhn4State(self.history + (action,))

    def stakes(self) -> tuple[int, int]:
        put = [1, 1]
        for i, move in enumerate(self.moves):
            put[i % 2] += move
        return put[0], put[1]

    def winner(self) -> int:
        if self.moves in ((1, 0), (0, 1, 0)):
            return len(self.moves) % 2  # the other one folded
        return 0 if self.history[0] > self.history[1] else 1

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        won = float(self.stakes()[1 - self.winner()])
        return (won, -won) if self.winner() == 0 else (-won, won)

    def information_state_key(self, player: int | None = None) -> str:
        p = self.current_player() if player is None else player
        return f"{self.private_key(p)}|{self.public_key()}"

    def public_key(self) -> str:
        return "".join("pb"[m] for m in self.moves)

    def private_key(self, player: int) -> str:
        return RANKS[self.history[player]] if player < len(self.history) else ""

    def contributions(self) -> tuple[int, int]:
        return self.stakes()

    def betting_round(self) -> tuple[int, int]:
        return (1, 1)


class Kuhn4Game(GameDefaults):
    name = "kuhn4"
    title = "Kuhn poker with four cards"
    reference_value: float | None = None
    openspiel: OpenSpielMapping | None = None

    def initial_state(self) -> Kuhn4State:
        return Kuhn4State()

    def num_distinct_actions(self) -> int:
        return 2


def _kuhn4(state: State) -> Kuhn4State:
    assert isinstance(state, Kuhn4State)
    return state


class Kuhn4View(ViewDefaults):
    """How the game is shown: as its own module says, through the one view interface."""

    rules = ("Four cards J < Q < K < A, one each, ante 1. Check or bet 1; facing a bet, call or "
             "fold.\nIf nobody folds, the higher card wins the pot.")
    pieces: PieceKind = "cards"

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        return (Card(label),) if label in RANKS else (label,)

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        return (Card(state.private_key(player)),) if player < len(state.history) else ()

    def public_view(self, state: State) -> PublicView:
        stakes = _kuhn4(state).stakes()
        return PublicView(pot=sum(stakes), contributions=stakes)

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        hand = _kuhn4(state)
        w = hand.winner()
        return f"{names[w].capitalize()} takes the pot of {sum(hand.stakes())}."

"""Rock-Paper-Scissors as a two-move game of imperfect information.

Player 0 moves first and player 1 answers without seeing that move, which turns the simultaneous
game into a tree the sequential solvers handle; the smallest sanity check for every algorithm.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from solver.games.base import TERMINAL, BuildPlan, GameDefaults, State
from solver.games.game_view import ViewDefaults
from solver.games.view_values import Move, Piece, PieceKind

MOVES: tuple[str, ...] = ("rock", "paper", "scissors")
"""Action ids 0, 1, 2; each move beats the one before it (cyclically)."""
_ALL = (0, 1, 2)


def _illegal(state: RPSState, action: int) -> ValueError:
    legal = ", ".join(f"{a} ({state.action_label(a)})" for a in state.legal_actions()) or "none"
    return ValueError(f"illegal action {action} at history {state.history}; legal actions: {legal}")


@dataclass(frozen=True, slots=True)
class RPSState:
    """The moves made so far (at most two); everything else is derived on demand."""

    history: tuple[int, ...] = ()

    def current_player(self) -> int:
        n = len(self.history)
        return n if n < 2 else TERMINAL

    def is_terminal(self) -> bool:
        return len(self.history) == 2

    def is_chance(self) -> bool:
        return False

    def legal_actions(self) -> tuple[int, ...]:
        return () if len(self.history) == 2 else _ALL

    def action_label(self, action: int) -> str:
        if not 0 <= action < 3:
            raise ValueError(f"no action {action} in rock-paper-scissors (0, 1, 2)")
        return MOVES[action]

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        return ()

    def apply_action(self, action: int) -> RPSState:
        if len(self.history) == 2 or action not in _ALL:
            raise _illegal(self, action)
        return RPSState(self.history + (action,))

    def returns(self) -> tuple[float, float]:
        if len(self.history) < 2:
            return (0.0, 0.0)
        a, b = self.history
        # (a - b) % 3 is 1 when a beats b, 2 when b beats a, 0 on a tie.
        u = (0.0, 1.0, -1.0)[(a - b) % 3]
        return (u, -u)

    def information_state_key(self, player: int | None = None) -> str:
        """``"P1"`` / ``"P2"`` for the player to move; other positions spell out what is known."""
        p = self.current_player() if player is None else player
        if p not in (0, 1):
            raise ValueError("information_state_key needs a player at a terminal state")
        if p == len(self.history):
            return f"P{p + 1}"
        parts = [f"P{p + 1}"]
        if p < len(self.history):
            parts.append(MOVES[self.history[p]])
        parts.append("end" if self.is_terminal() else "waits")
        return " ".join(parts)

    def public_key(self) -> str:
        return ("", "P1 moved", "end")[len(self.history)]

    def private_key(self, player: int) -> str:
        return MOVES[self.history[player]] if player < len(self.history) else ""


class RPSGame(GameDefaults):
    """Rock-Paper-Scissors; a plain class because the `Game` protocol declares settable fields."""

    name: str = "rps"
    title: str = "Rock-Paper-Scissors"
    reference_value: float | None = 0.0
    simultaneous = True

    def initial_state(self) -> RPSState:
        return RPSState()

    def num_distinct_actions(self) -> int:
        return 3

    @property
    def build(self) -> BuildPlan:
        return BuildPlan(("solve", self.name), algorithm="pdcfr+", background=False)

    def payoff_matrix(self) -> tuple[tuple[float, ...], ...]:
        """Rock-Paper-Scissors as a matrix game (`solver.games.base.MatrixGame`)."""
        return tuple(tuple(float(x) for x in row) for row in rps_matrix())

    @property
    def regret_matching_start(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        """Far from uniform, so that the trace of ``solve rps --algorithm rm`` shows regret
        matching converge (every CFR variant starts at the equilibrium, uniform play)."""
        return RPS_START


class RPSView(ViewDefaults):
    """How Rock-Paper-Scissors is shown: each player's move, and who beat whom."""

    rules: str = (
        "Pick rock, paper or scissors; your opponent picks without seeing yours.\n"
        "Rock beats scissors, scissors beat paper, paper beats rock: +1 a win, -1 a loss."
    )
    pieces: PieceKind = "moves"
    history_legend = "P1 chooses without seeing P2's choice, and P2 without seeing P1's."
    history_example = "e.g. P2"

    def describe_history(self, public: str) -> str:
        return "Choosing: the other's choice is hidden"

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        history = state.history
        return (Move(MOVES[history[player]]),) if player < len(history) else ()

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        if not state.is_terminal():
            return ""
        a, b = state.history
        if a == b:
            return f"Both chose {MOVES[a]}: a tie."
        winner = 0 if (a - b) % 3 == 1 else 1
        won, lost = MOVES[state.history[winner]], MOVES[state.history[1 - winner]]
        return f"{won.capitalize()} beats {lost}: 1 to {names[winner]}."


ROCK, PAPER, SCISSORS = 0, 1, 2


def rps_matrix() -> np.ndarray:
    """Rock-paper-scissors payoffs of the row player (actions rock, paper, scissors)."""
    return np.array(
        [
            [0.0, -1.0, 1.0],  # rock: loses to paper, beats scissors
            [1.0, 0.0, -1.0],  # paper: beats rock, loses to scissors
            [-1.0, 1.0, 0.0],  # scissors: loses to rock, beats paper
        ]
    )


RPS_START = ((0.6, 0.3, 0.1), (0.1, 0.2, 0.7))
"""Where regret matching starts on Rock-Paper-Scissors (`RPSGame.regret_matching_start`)."""


def rps_policy(row: np.ndarray, col: np.ndarray) -> dict[str, dict[int, float]]:
    """A `Policy` for the "rps" game: infoset "P1" for the first player, "P2" for the second."""
    return {
        "P1": {a: float(p) for a, p in enumerate(row)},
        "P2": {a: float(p) for a, p in enumerate(col)},
    }

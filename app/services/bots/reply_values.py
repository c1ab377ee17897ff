"""The values of a match against an exploitable opponent: its stored solve read as the coach's
value function.

An opponent's rows (`solver.runs.opponents`) store the opponent's own probabilities and, as
values, Q(I, a) of each action followed by the best reply to the opponent, and that best
reply's V(I). A decision in such a match is judged against the best reply: its advice is the
best actions (ties mixed evenly), V(I) the best of the Q, and the hand starts from what the best
reply wins in the seat. Those are stored values, read in microseconds: a hand against an
opponent is always analysed in the request that ends it.
"""

from __future__ import annotations

import logging

import numpy as np

from app.core.errors import StrategyUnavailableError
from app.services.bots.strategy_source import StrategySource
from solver.evaluation.values.base import DecisionValues, Habits, Reference, Segment
from solver.games import Game, State, legal_labels
from strategies import InfosetStrategy, SolveInfo

log = logging.getLogger("app.bot")

BEST_TIES = 1e-9
"""Actions whose value is this close to the best are all the best reply's (it mixes them)."""


def opponent_solve(source: StrategySource, game: Game, opponent: str) -> SolveInfo:
    """The latest stored solve of `opponent`; `StrategyUnavailableError` if there is none."""
    info = source.opponent(game.name, opponent)
    if info is None:
        raise StrategyUnavailableError(
            f"the opponent {opponent!r} of {game.name!r} is no longer stored; "
            f"`python -m solver opponents {game.name}` builds it again")
    return info


def opponent_row(source: StrategySource, game: Game, opponent: str, info: SolveInfo,
                 state: State) -> InfosetStrategy:
    """The opponent's row at the information set of the player to move in `state`, checked
    against the legal actions."""
    key = state.information_state_key(state.current_player())
    row = source.infoset(game.name, key, info.id)
    legal = legal_labels(state)
    if row is None or sorted(row.labels) != sorted(legal):
        log.error("stored %s opponent %s at %r: %s, legal %s", game.name, opponent, key, row,
                  legal)
        raise StrategyUnavailableError(
            f"the stored opponent {opponent!r} of {game.name!r} does not match the game: "
            f"`python -m solver opponents {game.name}` builds it again")
    return row


def best_reply_mix(values: tuple[float, ...]) -> tuple[float, ...]:
    """The best reply's probabilities: the best actions (within `BEST_TIES`), evenly."""
    best = max(values)
    chosen = [float(q >= best - BEST_TIES) for q in values]
    return tuple(c / sum(chosen) for c in chosen)


class ReplyValues:
    """The value function (`solver.evaluation.values.HandValuer`) of a match against the
    exploitable `opponent` of `game`: the best reply's values, read from its stored solve."""

    reference: Reference = "best_reply"

    def __init__(self, source: StrategySource, game: Game, opponent: str) -> None:
        self.source = source
        self.game = game
        self.opponent = opponent

    def both_starts(self, final: State, seat: int, habits: Habits, seed: int
                    ) -> tuple[list[Segment], list[Segment]]:
        """The same segments twice: the best reply's values do not read the habits."""
        valued = self.segments(final, seat, habits, np.random.default_rng(seed))
        return valued, valued

    def segments(self, final: State, seat: int, habits: Habits | None = None,
                 rng: np.random.Generator | None = None) -> list[Segment]:
        """The hand that reached `final` as one segment starting from what the best reply
        wins in `seat` (no habits: the best reply is the reference, whatever the player's
        habits); a hand left at the player's decision (a forfeit) has it valued last."""
        info = opponent_solve(self.source, self.game, self.opponent)
        decisions = []
        state = self.game.initial_state()
        for action in (*final.history, None):
            if not state.is_terminal() and state.current_player() == seat:
                row = opponent_row(self.source, self.game, self.opponent, info, state)
                if row.values is None:
                    raise StrategyUnavailableError(
                        f"the stored opponent {self.opponent!r} of {self.game.name!r} has "
                        "no action values")
                values = tuple(float(q) for q in row.values)
                decisions.append(DecisionValues(tuple(row.labels), best_reply_mix(values),
                                                values, max(values)))
            if action is not None:
                state = state.apply_action(action)
        start = info.best_reply[seat] if info.best_reply is not None else None
        return [Segment(start, None, tuple(decisions))]

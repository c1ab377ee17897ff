"""Poker players' style figures, counted from a hand's actions by their labels (``fold``,
``check``, ``call``, ``bet``, ``raise``: the words every poker game here uses), so that Kuhn,
Leduc and the hold'em family share one definition.

Per hand, for the player in one seat:

* **VPIP**: 1 if the player called, bet or raised in the first betting round, over the hands
  in which the player had a decision in it (antes and blinds are not voluntary; a big blind
  whose small blind folded had no decision and is not counted).
* **PFR**: 1 if the player bet or raised in the first betting round, over the same hands.
* **Aggression**: the player's bets and raises over the player's calls, every round (the
  aggression factor: a ratio, not a share).
* **Went to showdown**: 1 if the hand ended in a showdown, over the hands in which the player
  was still in when the first betting round closed; in a game of one betting round, over every
  hand in which the player had a decision.
"""

from __future__ import annotations

from abc import abstractmethod

import numpy as np

from solver.games.base import PotState, State
from solver.games.opponents import POKER_STYLES, OpponentStyle, poker_bend
from solver.games.view_values import StyleCounts, StyleStat

POKER_STYLE: tuple[StyleStat, ...] = (
    StyleStat("vpip", "VPIP", "Voluntarily put chips in the pot: the share of hands in which "
              "you called, bet or raised in the first betting round (of those in which you had "
              "a decision there)."),
    StyleStat("pfr", "PFR", "The share of hands in which you bet or raised in the first "
              "betting round (of those in which you had a decision there)."),
    StyleStat("aggression", "Aggression", "Your bets and raises per call, in every betting "
              "round (the aggression factor).", "ratio"),
    StyleStat("wtsd", "Went to showdown", "The share of hands that reached a showdown, of "
              "those in which you were still in after the first betting round (of every hand, "
              "in a game of one betting round)."),
)

VOLUNTARY = frozenset({"call", "bet", "raise"})
AGGRESSIVE = frozenset({"bet", "raise"})


def _round(state: State) -> tuple[int, int]:
    if not isinstance(state, PotState):
        raise TypeError(f"not a position of a poker game: {state!r}")
    return state.betting_round()


def poker_style_counts(start: State, state: State, seat: int) -> StyleCounts:
    """The four figures' (count, opportunities) for `seat` in the hand that reached `state`
    from the game's first position `start`."""
    position = start
    first_round: list[str] = []
    aggressive = calls = 0
    fold = False
    for action in state.history:
        player = position.current_player()
        if player >= 0:
            label = position.action_label(action)
            fold = fold or label == "fold"
            if player == seat:
                if _round(position)[0] == 1:
                    first_round.append(label)
                aggressive += label in AGGRESSIVE
                calls += label == "call"
        position = position.apply_action(action)
    counts: StyleCounts = {}
    if first_round:
        counts["vpip"] = (float(any(a in VOLUNTARY for a in first_round)), 1.0)
        counts["pfr"] = (float(any(a in AGGRESSIVE for a in first_round)), 1.0)
    if aggressive or calls:
        counts["aggression"] = (float(aggressive), float(calls))
    round_, rounds = _round(state)
    one_round = rounds == 1
    past_first = round_ >= 2
    if (one_round and first_round) or past_first:
        counts["wtsd"] = (float(state.is_terminal() and not fold), 1.0)
    return counts


class PokerStyles:
    """What a poker game's class takes from here: Kuhn, Leduc and the hold'em family count a
    player's style the same way and bend their equilibria into the same styled opponents."""

    style_stats: tuple[StyleStat, ...] = POKER_STYLE
    opponent_styles: tuple[OpponentStyle, ...] = POKER_STYLES

    @abstractmethod
    def initial_state(self) -> State: ...

    def bend(self, style: str, labels: tuple[str, ...], probabilities: np.ndarray
             ) -> np.ndarray:
        return poker_bend(style, labels, probabilities)

    def style_counts(self, state: State, seat: int) -> StyleCounts:
        return poker_style_counts(self.initial_state(), state, seat)

"""Kuhn poker: three cards, one betting round, ante 1 and bet 1.

The deal is two chance nodes (player 0's card, then player 1's from the two left), exactly as
OpenSpiel's ``kuhn_poker``, so histories, chance outcome ids and action ids line up one to one.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.games.base import (
    CHANCE,
    TERMINAL,
    BuildPlan,
    GameDefaults,
    OpenSpielMapping,
    State,
    private_then_public_key,
)
from solver.games.game_view import ViewDefaults
from solver.games.poker_style import PokerStyles
from solver.games.view_values import Card, LabelPart, Piece, PieceKind, PublicView

CARDS = "JQK"
"""Card id -> letter; a higher id is a higher card."""
PASS, BET = 0, 1
_CHARS = "pb"
_ENDS = frozenset({"pp", "bp", "bb", "pbp", "pbb"})
"""Betting sequences that end the hand."""


def _illegal(state: KuhnState, action: int) -> ValueError:
    legal = ", ".join(f"{a} ({state.action_label(a)})" for a in state.legal_actions()) or "none"
    return ValueError(f"illegal action {action} at history {state.history}; legal actions: {legal}")


@dataclass(frozen=True, slots=True)
class KuhnState:
    """Cards dealt so far and the betting as ``p``/``b`` characters."""

    history: tuple[int, ...] = ()
    cards: tuple[int, ...] = ()
    bets: str = ""

    def current_player(self) -> int:
        if len(self.cards) < 2:
            return CHANCE
        if self.bets in _ENDS:
            return TERMINAL
        return len(self.bets) % 2

    def is_terminal(self) -> bool:
        return self.bets in _ENDS

    def is_chance(self) -> bool:
        return len(self.cards) < 2

    def legal_actions(self) -> tuple[int, ...]:
        if len(self.cards) < 2:
            return tuple(c for c in range(3) if c not in self.cards)
        return () if self.bets in _ENDS else (PASS, BET)

    def action_label(self, action: int) -> str:
        if len(self.cards) < 2:
            if not 0 <= action < 3:
                raise ValueError(f"no card {action} in Kuhn poker (0=J, 1=Q, 2=K)")
            return CARDS[action]
        if action not in (PASS, BET):
            raise ValueError(f"no action {action} in Kuhn poker (0 pass, 1 bet)")
        facing_bet = "b" in self.bets
        if action == PASS:
            return "fold" if facing_bet else "check"
        return "call" if facing_bet else "bet"

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        if len(self.cards) >= 2:
            return ()
        left = self.legal_actions()
        return tuple((c, 1.0 / len(left)) for c in left)

    def apply_action(self, action: int) -> KuhnState:
        if action not in self.legal_actions():
            raise _illegal(self, action)
        history = self.history + (action,)
        if len(self.cards) < 2:
            return KuhnState(history, self.cards + (action,), "")
        return KuhnState(history, self.cards, self.bets + _CHARS[action])

    def returns(self) -> tuple[float, float]:
        if self.bets not in _ENDS:
            return (0.0, 0.0)
        if self.bets == "bp":
            return (1.0, -1.0)
        if self.bets == "pbp":
            return (-1.0, 1.0)
        stake = 2.0 if self.bets.endswith("b") else 1.0
        u = stake if self.cards[0] > self.cards[1] else -stake
        return (u, -u)

    def information_state_key(self, player: int | None = None) -> str:
        """``"Q|pb"``: own card, then the betting so far."""
        return private_then_public_key(self, player)

    def public_key(self) -> str:
        return self.bets

    def private_key(self, player: int) -> str:
        return CARDS[self.cards[player]] if player < len(self.cards) else ""

    def contributions(self) -> tuple[int, int]:
        """Chips in the pot from each seat: the ante, plus 1 for each bet or call."""
        put = [1, 1]
        for i, char in enumerate(self.bets):
            put[i % 2] += char == "b"
        return put[0], put[1]

    def betting_round(self) -> tuple[int, int]:
        return (1, 1)


class KuhnOpenSpiel:
    """OpenSpiel's ``kuhn_poker``: the same ids; its information state is the card id then
    the betting (``"1pb"``)."""

    game_string = "kuhn_poker"

    def information_state_string(self, state: State, player: int) -> str:
        assert isinstance(state, KuhnState)
        return f"{state.cards[player]}{state.bets}"

    def action_id(self, state: State, action: int) -> int:
        return action


class KuhnGame(PokerStyles, GameDefaults):
    """Kuhn poker; a plain class because the `Game` protocol declares settable fields."""

    name: str = "kuhn"
    title: str = "Kuhn poker"
    reference_value: float | None = -1.0 / 18.0
    openspiel: OpenSpielMapping | None = KuhnOpenSpiel()

    @property
    def build(self) -> BuildPlan:
        return BuildPlan(("solve", self.name), algorithm="pdcfr+", background=False,
                         opponents=True)

    def initial_state(self) -> KuhnState:
        return KuhnState()

    def num_distinct_actions(self) -> int:
        return 2


def _kuhn(state: State) -> KuhnState:
    if not isinstance(state, KuhnState):
        raise TypeError(f"not a position of Kuhn poker: {state!r}")
    return state


class KuhnView(ViewDefaults):
    """How Kuhn poker is shown: each player's card, the pot, and why a hand ended."""

    rules: str = (
        "Three cards J < Q < K, one each, ante 1. Check or bet 1; facing a bet, call or fold.\n"
        "If nobody folds, the higher card wins the pot."
    )
    pieces: PieceKind = "cards"
    history_legend = "History: p = check or fold, b = bet or call."
    history_example = "e.g. pb"

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        return (Card(label),) if label in CARDS else (label,)

    def describe_history(self, public: str) -> str:
        """``pb`` -> ``"Moves so far: check, bet"`` (p is a check, or a fold facing a bet; b a
        bet, or a call facing one)."""
        if not public:
            return "Opening move: nothing has happened yet"
        words, facing = [], False
        for move in public:
            words.append(("call" if facing else "bet") if move == "b" else
                         ("fold" if facing else "check"))
            facing = move == "b" and not facing
        return "Moves so far: " + ", ".join(words)

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        cards = _kuhn(state).cards
        return (Card(CARDS[cards[player]]),) if player < len(cards) else ()

    def public_view(self, state: State) -> PublicView:
        position = _kuhn(state)
        put = position.contributions()
        return PublicView(pot=sum(put), contributions=put, betting=position.bets)

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        position = _kuhn(state)
        if not position.is_terminal():
            return ""
        put, bets, cards = position.contributions(), position.bets, position.cards
        if bets in ("bp", "pbp"):
            folder = (len(bets) - 1) % 2
            winner = 1 - folder
            return (f"{names[folder].capitalize()} folded to the bet: {put[folder]} to "
                    f"{names[winner]}.")
        winner = 0 if cards[0] > cards[1] else 1
        loser = 1 - winner
        return (f"Showdown: {CARDS[cards[winner]]} beats {CARDS[cards[loser]]}: "
                f"{put[loser]} to {names[winner]}.")

"""Standard Leduc hold'em, move for move the same game as OpenSpiel's ``leduc_poker``.

Card ids, chance outcome ids and action ids all equal OpenSpiel's (card ``c`` has rank
``c // 2`` and suit ``c % 2``, checked against pyspiel in the tests), so a strategy computed here
can be evaluated by OpenSpiel through `solver.runs.export` without any relabelling.
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
from solver.games.view_values import (
    Card,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    betting_words,
    cards_text,
)

FOLD, CALL, RAISE = 0, 1, 2
_CHARS = "fcr"
RANKS = "JQK"
SUITS = "sh"
_RANK_NAMES = ("Jack", "Queen", "King")
CARD_NAMES: tuple[str, ...] = tuple(RANKS[c // 2] + SUITS[c % 2] for c in range(6))
"""Card id -> name: ``Js, Jh, Qs, Qh, Ks, Kh``."""
ANTE = 1
RAISE_SIZES = (2, 4)
"""Bet/raise size in round 1 and round 2."""
MAX_RAISES = 2


def _illegal(state: LeducState, action: int) -> ValueError:
    legal = ", ".join(f"{a} ({state.action_label(a)})" for a in state.legal_actions()) or "none"
    return ValueError(f"illegal action {action} at history {state.history}; legal actions: {legal}")


def _strength(card: int, board: int) -> int:
    """Pairing the board beats any single card; otherwise only the rank counts."""
    rank = card // 2
    return 10 + rank if rank == board // 2 else rank


@dataclass(frozen=True, slots=True)
class LeducState:
    """Everything needed to move on in O(1): cards, betting per round, stakes, who is to act.

    ``cards`` holds player 0's card, player 1's card and the board, as far as dealt;
    ``stakes`` are the chips each player has put in (ante included).
    """

    history: tuple[int, ...] = ()
    cards: tuple[int, ...] = ()
    round1: str = ""
    round2: str = ""
    player: int = CHANCE
    stakes: tuple[int, int] = (ANTE, ANTE)
    raises: int = 0

    def current_player(self) -> int:
        return self.player

    def is_terminal(self) -> bool:
        return self.player == TERMINAL

    def is_chance(self) -> bool:
        return self.player == CHANCE

    def legal_actions(self) -> tuple[int, ...]:
        p = self.player
        if p == CHANCE:
            return tuple(c for c in range(6) if c not in self.cards)
        if p == TERMINAL:
            return ()
        if self.stakes[p] < self.stakes[1 - p]:
            return (FOLD, CALL, RAISE) if self.raises < MAX_RAISES else (FOLD, CALL)
        return (CALL, RAISE)

    def action_label(self, action: int) -> str:
        if self.player == CHANCE:
            if not 0 <= action < 6:
                raise ValueError(f"no card {action} in Leduc hold'em (0..5)")
            return CARD_NAMES[action]
        if not 0 <= action < 3:
            raise ValueError(f"no action {action} in Leduc hold'em (0 fold, 1 call, 2 raise)")
        p = self.player
        facing_bet = p in (0, 1) and self.stakes[p] < self.stakes[1 - p]
        if action == FOLD:
            return "fold"
        if action == CALL:
            return "call" if facing_bet else "check"
        return "raise" if facing_bet else "bet"

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        if self.player != CHANCE:
            return ()
        left = self.legal_actions()
        return tuple((c, 1.0 / len(left)) for c in left)

    def apply_action(self, action: int) -> LeducState:
        p = self.player
        history = self.history + (action,)
        if p == CHANCE:
            if not 0 <= action < 6 or action in self.cards:
                raise _illegal(self, action)
            cards = self.cards + (action,)
            if len(cards) == 1:
                return LeducState(history, cards)
            # Player 0 opens both rounds; the raise count restarts with the board.
            return LeducState(history, cards, self.round1, self.round2, 0, self.stakes, 0)
        if p == TERMINAL or action not in self.legal_actions():
            raise _illegal(self, action)
        in_round2 = len(self.cards) == 3
        chars = (self.round2 if in_round2 else self.round1) + _CHARS[action]
        stakes, raises, nxt = self.stakes, self.raises, 1 - p
        if action == FOLD:
            nxt = TERMINAL
        elif action == CALL:
            stakes = (stakes[1], stakes[1]) if p == 0 else (stakes[0], stakes[0])
            if len(chars) >= 2:  # a call that is not the opening check closes the round
                nxt = TERMINAL if in_round2 else CHANCE
        else:
            raised = stakes[1 - p] + RAISE_SIZES[in_round2]
            stakes = (raised, stakes[1]) if p == 0 else (stakes[0], raised)
            raises += 1
        if in_round2:
            return LeducState(history, self.cards, self.round1, chars, nxt, stakes, raises)
        return LeducState(history, self.cards, chars, "", nxt, stakes, raises)

    def returns(self) -> tuple[float, float]:
        if self.player != TERMINAL:
            return (0.0, 0.0)
        last = self.round2 or self.round1
        if last.endswith("f"):
            folder = (len(last) - 1) % 2  # both rounds open with player 0 and alternate
            lost = float(self.stakes[folder])
            return (-lost, lost) if folder == 0 else (lost, -lost)
        board = self.cards[2]
        s0, s1 = _strength(self.cards[0], board), _strength(self.cards[1], board)
        if s0 == s1:
            return (0.0, 0.0)
        won = float(self.stakes[0])  # equal stakes at a showdown
        return (won, -won) if s0 > s1 else (-won, won)

    def information_state_key(self, player: int | None = None) -> str:
        """``"Ks|rc|Qh|cr"``: own card, round-1 betting, board, round-2 betting."""
        return private_then_public_key(self, player)

    def public_key(self) -> str:
        if len(self.cards) < 3:
            return self.round1
        return f"{self.round1}|{CARD_NAMES[self.cards[2]]}|{self.round2}"

    def private_key(self, player: int) -> str:
        return CARD_NAMES[self.cards[player]] if player < len(self.cards) else ""

    def contributions(self) -> tuple[int, int]:
        return self.stakes

    def betting_round(self) -> tuple[int, int]:
        return (2 if len(self.cards) == 3 else 1, 2)


def card_piece(card: int) -> Card:
    return Card(RANKS[card // 2], SUITS[card % 2])


_CARD_IDS = {name: c for c, name in enumerate(CARD_NAMES)}
_OPENSPIEL_MONEY = 100
"""OpenSpiel's leduc_poker starting stack; its strings show what is left of it."""
_OPENSPIEL_IDS = {"f": "0", "c": "1", "r": "2"}


class LeducOpenSpiel:
    """OpenSpiel's ``leduc_poker``: the same card and action ids; its information state is
    ``[Observer: p][Private: c][Round r][Player: p][Pot: n][Money: a b]([Public: b])``
    ``[Round1: ids][Round2: ids]`` with 100 chips each."""

    game_string = "leduc_poker"

    def information_state_string(self, state: State, player: int) -> str:
        assert isinstance(state, LeducState)
        round2 = len(state.cards) == 3
        a, b = state.stakes
        parts = [
            f"[Observer: {player}][Private: {state.cards[player]}][Round {2 if round2 else 1}]",
            f"[Player: {state.current_player()}][Pot: {a + b}]",
            f"[Money: {_OPENSPIEL_MONEY - a} {_OPENSPIEL_MONEY - b}]",
        ]
        if round2:
            parts.append(f"[Public: {state.cards[2]}]")
        r1 = " ".join(_OPENSPIEL_IDS[c] for c in state.round1)
        r2 = " ".join(_OPENSPIEL_IDS[c] for c in state.round2)
        parts.append(f"[Round1: {r1}][Round2: {r2}]")
        return "".join(parts)

    def action_id(self, state: State, action: int) -> int:
        return action


class LeducGame(PokerStyles, GameDefaults):
    """Leduc hold'em; a plain class because the `Game` protocol declares settable fields."""

    name: str = "leduc"
    title: str = "Leduc hold'em"
    reference_value: float | None = -0.085606424078
    openspiel: OpenSpielMapping | None = LeducOpenSpiel()

    @property
    def build(self) -> BuildPlan:
        return BuildPlan(("solve", self.name), algorithm="dcfr", background=False,
                         opponents=True)

    def initial_state(self) -> LeducState:
        return LeducState()

    def num_distinct_actions(self) -> int:
        return 3


def _leduc(state: State) -> LeducState:
    if not isinstance(state, LeducState):
        raise TypeError(f"not a position of Leduc hold'em: {state!r}")
    return state


class LeducView(ViewDefaults):
    """How Leduc hold'em is shown: each player's card, the board, the pot, and the showdown."""

    rules: str = (
        "Six cards (J, Q, K in two suits), ante 1, one private card each; bets of 2, then 4 after"
        " a public card, at most a bet and a raise per round.\n"
        "At showdown a pair with the public card wins, else the higher card; equal ranks split."
    )
    pieces: PieceKind = "cards"
    history_legend = ("History: c = check or call, r = bet or raise, f = fold; round 1 | board "
                      "| round 2.")
    history_example = "e.g. rc|Qh"

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        card = _CARD_IDS.get(label)
        return (card_piece(card),) if card is not None else (label,)

    def describe_history(self, public: str) -> str:
        if not public:
            return "Opening move: nothing has happened yet"
        round1, _, rest = public.partition("|")
        board, _, round2 = rest.partition("|")
        text = f"Round 1: {betting_words(round1)}"
        return text + (f"; board {cards_text(board)}; round 2: {betting_words(round2)}"
                       if board else "")

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        cards = _leduc(state).cards
        return (card_piece(cards[player]),) if player < len(cards) else ()

    def public_view(self, state: State) -> PublicView:
        position = _leduc(state)
        cards = position.cards
        board = (card_piece(cards[2]),) if len(cards) == 3 else ()
        betting = position.round1 + (f"/{position.round2}" if board else "")
        return PublicView(pot=sum(position.stakes), contributions=position.stakes,
                          round=2 if board else 1, rounds=2, board=board, board_slots=1,
                          betting=betting)

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        position = _leduc(state)
        if position.player != TERMINAL:
            return ""
        last = position.round2 or position.round1
        if last.endswith("f"):
            folder = (len(last) - 1) % 2
            return (f"{names[folder].capitalize()} folded: {position.stakes[folder]} to "
                    f"{names[1 - folder]}.")
        board = position.cards[2]
        ranks = [position.cards[p] // 2 for p in (0, 1)]
        s0, s1 = _strength(position.cards[0], board), _strength(position.cards[1], board)
        shown = f"Showdown with {CARD_NAMES[board]} on the board"
        if s0 == s1:
            return f"{shown}: both hold a {_RANK_NAMES[ranks[0]]}, the pot is split."
        winner = 0 if s0 > s1 else 1
        how = ("pairs the board" if ranks[winner] == board // 2
               else f"is higher than {_RANK_NAMES[ranks[1 - winner]]}")
        return (f"{shown}: {_RANK_NAMES[ranks[winner]]} {how}: {position.stakes[1 - winner]} to "
                f"{names[winner]}.")

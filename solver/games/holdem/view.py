"""How a player sees a member of the limit hold'em family (`solver.games.game_view`): the
cards, the board round by round, the pot, the showdown in words, the 13×13 grid of hand
classes, the spots of the explorer and hands written as PHH."""

from __future__ import annotations

from collections.abc import Sequence

from solver.cards.deck import RANK_CHARS
from solver.games.base import State
from solver.games.game_view import ClassSpots, PlayedHand, ViewDefaults, legal_action_group
from solver.games.holdem.betting import CALL
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.history import hand_history
from solver.games.holdem.names import kicker, name_hand
from solver.games.holdem.spots import class_spots
from solver.games.holdem.words import notes, rules_text, seat_of, street
from solver.games.view_values import (
    ActionGroup,
    AmountChoice,
    Card,
    HandClasses,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    ResultUnit,
    betting_words,
    cards_text,
)


def _hand(state: State) -> HoldemState:
    if not isinstance(state, HoldemState):
        raise TypeError(f"not a position of limit hold'em: {state!r}")
    return state


class HoldemView(ViewDefaults):
    """How one member is shown, all from its `HoldemRules`."""

    pieces: PieceKind = "cards"

    def __init__(self, game: HoldemGame) -> None:
        super().__init__(game)
        self.holdem = game
        d = game.definition
        self.rules = rules_text(d)
        self.notes = notes(d)
        self.seats = (seat_of(d, 0), seat_of(d, 1))
        self.history_legend = (
            "History: c = check or call, r = bet or raise, f = fold; the first round's betting, "
            "then each later round's board cards and betting, separated by |.")
        self.spot_legend = (
            "The board: none before the flop, then the flop's cards, the turn's and the river's "
            "(like As Kd 7c). The betting: c checks or calls, r bets or raises, f folds; the "
            "rounds may be split by |. When a betting round ends, add the next board cards."
            if d.num_rounds > 1 else "The betting: c checks or calls, r bets or raises, f folds.")
        self.history_example = "e.g. " + ("rc|4c|cr" if d.num_rounds > 1 else "rc")
        self._card_ids = {name: c for c, name in enumerate(game.card_names)}
        big_blind = max(d.blinds)
        # Equal blinds are antes (Leduc's way): there is no big blind to count in.
        self.result_unit: ResultUnit | None = ResultUnit(
            "mbb/hand", 1000 / big_blind,
            f"thousandths of the big blind ({big_blind} chips) per hand, poker's usual rate"
        ) if d.blinds[0] != d.blinds[1] else None
        self.hand_classes: HandClasses | None = (
            HandClasses(RANK_CHARS[:d.num_ranks][::-1]) if d.hole_cards == 2 else None)
        if d.push_or_fold and self.hand_classes is not None:
            self.chart_spots = (("The small blind: all-in or fold", "", ""),
                                ("The big blind: call the all-in or fold", "", "r"))

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        """A card, or several written together (``3d2c``), as cards; anything else as text."""
        if label and len(label) % 2 == 0:
            ids = [self._card_ids.get(label[i:i + 2]) for i in range(0, len(label), 2)]
            if all(c is not None for c in ids):
                return tuple(self._card(c) for c in ids if c is not None)
        return (label,)

    def describe_history(self, public: str) -> str:
        if not public:
            return "Opening move: nothing has happened yet"
        d = self.holdem.definition
        # Each round's board and betting; a last round whose board is out may have no betting.
        segments = [""] * (d.board_cards[0] == 0) + public.split("|") + [""]
        blind = d.blinds[d.first_player[0]] < max(d.blinds)  # the first to act faces a blind
        return "; ".join(
            f"{street(d, r)}{f' ({cards_text(board)})' if board else ''}: "
            + betting_words(bets, facing=r == 0 and blind, opened=r == 0 and max(d.blinds) > 0)
            for r, (board, bets) in enumerate(zip(segments[:-1:2], segments[1::2], strict=False))
            if r < d.num_rounds)

    def pieces_of(self, cards: tuple[int, ...], by_round: bool = False) -> tuple[Piece, ...]:
        """Cards as drawn, high to low (the board round by round when `by_round`)."""
        if not by_round:
            return tuple(self._card(c) for c in sorted(cards, reverse=True))
        out: list[Piece] = []
        starts = self.holdem.board_start
        for r in range(self.holdem.definition.num_rounds):
            dealt = cards[starts[r]: starts[r + 1]]
            out.extend(self._card(c) for c in sorted(dealt, reverse=True))
        return tuple(out)

    def _card(self, card: int) -> Card:
        name = self.holdem.card_names[card]
        return Card(name[0], name[1])

    @property
    def hand_history_format(self) -> str | None:
        return "phh" if self.holdem.phh_variant is not None else None

    def class_spots(self, board: str, line: str) -> ClassSpots:
        return class_spots(self.holdem, self.hand_classes, board, line)

    def hand_histories(self, hands: Sequence[PlayedHand]) -> str:
        """PHH, the Poker Hand History format (`solver.games.holdem.history`): several hands
        in one file, each a table named by its hand number (so that files of consecutive
        pages join into one)."""
        if self.hand_history_format is None:
            raise ValueError(f"{self.holdem.name} has no hand-history format: PHH knows "
                             "heads-up Texas hold'em (limit and no-limit) only")
        return "".join(
            f"[{hand.number}]\n{hand_history(self.holdem, _hand(hand.state), hand).dumps()}\n"
            for hand in hands)

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        return self.pieces_of(_hand(state).hole(player))

    def public_view(self, state: State) -> PublicView:
        position = _hand(state)
        definition = self.holdem.definition
        spent = position.betting.spent
        return PublicView(pot=spent[0] + spent[1], contributions=spent,
                          round=position.betting.round + 1, rounds=definition.num_rounds,
                          board=self.pieces_of(position.board(), by_round=True),
                          board_slots=sum(definition.board_cards),
                          betting=position.betting.acpc())

    def action_groups(self, state: State) -> tuple[ActionGroup, ...]:
        """Every legal move in a row; where the size is the player's to choose, only fold,
        check and call (the amounts have their own controls: `amount_choice`)."""
        betting = _hand(state).betting
        if self.amount_choice(state) is None:
            return legal_action_group(state)
        calls = tuple(betting.label(a) for a in betting.legal_actions() if a <= CALL)
        return (ActionGroup("Your move", calls),)

    def amount_choice(self, state: State) -> AmountChoice | None:
        """In a member that allows every size, the raise to any amount from the smallest legal
        raise to all-in, with the smallest, half the pot, the pot and all-in named."""
        betting = _hand(state).betting
        if not self.holdem.definition.no_limit or self.holdem.definition.bets is not None:
            return None
        limits = betting.raise_range() if not betting.over else None
        if limits is None:
            return None
        low, high = limits
        top = max(betting.spent)
        after_call = sum(betting.spent) + top - betting.spent[betting.player]
        named = (("all-in", high), ("min", low), ("½ pot", top + after_call // 2),
                 ("pot", top + after_call))
        quick: dict[int, str] = {}
        for name, amount in named:
            quick.setdefault(min(max(amount, low), high), name)
        template = betting.label(low).rpartition(" ")[0] + " {}"  # "raise to {}", "bet {}"
        return AmountChoice(("bet", "raise"), low, high, template,
                            tuple(sorted(((n, a) for a, n in quick.items()),
                                         key=lambda item: item[1])))

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        position = _hand(state)
        betting = position.betting
        if not betting.over:
            return ""
        spent, folded = betting.spent, betting.folded
        if folded >= 0:
            return f"{names[folded].capitalize()} folded: {spent[folded]} to {names[1 - folded]}."
        deck, board = self.holdem.definition.deck, position.board()
        hands = [name_hand(position.hole(p) + board, deck) for p in (0, 1)]
        winner = position.winner()
        if winner is None:
            return f"Showdown: both play {hands[0].text}, the pot is split."
        won, lost = hands[winner], hands[1 - winner]
        return (f"Showdown: {won.text} beats {lost.text}{kicker(won, lost)}: "
                f"{spent[1 - winner]} to {names[winner]}.")

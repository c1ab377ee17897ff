"""How a player sees Dudo and a whole match of it: the dice, the bids, the grid of bids to
choose from and why a call went as it did (`solver.games.game_view`)."""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Any

from solver.games.base import State
from solver.games.dudo.game import DudoGame, DudoState
from solver.games.dudo.match import WIN_CHANCES, DudoMatchState, win_chances
from solver.games.dudo.rules import bid_groups, explain_call, tables
from solver.games.game_view import ViewDefaults
from solver.games.view_values import (
    ActionGroup,
    Die,
    FinishedRound,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    Seat,
)


def dice_label_parts(label: str) -> tuple[LabelPart, ...]:
    """``"2x5"`` as 2 x a die, a roll ``"16"`` as its dice, anything else as text."""
    quantity, sep, face = label.partition("x")
    if sep and quantity.isdigit() and face.isdigit():
        return (f"{quantity}×", Die(int(face)))
    if label.isdigit() and "0" not in label:
        return tuple(Die(int(c)) for c in label)
    return (label,)


def _round(state: State) -> DudoState:
    if not isinstance(state, DudoState):
        raise TypeError(f"not a position of Dudo: {state!r}")
    return state


def _match(state: State) -> DudoMatchState:
    if not isinstance(state, DudoMatchState):
        raise TypeError(f"not a position of a Dudo match: {state!r}")
    return state


class DudoView(ViewDefaults):
    """How one round of Dudo is shown, for any dice counts, with or without calzo."""

    pieces: PieceKind = "dice"
    wins_and_losses: bool = True
    history_legend = "History: the bids so far, quantity x face."
    history_example = "e.g. 1x2,1x6"

    def __init__(self, game: DudoGame) -> None:
        super().__init__(game)
        dice, calzo = game.dudo_rules.dice, game.calzo
        if dice == (1, 1):
            held = "One secret die each"
        else:
            held = f"Secret dice: {dice[0]} for the opener, {dice[1]} for the other"
        extra = " or calzo (exactly right)" if calzo else ""
        on = "both dice" if dice == (1, 1) else f"all {dice[0] + dice[1]} dice"
        self.rules = (
            f"{held}, 1s wild. Bid 'quantity x face' on {on}, each bid stronger than the last.\n"
            f"Or call dudo (the bid is wrong){extra}: the loser of the call pays 1."
        )
        self.notes = (
            "A bid 'q x f' says that at least q of all the dice show f or a 1: 1s are wild.",
            "A bid must be stronger than the last: more dice, or as many on a higher face. "
            + ("Each row of bids ends with the 1s: a bid on 1s counts only 1s, so it outranks "
               "the same quantity of any other face." if dice == (1, 1) else
               "The grid has a row per quantity and the 1s in a column of their own: a bid on "
               "1s counts only 1s, so n x 1 ranks just above (2n - 1) x 6 and below 2n x 2 "
               "(the bids still open to you are the ones not greyed out)."),
            "Dudo: you doubt the last bid. If fewer dice match, its bidder loses; otherwise you "
            "lose." + (" Calzo: you claim the last bid is exactly right; you win if it is, "
                       "and lose otherwise." if calzo else ""),
        )

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        return dice_label_parts(label)

    def describe_history(self, public: str) -> str:
        return f"Bids: {public.replace(',', ', ')}" if public else "Opening bid"

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        return tuple(Die(face) for face in _round(state).dice(player))

    def public_view(self, state: State) -> PublicView:
        position = _round(state)
        rules = position.rules
        bids = tuple(tables(rules).labels[m] for m in position.moves() if m < rules.dudo)
        held = None if rules.dice == (1, 1) else rules.dice
        return PublicView(bids=bids, last_bid=bids[-1] if bids else None, pieces_held=held)

    def action_groups(self, state: State) -> tuple[ActionGroup, ...]:
        return bid_groups(_round(state).rules)

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        position = _round(state)
        if not position.is_terminal():
            return ""
        return explain_call(position.rules, (position.dice(0), position.dice(1)),
                            position.moves(), names, "1")[0]


class DudoMatchView(ViewDefaults):
    """How a whole match is shown: the rounds played, the dice each seat holds, and each
    seat's chance of winning it from the solve's table."""

    rules: str = ("Five secret dice each, 1s wild; each round is a game of Dudo on all the dice.\n"
                  "The loser of a round loses a die and opens the next; whoever has no dice "
                  "left loses the match.")
    pieces: PieceKind = "dice"
    wins_and_losses: bool = True
    seats: tuple[Seat, Seat] = (
        Seat("first", "first in round 1"), Seat("second", "second in round 1"))
    history_legend: str = ("History: each finished round as both rolls and its moves, then the "
                           "current round's dice counts and bids.")
    history_example: str = "e.g. 12356-2245:1x2,4x5,dudo/4v5:2x3"
    notes: tuple[str, ...] = (
        "A bid 'q x f' says that at least q of all the dice show f or a 1: 1s are wild.",
        "The grid has a row per quantity and the 1s in a column of their own: a bid on 1s counts "
        "only 1s, so n x 1 ranks just above (2n - 1) x 6 and below 2n x 2 (the bids still open "
        "to you are the ones not greyed out). It shrinks as dice are lost.",
        "Dudo: you doubt the last bid. If fewer dice match, its bidder loses a die; otherwise "
        "you do. The loser opens the next round.",
        "The bot plays to win the match, not the round: a round's stakes are the chances of "
        "winning the match from the dice counts it leads to.",
    )
    required_figures: tuple[str, ...] = (WIN_CHANCES,)

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        """Bids and rolls as dice; a stored key's private part, ``5v4:12356`` (the round's
        dice counts, the opener's first, then the player's dice), with its counts in words."""
        counts, sep, dice = label.partition(":")
        a, v, b = counts.partition("v")
        if sep and v and a.isdigit() and b.isdigit():
            each = f"{a} {'die' if a == '1' else 'dice'} each" if a == b else f"{a} v {b} dice"
            return (f"round of {each}: ", *dice_label_parts(dice))
        return dice_label_parts(label)

    def describe_history(self, public: str) -> str:
        """The match's public key (``12356-2245:1x2,dudo/4v5:2x3``: the finished rounds, then
        this round's counts, seat 0's first, and bids) or the public part of a stored key,
        which holds only the bids its round remembers (its counts are in the private part)."""
        if ":" not in public:
            bids = public.replace(",", ", ")
            return (f"Bids remembered (the last of this round): {bids}" if bids else
                    "The opening bid of a round")
        *done, current = public.split("/")
        counts, _, bids = current.partition(":")
        a, _, b = counts.partition("v")
        where = f"Round {len(done) + 1}, dice {a} against {b} (the first player's first)"
        return f"{where}: {'bids ' + bids.replace(',', ', ') if bids else 'the opening bid'}"

    def win_chances(self, state: State, figures: Mapping[str, Any]
                    ) -> tuple[float, float] | None:
        """From the start of the round being played (None once it is over)."""
        table = figures.get(WIN_CHANCES)
        r = _match(state).current
        if not isinstance(table, Mapping) or r.over():
            return None
        return win_chances(r.counts, r.opener, table)

    def private_pieces(self, state: State, player: int) -> tuple[Piece, ...]:
        return tuple(Die(face) for face in _match(state).held(player))

    def public_view(self, state: State) -> PublicView:
        position = _match(state)
        r = position.current
        bids = r.bid_labels()
        finished = tuple(
            FinishedRound(i + 1, (tuple(map(Die, x.dice(0))), tuple(map(Die, x.dice(1)))),
                          x.loser(), partial(x.explain))
            for i, x in enumerate(position.rounds) if x.over())
        return PublicView(round=position.number, bids=bids, last_bid=bids[-1] if bids else None,
                          pieces_held=position.counts, finished_rounds=finished)

    def action_groups(self, state: State) -> tuple[ActionGroup, ...]:
        return bid_groups(_match(state).current.rules)

    def outcome_text(self, state: State, names: tuple[str, str]) -> str:
        position = _match(state)
        if not position.is_terminal():
            return ""
        r = position.current
        winner = 0 if position.counts[1] == 0 else 1
        last = r.explain(names, "the last die")
        verb = "win" if names[winner] == "you" else "wins"
        return f"{last[:-1]}, so {names[winner]} {verb} the match in {position.number} rounds."

"""A hold'em hand's opening (`base.Opening`): the player's starting hand and, if the bot acts
first, the bot's first action; and how likely each opening is before the deal.

The valuer has no exact value of a hand's start in hold'em (the bot's value is only estimated
by self-play), so the first decision's value stands in for it and carries the luck of the
deal: in heads-up limit hold'em about four fifths of what spread the luck-adjusted result
keeps for a player who plays by its cards. `app.services.analysis.openings` takes that luck
out with values learnt over the earlier hands; for that it needs the opening's exact chances, which
come from the deal (every hand of the player equally likely) and the bot's strategy at its
first decision, the other's cards unknown (`OpeningChances`).

A path runs from coarse to fine, so that an opening seen seldom borrows from its kin: the
seat, the bot's action, the kind of starting hand (a pair, suited, offsuit), the hand's class
(``AKs``: ranks high first, suited or not): ``seat 0/raise/suited/AKs``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

import numpy as np
from numpy.typing import NDArray

from solver.cards.deck import RANK_CHARS, Deck
from solver.evaluation.values.base import Opening
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemState
from solver.games.holdem.policy import slot_of

__all__ = ["OpeningChances", "hand_class", "opening_path"]


class Playing(Protocol):
    """What the chances read of the bot (`holdem.HoldemValues.played` or its tables)."""

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]: ...


def hand_class(deck: Deck, hole: tuple[int, ...]) -> tuple[str, str]:
    """The kind of a starting hand and its class: ``("pair", "QQ")``, ``("suited", "AKs")``,
    ``("offsuit", "72o")``; a one-card hand is its rank (``("card", "K")``)."""
    if len(hole) == 1:
        return "card", RANK_CHARS[deck.rank(hole[0])]
    high, low = sorted(hole, key=deck.rank, reverse=True)
    ranks = RANK_CHARS[deck.rank(high)] + RANK_CHARS[deck.rank(low)]
    if deck.rank(high) == deck.rank(low):
        return "pair", ranks
    if deck.suit(high) == deck.suit(low):
        return "suited", ranks + "s"
    return "offsuit", ranks + "o"


def opening_path(seat: int, action: str | None, hole: tuple[int, ...], deck: Deck) -> str:
    """The path of an opening (the module doc); `action` is the bot's first one, if it acted
    before the player."""
    kind, name = hand_class(deck, hole)
    parts = [f"seat {seat}", *([action] if action is not None else []), kind, name]
    return "/".join(parts)


@dataclass(slots=True, eq=False)
class OpeningChances:
    """How likely each opening of a seat is, computed once per seat and bot."""

    deck: Deck
    combos: NDArray[np.int64]
    """Every hand a player may hold (`policy.hole_combos`), each as likely as the next."""
    _by_seat: dict[int, dict[str, float]] = field(default_factory=dict, init=False)

    def opening(self, final: HoldemState, seat: int, playing: Playing) -> Opening:
        """The opening of the player in `seat` in the hand that reached `final`."""
        state = final.game.initial_state()
        action: str | None = None
        betting: Betting | None = None
        for step in final.history:
            player = state.current_player()
            if player == seat:
                break
            if player == 1 - seat:
                action, betting = state.action_label(step), state.betting
                break
            state = state.apply_action(step)
        chances = self._by_seat.get(seat)
        if chances is None:
            if action is None:  # the player acts first: its hand is all there is
                chances = self._deal_chances(seat)
            else:
                assert betting is not None
                chances = self._action_chances(seat, betting, playing, state)
            self._by_seat[seat] = chances
        return Opening(opening_path(seat, action, final.hole(seat), self.deck), chances)

    def _deal_chances(self, seat: int) -> dict[str, float]:
        out: dict[str, float] = {}
        share = 1.0 / len(self.combos)
        for hole in self.combos:
            key = opening_path(seat, None, tuple(int(c) for c in hole), self.deck)
            out[key] = out.get(key, 0.0) + share
        return out

    def _action_chances(self, seat: int, betting: Betting, playing: Playing,
                        state: HoldemState) -> dict[str, float]:
        """Per opening: the chance of the player's hand times the probability of the bot's
        action over the bot's hands that miss it, each as likely (card removal exact)."""
        combos = self.combos
        p = playing.action_probabilities(betting, (), combos)
        masks = (np.int64(1) << combos).sum(axis=1)
        apart = ((masks[:, None] & masks[None, :]) == 0).astype(np.float64)
        given = apart @ p / apart.sum(axis=1)[:, None]  # P(action | the player's hand)
        share = 1.0 / len(combos)
        out: dict[str, float] = {}
        for a in betting.legal_actions():
            label = state.action_label(a)
            for hole, chance in zip(combos, given[:, slot_of(betting, a)], strict=True):
                key = opening_path(seat, label, tuple(int(c) for c in hole), self.deck)
                out[key] = out.get(key, 0.0) + share * float(chance)
        return out

"""A hold'em hand's opening and its chances: the chances are those of every ordered deal of
holdem-mini with the bot's first action (brute force over the deals), and a played hand's
opening names the player's class and the bot's action before it."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from solver.abstractions.holdem.bot import HulheBot
from solver.cards.deck import Deck
from solver.evaluation.values.holdem import HoldemValues
from solver.evaluation.values.holdem_openings import OpeningChances, hand_class, opening_path
from solver.games import get_game
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.policy import hole_combos
from tests.solver.evaluation.values.test_holdem_values import small_bot


@pytest.fixture(scope="module")
def bot() -> HulheBot:
    return small_bot()


@pytest.fixture(scope="module")
def mini() -> HoldemGame:
    game = get_game("holdem-mini")
    assert isinstance(game, HoldemGame)
    return game


def test_classes_of_starting_hands() -> None:
    deck = Deck()
    assert hand_class(deck, deck.parse_cards("KsAs")) == ("suited", "AKs")
    assert hand_class(deck, deck.parse_cards("2c7d")) == ("offsuit", "72o")
    assert hand_class(deck, deck.parse_cards("QdQh")) == ("pair", "QQ")
    assert hand_class(deck, deck.parse_cards("Th")) == ("card", "T")
    assert opening_path(0, "raise", deck.parse_cards("AsKs"), deck) == "seat 0/raise/suited/AKs"
    assert opening_path(1, None, deck.parse_cards("AsKd"), deck) == "seat 1/offsuit/AKo"


def first_decision(game: HoldemGame) -> HoldemState:
    state = game.initial_state()
    while state.is_chance():
        state = state.apply_action(state.chance_outcomes()[0][0])
    return state


def brute_force(game: HoldemGame, bot: HulheBot, seat: int) -> dict[str, float]:
    """Every ordered deal (the player's hand, then the bot's from the cards left), equally
    likely; the bot's first action, if it acts before the player, by its strategy."""
    rules = game.definition
    root = first_decision(game)
    combos = [tuple(int(c) for c in h) for h in hole_combos(rules)]
    out: dict[str, float] = {}
    for mine in combos:
        theirs = [h for h in combos if not set(h) & set(mine)]
        for other in theirs:
            chance = 1.0 / (len(combos) * len(theirs))
            if root.current_player() == seat:
                path = opening_path(seat, None, mine, rules.deck)
                out[path] = out.get(path, 0.0) + chance
                continue
            row = bot.action_probabilities(root.betting, (), np.array([other], np.int64))[0]
            for a in root.legal_actions():
                path = opening_path(seat, root.action_label(a), mine, rules.deck)
                out[path] = out.get(path, 0.0) + chance * float(row[a])
    return out


def play_out(game: HoldemGame, bot: HulheBot, rng: random.Random) -> HoldemState:
    """A hand with both players following the bot's strategy."""
    state = game.initial_state()
    while not state.is_terminal():
        if state.is_chance():
            outcomes = state.chance_outcomes()
            state = state.apply_action(rng.choices([o for o, _ in outcomes],
                                                   [p for _, p in outcomes])[0])
            continue
        hole = np.array([state.hole(state.current_player())], np.int64)
        row = bot.action_probabilities(state.betting, state.board(), hole)[0]
        legal = state.legal_actions()
        state = state.apply_action(rng.choices(legal, [float(row[a]) for a in legal])[0])
    return state


@pytest.mark.parametrize("seat", [0, 1])
def test_chances_are_every_deals_and_the_bots_first_action(mini: HoldemGame, bot: HulheBot,
                                                          seat: int) -> None:
    chances = OpeningChances(mini.definition.deck, hole_combos(mini.definition))
    final = play_out(mini, bot, random.Random(seat))
    opening = chances.opening(final, seat, bot)
    expected = brute_force(mini, bot, seat)
    assert set(opening.chances) <= set(expected)
    for path, chance in expected.items():
        assert math.isclose(opening.chances.get(path, 0.0), chance, abs_tol=1e-12), path
    assert math.isclose(sum(opening.chances.values()), 1.0, abs_tol=1e-12)
    assert opening.path in opening.chances
    acts_first = first_decision(mini).current_player() == seat
    kinds = {path.split("/")[1 if acts_first else 2] for path in expected}
    assert kinds == {"pair", "suited", "offsuit"}


def test_a_played_hand_opens_with_the_bots_first_action(mini: HoldemGame, bot: HulheBot
                                                        ) -> None:
    valuer = HoldemValues(bot)
    rng = random.Random(7)
    second = 1 - first_decision(mini).current_player()
    seen = set()
    for n in range(40):
        final = play_out(mini, bot, rng)
        segment = valuer.segments(final, second, None, np.random.default_rng(n))[0]
        assert segment.opening is not None
        label = first_decision(mini).action_label(final.history[4])  # after four hole cards
        kind, name = hand_class(mini.definition.deck, final.hole(second))
        assert segment.opening.path == f"seat {second}/{label}/{kind}/{name}"
        seen.add(label)
    assert len(seen) >= 2

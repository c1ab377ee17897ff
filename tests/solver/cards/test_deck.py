from __future__ import annotations

import pytest

from solver.cards.deck import STANDARD, Deck
from tests.solver.cards import universal_poker


def test_standard_ids_are_rank_major_from_the_deuce() -> None:
    assert [STANDARD.parse(n) for n in ("2c", "2d", "2h", "2s", "3c", "Td", "As")] == [
        0, 1, 2, 3, 4, 33, 51]
    assert STANDARD.names(range(52), " ").split() == [r + s for r in "23456789TJQKA"
                                                       for s in "cdhs"]
    for card in range(52):
        assert STANDARD.parse(STANDARD.name(card)) == card
        assert STANDARD.card(STANDARD.rank(card), STANDARD.suit(card)) == card


def test_parse_cards_accepts_packed_and_spaced_text() -> None:
    assert STANDARD.parse_cards("AsKd") == (51, 45)
    assert STANDARD.parse_cards("As Kd, 2c") == (51, 45, 0)
    assert STANDARD.parse_cards("ts") == (35,)
    assert STANDARD.parse_cards("") == ()


@pytest.mark.parametrize("text", ["A", "Ax", "1c", "AsAs", "AS", "As K"])
def test_parse_cards_refuses_nonsense(text: str) -> None:
    with pytest.raises(ValueError):
        STANDARD.parse_cards(text)


def test_small_decks_keep_the_lowest_ranks_and_first_suits() -> None:
    deck = Deck(num_ranks=4, num_suits=2)
    assert deck.names(range(deck.num_cards), " ") == "2c 2d 3c 3d 4c 4d 5c 5d"
    assert deck.standard_ids.tolist() == [0, 1, 4, 5, 8, 9, 12, 13]
    with pytest.raises(ValueError):
        deck.parse("6c")
    with pytest.raises(ValueError):
        deck.parse("2h")
    with pytest.raises(ValueError):
        Deck(num_ranks=14)
    with pytest.raises(ValueError):
        deck.name(8)


@pytest.mark.parametrize(("ranks", "suits"), [(4, 2), (6, 3), (13, 4), (3, 1)])
def test_ids_equal_openspiel_universal_poker_chance_outcomes(ranks: int, suits: int) -> None:
    state = universal_poker.load(ranks, suits, hole=1, board=(0, 1)).new_initial_state()
    deck = Deck(ranks, suits)
    outcomes = [a for a, _ in state.chance_outcomes()]
    assert outcomes == list(range(deck.num_cards))
    for action in outcomes:
        assert state.action_to_string(action).endswith(f"Deal {deck.name(action)}")

"""The recall abstraction: descriptors, and the keys a bot looks a position up under."""

from __future__ import annotations

import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.dudo_recall.remembered_bids import Recall, parse_recall, remembered
from solver.games import get_game, play
from solver.games.dudo.rules import bid_labels


def test_remembered() -> None:
    assert remembered((1, 2, 3, 4), 3) == (2, 3, 4)
    assert remembered((1, 2), 3) == (1, 2)
    assert remembered((1, 2, 3), None) == (1, 2, 3)


def test_descriptors_round_trip_and_errors_name_the_form() -> None:
    match = get_game("dudo-match")
    recall = parse_recall(match, "2;1v1=all;2v2=3")
    assert recall.descriptor == "recall=2;1v1=all;2v2=3"
    assert recall.memory((1, 1)) is None and recall.memory((2, 2)) == 3
    assert recall.memory((5, 4)) == 2
    assert Recall(3).descriptor == "recall=3"
    with pytest.raises(ValueError, match="AvB=memory"):
        parse_recall(match, "2;five=3")
    with pytest.raises(ValueError, match="'all'"):
        parse_recall(match, "0")
    with pytest.raises(ValueError, match="Dudo games, not 'kuhn'"):
        abstraction_for(get_game("kuhn"), "recall=3")


def test_dudo_keys_keep_the_last_bids() -> None:
    game = get_game("dudo-2v2")
    labels = bid_labels(4)
    ids = [labels.index(x) for x in ("1x2", "1x5", "2x3", "2x6", "3x4")]
    state = play(game, [0, 6, *ids])  # dice 11 and 22; player 1 to move
    recall = abstraction_for(game, "recall=3")
    assert recall.strategy_key(state, 1) == "22|2x3,2x6,3x4"
    assert recall.strategy_key(state, 0) == "11|2x3,2x6,3x4"
    assert abstraction_for(game, "recall=all").strategy_key(state, 1) == \
        state.information_state_key(1)


def test_match_keys_carry_the_round() -> None:
    game = get_game("dudo-match")
    state = game.initial_state().apply_action(0).apply_action(251)  # 11111 and 66666
    labels = bid_labels(10)
    for label in ("1x2", "2x2", "3x2"):
        state = state.apply_action(labels.index(label))
    recall = abstraction_for(game, "recall=2;5v5=1")
    assert recall.strategy_key(state, 1) == "5v5:66666|3x2"
    assert abstraction_for(game, "recall=2").strategy_key(state, 0) == "5v5:11111|2x2,3x2"

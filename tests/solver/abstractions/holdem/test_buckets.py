"""Hand buckets of the hold'em family: descriptors, class weights, percentiles, nesting, keys."""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.buckets import (
    Buckets,
    BucketSpec,
    class_weights,
    count_deals,
    hand_buckets,
    percentile_buckets,
)
from solver.cards.strength import Streets, ehs_tables
from solver.games import get_game, play
from solver.games.holdem import HoldemGame, HoldemState

MINI = "holdem-mini"
THREE = "holdem(numRanks=3,numSuits=2,numBoardCards=0 1 1,maxRaises=1 1 1)"
"""Six cards, two each, then a board card before each of the two later rounds."""


def _game(name: str) -> HoldemGame:
    game = get_game(name)
    assert isinstance(game, HoldemGame)
    return game


def test_descriptors_round_trip_and_errors_name_the_form() -> None:
    game = _game(THREE)
    for descriptor in ("buckets=k:2,3;recall=perfect", "buckets=k:all,4;recall=imperfect"):
        abstraction = abstraction_for(game, descriptor)
        assert isinstance(abstraction, Buckets)
        assert abstraction.descriptor == descriptor
        assert abstraction_for(game, abstraction.descriptor).descriptor == descriptor
    assert BucketSpec.parse("k:8").recall == "perfect"
    with pytest.raises(ValueError, match="k needs 2 entries"):
        abstraction_for(game, "buckets=k:8;recall=perfect")
    with pytest.raises(ValueError, match="perfect or imperfect"):
        abstraction_for(game, "buckets=k:8,8;recall=total")
    with pytest.raises(ValueError, match="positive number or 'all'"):
        abstraction_for(game, "buckets=k:8,0")
    with pytest.raises(ValueError, match="hold'em family, not 'kuhn'"):
        abstraction_for(get_game("kuhn"), "buckets=k:8")


@pytest.mark.parametrize("name", [MINI, THREE])
def test_class_weights_count_every_deal(name: str) -> None:
    """Each round's classes hold every deal of one hand and the board exactly once: the board
    round by round (perfect recall), or as one set (imperfect recall; every set comes in as
    many orders, so the weights are in the same proportions)."""
    rules = _game(name).definition
    n = rules.num_cards
    for recall in ("perfect", "imperfect"):
        spec = BucketSpec((2,) * (rules.num_rounds - 1), recall)
        for r, info in enumerate(hand_buckets(rules, spec).rounds):
            expected = (count_deals(rules, r) if recall == "perfect" else
                        math.comb(n, 2) * math.comb(n - 2, rules.board_dealt(r)))
            assert class_weights(info.indexer).sum() == expected, (recall, r)
    assert count_deals(rules, 0) == rules.hands()


def test_first_round_is_lossless_and_later_rounds_have_k_buckets() -> None:
    rules = _game(MINI).definition
    k: int | None
    for k in (2, 4, 8, 16):
        imperfect = hand_buckets(rules, BucketSpec((k,), "imperfect"))
        assert imperfect.sizes() == [16, k]  # 16 classes of two hole cards from 8 cards
    # Perfect recall cuts each preflop class's boards: 3 classes for a pair, 6 otherwise.
    for k in (2, 3, 4, None):
        perfect = hand_buckets(rules, BucketSpec((k,), "perfect"))
        info = perfect.rounds[1]
        parents = info.code // info.radices[1]
        per_parent = [len(np.unique(info.code[parents == p])) for p in range(16)]
        group = np.bincount(parents)
        assert per_parent == [min(k or 99, int(n)) for n in group]
        assert perfect.sizes()[1] == sum(per_parent)
        assert sorted(group.tolist()) == [3] * 4 + [6] * 12
    assert hand_buckets(rules, BucketSpec((None,), "perfect")).sizes() == [16, 84]


def test_percentiles_are_balanced_and_sorted() -> None:
    rules = _game(THREE).definition
    streets = Streets(rules.deck, 2, (1, 1))
    tables = ehs_tables(streets, progress=False)
    for street in (1, 2):
        indexer = streets.indexer(street)
        weight = class_weights(indexer).astype(float)
        strength = tables.lookup(street, np.arange(indexer.size))[1]
        for k in (2, 3, 5, 8):
            bucket = percentile_buckets(strength, weight, np.zeros(indexer.size, np.int64), k)
            assert sorted(set(bucket.tolist())) == list(range(k))
            mass = np.bincount(bucket, weights=weight)
            assert np.abs(mass - weight.sum() / k).max() <= weight.max()
            for b in range(k - 1):  # weakest first
                assert strength[bucket == b].max() <= strength[bucket == b + 1].min()


def test_percentile_cut_is_within_groups_and_lossless_at_large_k() -> None:
    strength = np.array([0.9, 0.1, 0.5, 0.3, 0.7, 0.2])
    weight = np.array([1.0, 1.0, 1.0, 1.0, 1.0, 3.0])
    group = np.array([0, 0, 0, 1, 1, 1])
    assert percentile_buckets(strength, weight, group, 2).tolist() == [1, 0, 1, 1, 1, 0]
    assert percentile_buckets(strength, weight, group, 3).tolist() == [2, 0, 1, 1, 2, 0]
    assert percentile_buckets(strength, weight, group, None).tolist() == [2, 0, 1, 1, 2, 0]
    # One group: the 0.2 that weighs 3 fills the lower half with the 0.1.
    assert percentile_buckets(strength, weight, np.zeros(6, np.int64), 2).tolist() == [
        1, 0, 1, 1, 1, 0]
    assert percentile_buckets(strength, weight, np.zeros(6, np.int64), 4).tolist() == [
        3, 0, 2, 2, 3, 1]


def _random_positions(name: str, count: int, seed: int) -> list[HoldemState]:
    """Decision states of random deals and betting lines, every round."""
    game = _game(name)
    rng = random.Random(seed)
    out: list[HoldemState] = []
    for _ in range(count):
        state = game.initial_state()
        while not state.is_terminal():
            if not state.is_chance():
                out.append(state)
            state = state.apply_action(rng.choice(state.legal_actions()))
    return out


def test_perfect_recall_remembers_the_sequence_that_imperfect_recall_forgets() -> None:
    game = _game(THREE)
    perfect = abstraction_for(game, "buckets=k:2,2;recall=perfect")
    imperfect = abstraction_for(game, "buckets=k:2,2;recall=imperfect")
    seen: dict[str, set[str]] = {}
    for state in _random_positions(THREE, 400, 1):
        player = state.current_player()
        key, forgetful = perfect.strategy_key(state, player), imperfect.strategy_key(state, player)
        buckets, *betting = key.split("|")
        assert forgetful.split("|")[1:] == betting  # the betting is kept whole
        round_ = len(betting) - 1
        digits = buckets.split(".")
        assert len(digits) == round_ + 1 and all(d in "01" for d in digits[1:])
        # Imperfect recall: this round's own percentile (not the perfect one's last digit,
        # which is a percentile within the earlier bucket); the first round is the same.
        own = forgetful.split("|")[0]
        assert own == digits[0] if round_ == 0 else own in ("*." * round_ + "0",
                                                             "*." * round_ + "1")
        if round_ > 0:  # the earlier buckets are the bucket sequence one round before
            earlier = play(game, _history_before_round(state, round_))
            assert perfect.strategy_key(earlier, player).split("|")[0] == ".".join(digits[:-1])
        seen.setdefault(forgetful, set()).add(key)
    merged = sum(len(keys) > 1 for keys in seen.values())
    assert merged > 0


def _history_before_round(state: HoldemState, round_: int) -> list[int]:
    """The actions up to the first decision of round `round_ - 1` after its cards."""
    game = state.game
    history = list(state.history)
    at = game.initial_state()
    out: list[int] = []
    for action in history:
        if not at.is_chance() and len(at.betting.rounds) - 1 == round_ - 1:
            return out
        out.append(action)
        at = at.apply_action(action)
    raise AssertionError("no decision in that round")


def test_keys_of_holdem_mini_positions() -> None:
    game = _game(MINI)
    # Hole cards 2c2d (ids 0, 1) and 3c3d; the small blind calls; the big blind to act.
    state = play(game, [0, 1, 2, 3, 1])
    assert state.information_state_key() == "2d2c|c"
    for descriptor in ("buckets=k:2;recall=perfect", "buckets=k:4;recall=imperfect"):
        assert abstraction_for(game, descriptor).strategy_key(state, 0) == "22|c"
    state = play(game, [0, 1, 2, 3, 1, 1, 7])  # checked through; the board is 5d
    assert state.information_state_key() == "2d2c|cc|5d|"
    # Under perfect recall the 22 tells its three boards apart (3x, 4x, 5x) with k >= 3.
    lossless = abstraction_for(game, "buckets=k:all;recall=perfect").strategy_key(state, 0)
    assert lossless.startswith("22.") and lossless.endswith("|cc|")
    assert abstraction_for(game, "buckets=k:1;recall=perfect").strategy_key(state, 0) == "22.0|cc|"
    assert abstraction_for(game, "buckets=k:1;recall=imperfect").strategy_key(state, 0) == (
        "*.0|cc|")


def test_members_the_tables_cannot_hold_are_refused_at_once() -> None:
    """Full hold'em's river is beyond the tables (123 M classes with the board as one set,
    2.4 G in the order it came), and E[HS²] is built for two hole cards: said before anything
    is built."""
    with pytest.raises(ValueError, match="round 4 has 123,156,254 hand classes"):
        abstraction_for(get_game("holdem"), "buckets=k:8,8,8;recall=imperfect")
    with pytest.raises(ValueError, match="round 4 has 2,428,287,420 hand classes"):
        abstraction_for(get_game("holdem"), "buckets=k:8,8,8;recall=perfect")
    with pytest.raises(ValueError, match="two hole cards"):
        abstraction_for(get_game("holdem(numRanks=3,numSuits=2,numHoleCards=1,"
                                 "numBoardCards=0 1,maxRaises=1 1)"), "buckets=k:2")

"""E[HS²] percentile buckets: cut by probability, ordered by strength, written into keys the
store finds; checked on a small member, whose strength tables build in a moment."""

from __future__ import annotations

import numpy as np
import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.percentiles import (
    Percentiles,
    PercentileSpec,
    check_rules,
    first_round_names,
    round_bucket_counts,
    round_buckets,
)
from solver.cards.strength import ehs_tables
from solver.games import get_game
from solver.games.holdem.game import HoldemState
from solver.games.holdem.rules import HULHE, HoldemRules, from_spec

SMALL = from_spec("holdem(numRanks=6,numSuits=4,numBoardCards=0 2 1,raiseSize=2 2 4,"
                  "maxRaises=2 2 2,firstPlayer=2 1 1)")


def test_buckets_are_percentiles_of_the_deals_ordered_by_strength() -> None:
    spec = PercentileSpec((4, 8))
    rounds = round_buckets(SMALL, spec)
    assert [r.count for r in rounds] == [rounds[0].indexer.size, 4, 8]
    assert np.array_equal(rounds[0].codes, np.arange(rounds[0].indexer.size))
    streets = check_rules(SMALL)
    tables = ehs_tables(streets, progress=False)
    rng = np.random.default_rng(5)
    for r, k in ((1, 4), (2, 8)):
        codes = np.asarray(rounds[r].codes)
        strength = tables.lookup(r, np.arange(rounds[r].indexer.size))[1]
        # Ordered: every class of a higher bucket is at least as strong.
        for b in range(k - 1):
            assert strength[codes == b].max() <= strength[codes == b + 1].min() + 1e-6
        # About equal probability per bucket, over uniformly dealt hands.
        deals = np.array([rng.permutation(SMALL.num_cards)[:2 + SMALL.board_dealt(r)]
                          for _ in range(20_000)])
        share = np.bincount(codes[rounds[r].indexer.index_many(deals)], minlength=k) / 20_000
        if r < 2:
            assert share == pytest.approx(np.full(k, 1 / k), abs=0.35 / k)
        else:  # the last round's strengths tie often (the board plays): cuts fall between
            assert share.max() < 1.6 / k and share.min() > 0.5 / k


def test_the_counts_are_known_before_the_buckets_are_made() -> None:
    """`round_bucket_counts`, which sizes tables and dry runs without making buckets, says
    what the made buckets count, every class apart included; a spec of the wrong length is a
    clear error."""
    for spec in (PercentileSpec((4, 8)), PercentileSpec((None, 3))):
        assert round_bucket_counts(SMALL, spec) == tuple(
            r.count for r in round_buckets(SMALL, spec))
    assert round_bucket_counts(SMALL, PercentileSpec((None, 3)))[1] == check_rules(
        SMALL).indexer(1).size
    with pytest.raises(ValueError, match="k needs 2 entries"):
        round_bucket_counts(SMALL, PercentileSpec((4,)))


def test_keys_of_real_positions() -> None:
    game = get_game(SMALL.spec)
    spec = PercentileSpec((4, 8))
    abstraction = abstraction_for(game, spec.descriptor)
    assert isinstance(abstraction, Percentiles) and abstraction.descriptor == "ehs2=k:4,8"
    deck = SMALL.deck
    # Seat 0 holds 7s7h (the top pair preflop), seat 1 2c3d; the board 7c 7d, then 6c.
    cards = [deck.parse(c) for c in ("7s", "7h", "2c", "3d", "7c", "7d", "6c")]
    state = game.initial_state()
    for card in cards[:4]:
        state = state.apply_action(card)
    assert isinstance(state, HoldemState)
    assert abstraction.strategy_key(state, 0) == "77|"
    assert abstraction.strategy_key(state, 1) == "32o|"
    for action in (1, 1):  # seat 1 calls, seat 0 checks: the flop comes
        state = state.apply_action(action)
    for card in cards[4:6]:
        state = state.apply_action(card)
    assert abstraction.strategy_key(state, 0) == "r1:3|cc|"  # quads: the top bucket
    assert abstraction.strategy_key(state, 1) == "r1:0|cc|"
    assert "77" in first_round_names(SMALL) and len(first_round_names(HULHE)) == 169
    with pytest.raises(ValueError, match="k needs 2 entries"):
        round_buckets(SMALL, PercentileSpec((4,)))
    with pytest.raises(ValueError, match="k:K1"):
        PercentileSpec.parse("4,8")
    with pytest.raises(ValueError, match="board dealt after the first round"):
        check_rules(HoldemRules(num_ranks=4, num_suits=2, board_cards=(1, 1), raise_sizes=(2, 4),
                                max_raises=(3, 3), first_player=(1, 0)))

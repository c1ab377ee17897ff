from __future__ import annotations

import itertools
from collections.abc import Sequence
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import njit
from numpy.typing import NDArray

from solver.cards import strength
from solver.cards.deck import STANDARD, Deck
from solver.cards.evaluator import CARD_BIT, CARD_KEY, rank_cards
from solver.cards.strength import HOLDEM, Streets, StrengthTables, ehs, ehs_tables

IntArray = NDArray[np.int64]


@njit(cache=True)
def _brute_force(hole: IntArray, board: IntArray, completions: IntArray, num_cards: int,
                 standard: IntArray) -> tuple[float, float]:
    """Mean HS and HS² over the given ways to complete the board, each by evaluating our hand
    and every opponent pair of the cards left."""
    total = total2 = 0.0
    seen = np.zeros(num_cards, dtype=np.bool_)
    size = board.shape[0] + completions.shape[1]
    mine = np.empty(2 + size, dtype=np.int64)
    theirs = np.empty(2 + size, dtype=np.int64)
    for w in range(completions.shape[0]):
        full = np.concatenate((board, completions[w]))
        seen[:] = False
        for c in hole:
            seen[c] = True
        for c in full:
            seen[c] = True
        mine[:2] = standard[hole]
        mine[2:] = standard[full]
        theirs[2:] = standard[full]
        value = rank_cards(mine)
        wins = ties = pairs = 0
        for a in range(num_cards):
            for b in range(a + 1, num_cards):
                if not seen[a] and not seen[b]:
                    theirs[0], theirs[1] = standard[a], standard[b]
                    other = rank_cards(theirs)
                    wins += other < value
                    ties += other == value
                    pairs += 1
        hs = (wins + 0.5 * ties) / pairs
        total += hs
        total2 += hs * hs
    return total / completions.shape[0], total2 / completions.shape[0]


def brute_force(streets: Streets, hand: Sequence[int],
                completions: IntArray | None = None) -> tuple[float, float]:
    """E[HS] and E[HS²] over every completion of the board (or the given ones)."""
    deck = streets.deck
    hole, board = np.array(hand[:2]), np.array(hand[2:], dtype=np.int64)
    if completions is None:
        left = [c for c in range(deck.num_cards) if c not in hand]
        need = streets.board_size(streets.last) - len(board)
        completions = np.array(list(itertools.combinations(left, need)), dtype=np.int64)
        completions = completions.reshape(len(completions), need)
    return _brute_force(hole, board, completions, deck.num_cards, deck.standard_ids)


SMALL = [
    Streets(Deck(num_ranks=5, num_suits=4), board=(3, 1, 1)),  # a 20-card hold'em
    Streets(Deck(num_ranks=4, num_suits=2), board=(1,)),  # OpenSpiel's 8-card 2+1 game
    Streets(Deck(num_ranks=7, num_suits=3), board=(2, 1)),
]


@pytest.fixture(scope="module", params=SMALL, ids=lambda s: f"{s.deck.num_cards}-{s.board}")
def small(request: pytest.FixtureRequest) -> tuple[Streets, StrengthTables]:
    streets = request.param
    return streets, ehs_tables(streets, progress=False, use_cache=False)


def test_small_games_against_brute_force(small: tuple[Streets, StrengthTables]) -> None:
    # The whole build, every street: a sample of classes against full enumeration.
    streets, tables = small
    rng = np.random.default_rng(1)
    for street in range(streets.num_streets):
        indexer = streets.indexer(street)
        assert tables.lookup(street, np.arange(indexer.size))[0].shape == (indexer.size,)
        for index in rng.choice(indexer.size, min(indexer.size, 25), replace=False):
            hand = indexer.unindex(int(index))
            assert ehs(hand, streets, tables) == pytest.approx(brute_force(streets, hand),
                                                               abs=1e-6)


def test_expected_strength_is_a_mean(small: tuple[Streets, StrengthTables]) -> None:
    # Over all deals, E[HS] averages to one half (each showdown is won or tied by someone).
    streets, tables = small
    indexer = streets.indexer(0)
    hands = np.array(list(itertools.combinations(range(streets.deck.num_cards), 2)))
    e, e2 = tables.lookup(0, indexer.index_many(hands))
    assert e.mean() == pytest.approx(0.5, abs=1e-6)
    assert (e2 >= e * e - 1e-6).all() and (e2 <= e + 1e-6).all()


@pytest.mark.parametrize("seed", range(3))
def test_holdem_river_board_sweep_against_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    board = rng.choice(52, 5, replace=False)
    pairs = 47 * 46 // 2
    first, second = np.empty(pairs, np.int64), np.empty(pairs, np.int64)
    counts = np.empty(pairs, np.uint16)
    keys = CARD_KEY[STANDARD.standard_ids]
    bits = CARD_BIT[STANDARD.standard_ids]
    assert strength.board_strengths(board, 52, keys, bits, first, second, counts) == pairs
    none = np.zeros((1, 0), dtype=np.int64)
    for p in rng.choice(pairs, 60, replace=False):
        hs, _ = brute_force(HOLDEM, [first[p], second[p], *board], none)
        assert counts[p] / (2 * HOLDEM.opponents) == pytest.approx(hs, abs=1e-12)


def test_holdem_turn_and_flop_passes_against_brute_force() -> None:
    # The passes of the real game for a few hands, on tables filled only where they read:
    # the river entries by brute force, then the turn entries by the turn pass.
    river, turn, flop = (HOLDEM.indexer(s) for s in (3, 2, 1))
    last = np.zeros(river.size, dtype=np.uint16)  # untouched pages cost no memory
    turn_table = np.zeros((turn.size, 2), dtype=np.float32)
    flop_table = np.zeros((flop.size, 2), dtype=np.float32)
    none = np.zeros((1, 0), dtype=np.int64)
    scale = 1.0 / (2 * HOLDEM.opponents)
    empty = np.empty((0, 2), dtype=np.float32)
    flop_hand = STANDARD.parse_cards("AhKh Qh7s2d")
    turn_hands = [(*flop_hand, c) for c in range(52) if c not in flop_hand]
    for hand in turn_hands:
        for c in range(52):
            if c not in hand:
                river_hand = [*hand, c]
                hs, _ = brute_force(HOLDEM, river_hand, none)
                last[river.index(river_hand)] = round(hs * 2 * HOLDEM.opponents)
        i = turn.index(hand)
        strength._earlier_street(turn.tables, river.tables, 52, 1, last, scale, empty, i,
                                 i + 1, turn_table)
        assert turn_table[i] == pytest.approx(brute_force(HOLDEM, hand), abs=1e-6)
    i = flop.index(flop_hand)
    strength._earlier_street(flop.tables, turn.tables, 52, 1, last, scale, turn_table, i, i + 1,
                             flop_table)
    assert flop_table[i] == pytest.approx(brute_force(HOLDEM, flop_hand), abs=1e-6)


def test_tables_are_cached_on_disk(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SOLVER_CACHE", str(tmp_path))
    streets = Streets(Deck(num_ranks=4, num_suits=3), board=(1, 1))
    threads = numba.get_num_threads()
    built = ehs_tables(streets, progress=False)
    assert numba.get_num_threads() == threads
    files = sorted(p.name for p in tmp_path.glob("strength-*/*"))
    assert files == ["street0.npy", "street1.npy", "street2.npy"]
    assert ehs_tables(streets) is built  # kept in the process

    def fail(*_: object) -> None:
        raise AssertionError("built again")

    monkeypatch.setattr(strength, "_loaded", {})
    monkeypatch.setattr(strength, "_build_last", fail)
    monkeypatch.setattr(strength, "_build_earlier", fail)
    loaded = ehs_tables(streets, progress=False)  # read from the files
    assert (loaded.last == built.last).all()
    for a, b in zip(loaded.expected, built.expected, strict=True):
        assert (a == b).all()


def test_ehs_refuses_hands_of_no_street() -> None:
    streets, tables = SMALL[1], ehs_tables(SMALL[1], progress=False, use_cache=False)
    with pytest.raises(ValueError):
        ehs([0, 1, 2, 3], streets, tables)
    with pytest.raises(ValueError):
        Streets(board=(3, 1, 1, 1))
    with pytest.raises(ValueError):
        Streets(Deck(2, 2), board=(1,))


@pytest.mark.slow
def test_full_holdem_tables_against_brute_force() -> None:
    """The real tables (built here if the cache has none: about a minute on two cores)."""
    tables = ehs_tables(progress=False)
    rng = np.random.default_rng(5)
    for street in (1, 2, 3):
        for shuffled in rng.permuted(np.tile(np.arange(52), (4, 1)), axis=1):
            hand = shuffled[: 2 + HOLDEM.board_size(street)].tolist()
            assert ehs(hand, tables=tables) == pytest.approx(brute_force(HOLDEM, hand),
                                                             abs=1e-6)
    # Preflop against 20,000 random boards: within five standard errors.
    for name in ("AsAd", "7c2d", "AsKs", "Th9h"):
        hand = list(STANDARD.parse_cards(name))
        left = np.array([c for c in range(52) if c not in hand])
        boards = rng.permuted(np.tile(left, (20_000, 1)), axis=1)[:, :5]
        e, e2 = ehs(hand, tables=tables)
        sample, sample2 = brute_force(HOLDEM, hand, boards)
        error = np.sqrt((e2 - e * e) / len(boards))
        assert abs(e - sample) < 5 * error and abs(e2 - sample2) < 5 * error
    assert ehs("AsAd", tables=tables)[0] == pytest.approx(0.852, abs=1e-3)

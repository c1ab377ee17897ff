"""Action translation (`solver.abstractions.holdem.translation`): the pseudo-harmonic mapping's
properties, reading raises at and between the sizes a bot knows, and the bot's own raises
applied to the real pot."""

from __future__ import annotations

import doctest

import pytest

from solver.abstractions.holdem import translation
from solver.abstractions.holdem.translation import (
    Translation,
    own_moves,
    pot_fraction,
    pseudo_harmonic,
)
from solver.games.holdem.betting import CALL, FOLD, Betting
from solver.games.holdem.rules import parse

REAL = parse("holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,"
             "blind=1 1,firstPlayer=1 1,stack=40 40)")
BOT = REAL.with_bets(parse("holdem(betting=nolimit,bettingAbstraction=0.5p p a)").bets)


def test_the_mapping_is_exact_at_the_sizes_and_falls_between() -> None:
    for a, b in ((0.5, 1.0), (1.0, 2.0), (0.25, 4.0)):
        assert pseudo_harmonic(a, a, b) == 1.0 and pseudo_harmonic(b, a, b) == 0.0
        inside = [pseudo_harmonic(a + (b - a) * k / 10, a, b) for k in range(11)]
        assert inside == sorted(inside, reverse=True)  # further from a, less often a
    # The harmonic midpoint of 1/2 and 1 pot (2/3 of a pot... in its own measure) is read
    # half and half: f(x) = 1/2 where x = (a + b + 2ab) / (2 + a + b).
    a, b = 0.5, 1.0
    assert pseudo_harmonic((a + b + 2 * a * b) / (2 + a + b), a, b) == pytest.approx(0.5)
    assert doctest.testmod(translation).failed == 0


def test_raises_are_read_at_and_between_the_known_sizes() -> None:
    real, mine = Betting.start(REAL), Betting.start(BOT)
    # The pot after calling is 2: half pot raises to 2, pot to 3 (... by 1 and 2, on a 1 bet);
    # the minimum raise is to 2.
    assert mine.legal_actions() == (CALL, 2, 3, 40)
    assert pot_fraction(real, 3) == 1.0
    read = Translation()
    assert read.read(real, 3, mine) == ((3, 1.0),)
    assert read.read(real, 40, mine) == ((40, 1.0),)  # all-in is all-in
    assert read.read(real, CALL, mine) == ((CALL, 1.0),)
    between = dict(read.read(real, 6, mine))  # 2.5 pots: between a pot and all-in (19.5)
    assert set(between) == {3, 40} and sum(between.values()) == pytest.approx(1.0)
    assert between[3] == pytest.approx(pseudo_harmonic(2.5, 1.0, 19.5))
    assert Translation(randomised=False).read(real, 6, mine) == ((3, 1.0),)
    assert Translation(randomised=False).read(real, 30, mine) == ((40, 1.0),)


def test_the_bots_raises_are_its_sizes_on_the_real_pot() -> None:
    real = Betting.start(REAL).apply(6)  # the real pot after a raise to 6
    mine = Betting.start(BOT).apply(3)  # ... which the bot read as a pot-sized raise
    moves = own_moves(real, mine)
    assert moves[FOLD] == (FOLD,) and moves[CALL] == (CALL,)
    # Over a raise to 3 its half-pot and pot raises go to 6 and 9 in its own game; over the
    # real raise to 6, a pot after calling is 12: to 12 and 18.
    assert mine.legal_actions()[2:] == (6, 9, 40)
    assert moves[12] == (6,) and moves[18] == (9,) and moves[40] == (40,)
    over = Betting.start(BOT).apply(40).apply(CALL)
    assert own_moves(real, over) == {CALL: (CALL,)}  # a reading with nothing to do: call

"""No-limit values against a translated blueprint: where the hand keeps to the blueprint's sizes
they are the exact action values of the blueprint in its own game (brute force over the
compiled tree); an off-tree raise is valued as the size it is read as, under its real label;
a hand the blueprint's game cannot follow is refused, not valued wrongly."""

from __future__ import annotations

import random
from functools import cache

import numpy as np
import pytest

from solver.abstractions.holdem.bot import HulheBot
from solver.algorithms.action_values import action_values
from solver.engine.compile import compile_game
from solver.evaluation.holdem.policy import strategy_of
from solver.evaluation.values.base import UnreadableHand
from solver.evaluation.values.no_limit import NoLimitValues, read_hand
from solver.games import get_game
from solver.games.holdem.betting import CALL
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.policy import answer
from solver.resolving.measure_no_limit import Blueprint, blueprint
from solver.resolving.no_limit_turn import abstract_state

pytestmark = pytest.mark.slow  # the blueprint and the exact action values: about ten seconds


@cache
def _made() -> Blueprint:
    return blueprint(epochs=6)


def _valuer() -> NoLimitValues:
    policy = _made().policy
    return NoLimitValues(policy.translated, policy.table, policy)


def _hands(count: int, seed: int, off_tree: bool) -> list[HoldemState]:
    """Hands of the real game, the bot (translated) in one seat and in the other a player
    picking at random among the blueprint's moves at the actual pot, or among every legal
    move (`off_tree`)."""
    made = _made()
    abstract = made.policy.translated.abstract
    rng = random.Random(seed)
    hands = []
    for n in range(count):
        state = made.real.initial_state()
        assert isinstance(state, HoldemState)
        while not state.is_terminal():
            if state.is_chance():
                state = state.apply_action(rng.choice(state.legal_actions()))
                continue
            if state.current_player() == n % 2:
                moves = (state.legal_actions() if off_tree else
                         abstract_state(state.betting, abstract).legal_actions())
                state = state.apply_action(rng.choice(moves))
                continue
            holes = np.array([state.hole(state.current_player())], np.int64)
            actions, rows = answer(made.policy, state.betting, state.board(), holes)
            state = state.apply_action(rng.choices(actions, list(rows[0]))[0])
        hands.append(state)
    return hands


def test_on_the_blueprints_sizes_the_values_are_its_exact_action_values() -> None:
    made = _made()
    translated = made.policy.translated
    own = get_game(translated.abstract.spec)
    assert isinstance(own, HoldemGame)
    tree = compile_game(own)
    bot = HulheBot("blueprint", translated.abstract, translated.blueprint.spec,
                   made.policy.table)
    exact = action_values(tree, strategy_of(own, tree, [bot]))
    index = {key: i for i, key in enumerate(tree.infoset_keys)}
    offsets = tree.infoset_regret_offset
    valuer = _valuer()
    compared = 0
    for n, final in enumerate(_hands(40, seed=5, off_tree=False)):
        seat = n % 2
        decisions = iter(d for s in valuer.segments(final, seat, None, np.random.default_rng(0))
                         for d in s.decisions)
        state = own.initial_state()
        for action in final.history:
            if not state.is_chance() and state.current_player() == seat:
                got = next(decisions)
                i = index[state.information_state_key(seat)]
                lo, hi = offsets[i], offsets[i + 1]
                assert got.exact and got.labels == tree.infoset_labels[i]
                assert got.values == pytest.approx(exact.q[lo:hi], abs=1e-9)
                assert got.value == pytest.approx(exact.v[i], abs=1e-9)
                compared += 1
            state = state.apply_action(action)
        assert next(decisions, None) is None
    assert compared > 40


def test_an_off_tree_raise_is_valued_as_the_size_it_is_read_as() -> None:
    made = _made()
    own = get_game(made.policy.translated.abstract.spec)
    assert isinstance(own, HoldemGame)
    valuer = _valuer()
    off, refused = 0, 0
    for n, final in enumerate(_hands(120, seed=6, off_tree=True)):
        seat = n % 2
        try:
            reading = read_hand(final, own)
        except UnreadableHand:
            refused += 1
            with pytest.raises(UnreadableHand):
                valuer.segments(final, seat, None, np.random.default_rng(0))
            continue
        decisions = [d for s in valuer.segments(final, seat, None, np.random.default_rng(0))
                     for d in s.decisions]
        mine = [(real, action, read) for player, real, action, read in reading.moves
                if player == seat]
        assert len(decisions) == len(mine)
        for got, (real, action, read) in zip(decisions, mine, strict=True):
            assert action is not None
            label = real.label(action)
            assert len(set(got.labels)) == len(got.labels)
            assert label in got.labels  # what the coach looks up
            if action > CALL and label != got.labels[read]:
                pytest.fail(f"{label} is not where its reading {read} is: {got.labels}")
            if action > CALL and action not in abstract_state(
                    real, made.policy.translated.abstract).legal_actions():
                off += 1
    assert off > 10 and refused <= 10, (off, refused)

"""Hold'em values at play time are the exact action values of the same bot on holdem-mini's
compiled tree (brute force: `solver.algorithms.action_values` over every history), with the
bot's strategy on both sides and with the player following its habits; where the deals are
sampled instead of enumerated, the values are unbiased."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.percentiles import PercentileSpec, hand_codes
from solver.abstractions.holdem.sampled_cfr import SampledSetup, Solver, run
from solver.algorithms.action_values import ActionValues, action_values
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.evaluation.holdem.policy import strategy_of
from solver.evaluation.values import two_walks
from solver.evaluation.values.base import FROM_CHOICES, choices_key, from_choices, habit_mix
from solver.evaluation.values.holdem import HoldemValues
from solver.games import get_game
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.policy import HoldemPolicy

HABITS = {"": {"raise": 3.0, "call": 1.0}, "c": {"bet": 2.0}, "r": {"call": 4.0, "fold": 1.0},
          "rr": {"raise": 2.0}, "cc/": {"bet": 5.0}, "rc/r": {"call": 1.0, "raise": 1.0},
          **{f"@{b}": {"fold": 2.0} for b in range(0, 28, 3)},
          **{f"cc/@{b}": {"check": 3.0} for b in range(0, 84, 2)}}
"""A player's habits at some points of holdem-mini's betting, some with its hand's bucket."""
CHOICES = {"#check/bet": {"bet": 3.0, "check": 1.0}, "#fold/call/raise": {"call": 5.0,
                                                                         "raise": 1.0},
           "#fold/call": {"fold": 2.0}}
"""The same player's choices wherever it had them (`choices_key`), for the model started
there (`from_choices`)."""


@pytest.fixture(scope="module")
def mini() -> HoldemGame:
    game = get_game("holdem-mini")
    assert isinstance(game, HoldemGame)
    return game


def small_bot() -> HulheBot:
    """holdem-mini's bucket solver with every class apart, after a few thousand deals: a
    strategy with every kind of probability in it (what it is worth does not matter here)."""
    solver = Solver(SampledSetup("holdem-mini", PercentileSpec((None,)), 2000, seed=1,
                                 algorithm="cs"))
    run(solver, epochs=3)
    return HulheBot.from_solver(solver)


@pytest.fixture(scope="module")
def bot() -> HulheBot:
    return small_bot()


class Habitual:
    """The bot with a seat's habits mixed in, as a `HoldemPolicy`: the referee's profile."""

    name = "habits"

    def __init__(self, bot: HulheBot, habits: Mapping[str, Mapping[str, float]]) -> None:
        self.bot, self.habits = bot, habits

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        rows = self.bot.action_probabilities(betting, board, holes)
        legal = list(betting.legal_actions())
        codes = hand_codes(self.bot.rules, self.bot.spec, betting.round, holes, board)
        labels = tuple(betting.label(a) for a in legal)
        for row, code in zip(rows, codes, strict=True):
            model = tuple(row[legal])
            if FROM_CHOICES in self.habits:
                counts = self.habits.get(choices_key(labels), {})
                seen = tuple(counts.get(label, 0.0) for label in labels)
                model = habit_mix(seen if sum(seen) else None, model)
            for key in (betting.acpc(), f"{betting.acpc()}@{code}"):
                counts = self.habits.get(key, {})
                seen = tuple(counts.get(betting.label(a), 0.0) for a in legal)
                model = habit_mix(seen if sum(seen) else None, model)
            row[legal] = model
        return rows


def exact(game: HoldemGame, tree: PublicTree, policies: Sequence[HoldemPolicy]) -> ActionValues:
    return action_values(tree, strategy_of(game, tree, policies))


def random_hands(game: HoldemGame, bot: HulheBot, count: int, seed: int
                 ) -> list[HoldemState]:
    """Hands where seat 0 plays uniformly at random (to reach every kind of position) and
    seat 1 the bot, or the other way round."""
    rng = random.Random(seed)
    hands = []
    for n in range(count):
        state = game.initial_state()
        while not state.is_terminal():
            if state.is_chance():
                state = state.apply_action(rng.choice(state.legal_actions()))
                continue
            legal = state.legal_actions()
            if state.current_player() == n % 2:
                state = state.apply_action(rng.choice(legal))
                continue
            holes = np.array([state.hole(state.current_player())], np.int64)
            row = bot.action_probabilities(state.betting, state.board(), holes)[0]
            state = state.apply_action(rng.choices(legal, [row[a] for a in legal])[0])
        hands.append(state)
    return hands


def compare(game: HoldemGame, tree: PublicTree, values: HoldemValues, hands: list[HoldemState],
            references: dict[int, tuple[ActionValues, ActionValues]],
            habits: Mapping[str, Mapping[str, float]] = HABITS) -> int:
    """Every decision of the random player in `hands` against the references; how many."""
    index = {key: i for i, key in enumerate(tree.infoset_keys)}
    offsets = tree.infoset_regret_offset
    compared = 0
    rng = np.random.default_rng(0)
    for n, final in enumerate(hands):
        seat = n % 2
        decisions = iter(values.hand(final, seat, rng, habits))
        state = game.initial_state()
        for action in final.history:
            if state.current_player() == seat:
                got = next(decisions)
                i = index[state.information_state_key(seat)]
                lo, hi = offsets[i], offsets[i + 1]
                plain, habitual = references[seat]
                assert got.exact and got.labels == tree.infoset_labels[i]
                assert got.values == pytest.approx(plain.q[lo:hi], abs=1e-9)
                assert got.value == pytest.approx(plain.v[i], abs=1e-9)
                assert got.model_values == pytest.approx(habitual.q[lo:hi], abs=1e-9)
                assert got.model_value == pytest.approx(habitual.v[i], abs=1e-9)
                compared += 1
            state = state.apply_action(action)
    return compared


@pytest.mark.parametrize("start", ["strategy", "choices"])
@pytest.mark.slow
def test_values_are_the_exact_action_values(mini: HoldemGame, bot: HulheBot, start: str
                                            ) -> None:
    """With the habits' model started from the bot's strategy, and from the player's choices
    (the kernels' `choices` table)."""
    tree = compile_game(mini)
    habits = HABITS if start == "strategy" else from_choices({**HABITS, **CHOICES})
    habitual = Habitual(bot, habits)
    references = {0: (exact(mini, tree, [bot]), exact(mini, tree, [habitual, bot])),
                  1: (exact(mini, tree, [bot]), exact(mini, tree, [bot, habitual]))}
    assert compare(mini, tree, HoldemValues(bot), random_hands(mini, bot, 60, seed=4),
                   references, habits) > 75


@pytest.mark.slow
def test_sampled_values_are_unbiased(mini: HoldemGame, bot: HulheBot) -> None:
    """Forced to sample (no deal enumerated), the values of a decision scatter around the
    exact ones: the mean of 40 independent estimates lies within 4 standard errors; so do the
    values with the player's habits, their model started from its choices (the play-out
    kernel's `choices` table)."""
    tree = compile_game(mini)
    plain = exact(mini, tree, [bot])
    habits = from_choices({**HABITS, **CHOICES})
    habitual = Habitual(bot, habits)
    modelled = {0: exact(mini, tree, [habitual, bot]), 1: exact(mini, tree, [bot, habitual])}
    index = {key: i for i, key in enumerate(tree.infoset_keys)}
    sampled = HoldemValues(bot, exact_deals=0, samples=300)
    rng = np.random.default_rng(1)
    checked = 0
    for n, final in enumerate(random_hands(mini, bot, 6, seed=9)):
        seat = n % 2
        state = mini.initial_state()
        decisions = iter(range(100))
        estimates = [sampled.hand(final, seat, rng, habits) for _ in range(40)]  # each once
        for action in final.history:
            if state.current_player() == seat:
                k = next(decisions)
                i = index[state.information_state_key(seat)]
                lo, hi = tree.infoset_regret_offset[i], tree.infoset_regret_offset[i + 1]
                for runs, truth in (
                        (np.array([e[k].values for e in estimates]), plain.q[lo:hi]),
                        (np.array([e[k].model_values for e in estimates]),
                         modelled[seat].q[lo:hi])):
                    error = runs.std(axis=0, ddof=1) / np.sqrt(len(runs)) + 1e-12
                    assert np.all(np.abs(runs.mean(axis=0) - truth) <= 4 * error), (runs, truth)
                assert not any(estimate[k].exact for estimate in estimates)
                checked += 1
            state = state.apply_action(action)
    assert checked >= 6


class OnlyTheDealtHand:
    """The bot's strategy with the dealt hands (the bot's and the player's), and never an
    action with any other: what it played leaves the bot a range of exactly its hand, and the
    player's advice is the tables'."""

    name = "one hand"

    def __init__(self, bot: HulheBot, *hands: tuple[int, ...]) -> None:
        self.bot, self.hands = bot, [sorted(hand) for hand in hands]

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        rows = self.bot.action_probabilities(betting, board, holes)
        dealt = np.zeros(len(holes), bool)
        for hand in self.hands:
            dealt |= np.all(np.sort(holes, axis=1) == hand, axis=1)
        return rows * dealt[:, None]


def test_the_bots_range_follows_what_it_played(mini: HoldemGame, bot: HulheBot) -> None:
    """A bot that plays otherwise than its tables (a re-solving one) has its range from what it
    played, its values from the tables after each decision."""
    tables = HoldemValues(bot)
    rng = np.random.default_rng(2)
    checked = 0
    for n, final in enumerate(random_hands(mini, bot, 12, seed=5)):
        seat = n % 2
        dealt = final.hole(1 - seat)
        played = OnlyTheDealtHand(bot, dealt, final.hole(seat))
        got = iter(HoldemValues(bot, played).hand(final, seat, rng))
        combos = tables.prepared.combos
        only = np.all(np.sort(combos, axis=1) == sorted(dealt), axis=1).astype(np.float64)
        state, bot_acted = mini.initial_state(), False
        for action in final.history:
            if state.current_player() == seat:
                decision = next(got)
                if bot_acted:
                    expected = tables.decision(state.betting, state.board(), final.hole(seat),
                                               seat, only, rng)
                    assert decision.values == pytest.approx(expected.values, abs=1e-12)
                    assert decision.probabilities == expected.probabilities
                    checked += 1
            bot_acted |= state.current_player() == 1 - seat
            state = state.apply_action(action)
    assert checked >= 5


@pytest.mark.parametrize("exact_deals", [None, 0])
def test_both_starts_in_one_walk_are_two_walks(mini: HoldemGame, bot: HulheBot,
                                                exact_deals: int | None) -> None:
    """`both_starts` values a hand once for the habits' two starts (the plain values, the
    deals and the bot's range shared): exactly what two separate walks give, against a bot
    that plays otherwise than its tables (so that the advice and the corrections count), with
    every deal and with sampled ones."""
    habits = {**HABITS, **CHOICES}
    checked = 0
    for n, final in enumerate(random_hands(mini, bot, 10, seed=6)):
        seat = n % 2
        played = OnlyTheDealtHand(bot, final.hole(1 - seat), final.hole(seat))
        values = (HoldemValues(bot, played) if exact_deals is None else
                  HoldemValues(bot, played, exact_deals=0, samples=200))
        together = values.both_starts(final, seat, habits, seed=n)
        assert together == two_walks(values, final, seat, habits, seed=n)
        assert together[0] != together[1]
        checked += sum(s.correction != 0.0 for s in together[0])
    assert checked >= 3

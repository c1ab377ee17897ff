"""The real-game evaluations in no-limit betting with every size: policies that name their few
actions, the no-limit baselines, LBR's per-round action sets, and the translating blueprint as
a policy, each checked against exact figures on a member small enough to compile."""

from __future__ import annotations

import numpy as np
import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.bot import strategy_table
from solver.abstractions.holdem.percentiles import PercentileSpec
from solver.abstractions.holdem.sampled_cfr import SampledSetup, Solver, run
from solver.abstractions.holdem.translated import Translated, TranslatedPolicy
from solver.evaluation.holdem.baselines import NO_LIMIT_BASELINES, baseline, baselines_for
from solver.evaluation.holdem.duplicate import checked, duplicate_match, mbb
from solver.evaluation.holdem.lbr import local_best_response
from solver.evaluation.holdem.lbr_settings import LBRSetting
from solver.evaluation.holdem.policy import exact_evaluation
from solver.games.holdem import HoldemGame
from solver.games.holdem.betting import CALL, FOLD, Betting
from solver.games.holdem.policy import hole_combos
from tests.nolimit_mini import ABSTRACT, REAL, holdem


@pytest.fixture(scope="module")
def real() -> HoldemGame:
    return holdem(REAL)


@pytest.fixture(scope="module")
def bot(real: HoldemGame) -> TranslatedPolicy:
    """A small blueprint of the abstract game, playing every size by translation."""
    spec = PercentileSpec((None,))
    solver = Solver(SampledSetup(ABSTRACT, spec, 250, seed=3))
    run(solver, 4)
    translated = abstraction_for(real, f"translated={spec.descriptor} in "
                                       f"{holdem(ABSTRACT).definition.spec}")
    assert isinstance(translated, Translated)
    return TranslatedPolicy("blueprint", translated, strategy_table(solver))


def test_the_no_limit_baselines_name_legal_moves() -> None:
    hunl = holdem("hunl")
    assert baselines_for(hunl) == NO_LIMIT_BASELINES
    start = Betting.start(hunl.definition)
    holes = hole_combos(hunl.definition)[:50]
    moves = {name: checked(baseline(name, hunl), start, (), holes)[0]
             for name in ("always-call", "pot", "all-in")}
    assert moves == {"always-call": (CALL,), "pot": (300,), "all-in": (20_000,)}
    facing = start.apply(300)  # the big blind's pot-sized re-raise: to 900
    assert checked(baseline("pot", hunl), facing, (), holes)[0] == (900,)
    with pytest.raises(ValueError, match="choose from always-call, pot, all-in, equity"):
        baseline("uniform", hunl)


def test_lbr_settings_are_the_papers() -> None:
    hunl = holdem("hunl").definition
    fcpa = LBRSetting.parse("fcpa")
    start = Betting.start(hunl)
    assert fcpa.moves(start) == (CALL,)  # checks and calls before the turn
    turn = start.apply(CALL).apply(CALL).apply(CALL).apply(CALL)  # limped, checked flop
    assert turn.round == 2
    assert fcpa.moves(turn) == (CALL, 300, 20_000)  # a pot of 200: bet it
    assert fcpa.moves(turn.apply(300)) == (CALL, FOLD, 900, 20_000)
    assert LBRSetting.parse("fc").moves(turn.apply(300)) == (CALL, FOLD)
    with pytest.raises(ValueError, match="f fold, c call"):
        LBRSetting.parse("c/x")
    with pytest.raises(ValueError, match="thousands"):
        LBRSetting.parse("r").moves(start)


def test_the_translated_bot_names_what_its_columns_hold(real: HoldemGame,
                                                        bot: TranslatedPolicy) -> None:
    holes = hole_combos(real.definition)
    betting = Betting.start(real.definition)  # raises to 4, 5, 6, 7 or 8 are legal
    actions, rows = bot.sparse_probabilities(betting, (), holes)
    dense = bot.action_probabilities(betting, (), holes)
    legal = betting.legal_actions()
    assert set(actions) <= set(legal) and len(actions) < len(legal)
    assert np.allclose(dense[:, [legal.index(a) for a in actions]], rows)
    assert np.allclose(dense.sum(axis=1), 1.0)


@pytest.mark.slow
def test_matches_in_the_real_game_agree_with_the_exact_values(real: HoldemGame,
                                                              bot: TranslatedPolicy) -> None:
    """The walker plays policies that name their actions: each duplicate match's interval
    holds the exact value of the same pair of strategies."""
    scale = mbb(real.definition)
    for name in NO_LIMIT_BASELINES:
        opponent = baseline(name, real)
        first = exact_evaluation(real, [bot, opponent]).value
        second = exact_evaluation(real, [opponent, bot]).value
        exact = (first - second) / 2 * scale
        match = duplicate_match(real, bot, opponent, 3000, seed=7)
        assert abs(match.estimate.mean - exact) <= match.estimate.half_width, (name, exact)
        luckless = match.adjusted  # the luck of all-in run-outs taken out too
        assert abs(luckless.mean - exact) <= luckless.half_width, (name, exact)
        assert luckless.half_width < match.estimate.half_width, name
        assert exact > 0, name  # even a small blueprint beats each of them


@pytest.mark.slow
def test_lbr_is_a_lower_bound_in_no_limit(real: HoldemGame, bot: TranslatedPolicy) -> None:
    """LBR with pot and all-in bets finds much of what a best response wins from a calling
    station, and no more than a best response wins from the blueprint."""
    station = baseline("always-call", real)
    exploitability = exact_evaluation(real, [station]).exploitability * mbb(real.definition)
    lbr = local_best_response(real, station, 800, seed=1, setting=LBRSetting.parse("fcpa"))
    assert lbr.setting == "c/c/fcpa/fcpa"
    assert 0.3 * exploitability < lbr.estimate.low <= exploitability
    blueprint = exact_evaluation(real, [bot]).exploitability * mbb(real.definition)
    for setting in ("fc", "fcpa"):
        found = local_best_response(real, bot, 400, seed=2, setting=LBRSetting.parse(setting))
        assert found.estimate.low <= blueprint, (setting, found.estimate, blueprint)

"""A no-limit blueprint playing every size by translation (`translated`): at play time, without
state between requests, it plays exactly the behaviour that the translation cost's walk of the
whole game works out for the randomised bot."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver.abstractions import abstraction_for, describe
from solver.abstractions.holdem.bot import HulheBot, strategy_table
from solver.abstractions.holdem.percentiles import PercentileSpec
from solver.abstractions.holdem.sampled_cfr import SampledSetup, Solver, run
from solver.abstractions.holdem.translated import Translated
from solver.abstractions.play_time import ComputedAtPlayTime
from solver.engine.compile import compile_game
from solver.evaluation.holdem.policy import strategy_of
from solver.evaluation.holdem.translation_cost import RANDOMISED, real_policy
from solver.games.holdem.betting import CALL
from tests.nolimit_mini import ABSTRACT, REAL, holdem


@pytest.mark.slow
def test_play_time_translation_is_the_randomised_bots_behaviour() -> None:
    real, abstract = holdem(REAL), holdem(ABSTRACT)
    spec = PercentileSpec((None,))
    solver = Solver(SampledSetup(ABSTRACT, spec, 250, seed=3))
    run(solver, 4)
    table = strategy_table(solver)
    tree = compile_game(abstract)
    flat = strategy_of(abstract, tree, [HulheBot("blueprint", abstract.definition, spec, table)])
    offsets = tree.infoset_regret_offset
    policy = {key: dict(zip(actions, flat[offsets[i]:offsets[i + 1]].tolist(), strict=True))
              for i, (key, actions) in enumerate(zip(tree.infoset_keys, tree.infoset_actions,
                                                     strict=True))}
    expected = real_policy(abstract, policy, real, RANDOMISED)
    descriptor = f"translated={spec.descriptor} in {abstract.definition.spec}"
    bot = abstraction_for(real, descriptor)
    assert isinstance(bot, Translated) and isinstance(bot, ComputedAtPlayTime)
    assert bot.descriptor == descriptor
    rng = np.random.default_rng(5)
    checked = raises = 0
    for hand in range(200):
        seat = hand % 2  # the bot's; the other seat bets any size at random
        state = real.initial_state()
        while not state.is_terminal():
            if state.is_chance():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state = state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            legal = state.legal_actions()
            if state.current_player() != seat:
                action = int(rng.choice(legal))  # most sizes are off the bot's tree
                raises += action > CALL
                state = state.apply_action(action)
                continue
            got = bot.play_time_policy(state, table)
            want = expected[state.information_state_key(seat)]
            assert got == pytest.approx([want[a] for a in legal], abs=1e-6)
            checked += 1
            state = state.apply_action(int(rng.choice(legal, p=np.array(got) / sum(got))))
    assert checked > 150 and raises > 80, (checked, raises)
    words = describe(descriptor)
    assert words is not None and "pseudo-harmonic" in words.what


def test_the_default_builds_measured_strength_is_what_the_docs_record() -> None:
    """The lobby's words about the default blueprint quote the figure the docs record."""
    descriptor = ("translated=hist=k:1024,1024,1024 in holdem(betting=nolimit,maxRaises=4 3 2 2,"
                  "bettingAbstraction=0.5p p a;p a/0.5p p a;p a/p a;a)")
    words = describe(descriptor)
    assert words is not None and "2,514 ± 294" in words.measured
    docs = (Path(__file__).parents[4] / "docs" / "games" / "no-limit.md").read_text()
    assert "**2,514 ± 294**" in docs

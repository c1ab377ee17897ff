"""A range's shares of the actions along a line of betting, against brute force over every deal
of holdem-mini (one hand at a time, no card-removal algebra)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver.evaluation.holdem.duplicate import deal
from solver.evaluation.holdem.line_frequencies import line_frequencies, parse_line
from solver.evaluation.holdem.policy import TabularPolicy
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import hole_combos


def brute_force(policy: TabularPolicy, game: HoldemGame, line: str) -> list[list[float]]:
    rules = game.definition
    bettings, actions = parse_line(rules, line)
    decisions = bettings if not bettings[-1].over else bettings[:-1]
    sums = np.zeros((len(decisions), 3))
    combos = [tuple(int(c) for c in row) for row in hole_combos(rules)]
    need = sum(rules.board_cards)
    for board in itertools.permutations(range(rules.num_cards), need):
        for holes in itertools.permutations(combos, 2):
            if len(set(holes[0]) | set(holes[1]) | set(board)) < 2 * rules.hole_cards + need:
                continue
            reach = 1.0
            for i, betting in enumerate(decisions):
                shown = board[:rules.board_dealt(betting.round)]
                probs = policy.action_probabilities(
                    betting, shown, np.array([holes[betting.player]]))[0]
                sums[i] += reach * probs
                if i < len(actions):
                    reach *= probs[actions[i]]
    return [list(row / row.sum()) for row in sums]


@pytest.mark.parametrize("line", ["rc/cr", "c", "rrc/r"])
def test_the_shares_are_those_of_every_deal(solved: TabularPolicy, mini: HoldemGame,
                                            line: str) -> None:
    rules = mini.definition
    need = sum(rules.board_cards)
    boards = np.array(list(itertools.permutations(range(rules.num_cards), need)), np.int64)
    steps = line_frequencies(solved, rules, line, boards)
    want = brute_force(solved, mini, line)
    assert len(steps) == len(want)
    for step, shares in zip(steps, want, strict=True):
        assert [step.fold, step.call, step.raise_] == pytest.approx(shares, abs=1e-12)
    # The range really changes along the line: not every step is one distribution.
    assert len({round(s.call, 6) for s in steps}) > 1


def test_a_line_that_breaks_the_rules_names_the_legal_actions(solved: TabularPolicy,
                                                               mini: HoldemGame) -> None:
    boards = deal(mini.definition, 3, seed=0).boards
    with pytest.raises(ValueError, match="legal actions"):
        line_frequencies(solved, mini.definition, "cf", boards)
    with pytest.raises(ValueError, match="f, c, r"):
        line_frequencies(solved, mini.definition, "rx", boards)
    with pytest.raises(ValueError, match="empty"):
        line_frequencies(solved, mini.definition, "", boards)

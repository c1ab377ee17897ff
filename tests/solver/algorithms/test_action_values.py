"""Q(I, a), V(I), reach and weight against a plain recursion over the game's histories."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from solver.algorithms.action_values import action_values
from solver.algorithms.cfr import CFRSolver
from solver.engine.compile import compile_game
from solver.engine.tree import PublicTree
from solver.games import Game, get_game
from solver.games.base import State
from solver.games.dudo.game import DudoGame


def subtree_value(state: State, policy: dict[str, dict[int, float]]) -> float:
    """Player 0's expected payoff below `state` when both follow `policy`."""
    if state.is_terminal():
        return state.returns()[0]
    if state.is_chance():
        return sum(p * subtree_value(state.apply_action(o), policy)
                   for o, p in state.chance_outcomes())
    probabilities = policy[state.information_state_key()]
    return sum(probabilities[a] * subtree_value(state.apply_action(a), policy)
               for a in state.legal_actions())


def brute_force(game: Game, policy: dict[str, dict[int, float]]
                ) -> tuple[dict[tuple[str, int], float], dict[str, float], dict[str, float]]:
    """Q per (infoset, action), weight and reach per infoset, by walking every history."""
    numerator: dict[tuple[str, int], float] = defaultdict(float)
    weight: dict[str, float] = defaultdict(float)
    reach: dict[str, float] = defaultdict(float)
    stack = [(game.initial_state(), 1.0, 1.0, 1.0)]
    while stack:
        state, chance, own0, own1 = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance():
            for o, p in state.chance_outcomes():
                stack.append((state.apply_action(o), chance * p, own0, own1))
            continue
        player = state.current_player()
        key = state.information_state_key()
        others = chance * (own1 if player == 0 else own0)
        weight[key] += others
        reach[key] += others * (own0 if player == 0 else own1)
        sign = 1.0 if player == 0 else -1.0
        for a in state.legal_actions():
            child = state.apply_action(a)
            numerator[(key, a)] += others * sign * subtree_value(child, policy)
            p = policy[key][a]
            stack.append((child, chance, own0 * (p if player == 0 else 1.0),
                          own1 * (p if player == 1 else 1.0)))
    q = {k: v / weight[k[0]] for k, v in numerator.items() if weight[k[0]] > 0}
    return q, dict(weight), dict(reach)


SMALL_HOLDEM = "holdem(numRanks=3,numSuits=2,numHoleCards=1,numBoardCards=0 1,maxRaises=2 2)"
SMALL_NO_LIMIT = ("holdem(betting=nolimit,numRanks=3,numSuits=2,numHoleCards=1,"
                  "numBoardCards=0 1,blind=1 1,firstPlayer=1 1,stack={stack})")
"""No-limit on a Leduc-sized deck: every size at 5 chips a stack, and half pot, pot and all-in
at 12 (all-ins run out the board)."""


@pytest.mark.parametrize(("game", "iterations"), [
    ("kuhn", 200), ("leduc", 60), (SMALL_HOLDEM, 60), ("dudo-calzo", 20),
    (SMALL_NO_LIMIT.format(stack="5 5"), 30),
    (SMALL_NO_LIMIT.format(stack="12 12").replace(")", ",bettingAbstraction=0.5p p a)"), 30)])
@pytest.mark.slow
def test_against_the_histories(game: str, iterations: int) -> None:
    check_against_histories(compile_game(get_game(game)), get_game(game), iterations)


def test_a_tree_laid_out_directly() -> None:
    """Dudo with three-faced dice, one against two, compiled from its rules."""
    game = DudoGame(dice=(1, 2), faces=3)
    check_against_histories(game.compile_public_tree(), game, 30)


def check_against_histories(tree: PublicTree, game: Game, iterations: int) -> None:
    assert tree.unit_arrays() is not None
    solver = CFRSolver(tree, "cfr")
    solver.iterate(iterations)  # an unconverged profile: mixed everywhere, a sterner test
    strategy = solver.average_strategy()
    offsets = tree.infoset_regret_offset
    policy = {key: {a: float(strategy[offsets[i] + k])
                    for k, a in enumerate(tree.infoset_actions[i])}
              for i, key in enumerate(tree.infoset_keys)}
    out = action_values(tree, strategy)
    q, weight, reach = brute_force(game, policy)
    for i, key in enumerate(tree.infoset_keys):
        assert out.weight[i] == pytest.approx(weight[key], abs=1e-12)
        assert out.reach[i] == pytest.approx(reach[key], abs=1e-12)
        for k, a in enumerate(tree.infoset_actions[i]):
            assert out.q[offsets[i] + k] == pytest.approx(q[(key, a)], abs=1e-9), (key, a)
        assert out.v[i] == pytest.approx(sum(policy[key][a] * q[(key, a)]
                                             for a in tree.infoset_actions[i]), abs=1e-9)
    assert out.value == pytest.approx(subtree_value(game.initial_state(), policy))


def test_unreached_information_sets_have_no_values() -> None:
    """The opponent never reaches them: nothing to condition on."""
    tree = compile_game(get_game("kuhn"))
    strategy = np.zeros(tree.num_regrets)
    offsets = tree.infoset_regret_offset
    strategy[offsets[:-1]] = 1.0  # always pass: nobody ever bets
    out = action_values(tree, strategy)
    facing_bet = [i for i, key in enumerate(tree.infoset_keys) if key.endswith("b")]
    assert facing_bet and all(out.weight[i] == 0 and np.isnan(out.v[i]) for i in facing_bet)
    assert all(np.isfinite(out.v[i]) for i, key in enumerate(tree.infoset_keys)
               if not key.endswith("b"))

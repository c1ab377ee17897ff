"""The reference evaluators against OpenSpiel and against hand computations."""

from __future__ import annotations

import random
from collections.abc import Sequence

import pyspiel
import pytest
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import exploitability as os_exploitability

from solver.algorithms import reference
from solver.algorithms.policy import Policy, uniform_policy
from solver.games import get_game, play

ROCK, PAPER, SCISSORS = 0, 1, 2


def _random_policy(game_name: str, seed: int) -> dict[str, dict[int, float]]:
    rng = random.Random(seed)
    policy: dict[str, dict[int, float]] = {}
    for key, dist in uniform_policy(get_game(game_name)).items():
        weights = [rng.random() ** 2 for _ in dist]
        total = sum(weights)
        policy[key] = {a: w / total for a, w in zip(dist, weights, strict=True)}
    return policy


def _to_openspiel(game_name: str, os_game: pyspiel.Game,
                  policy: Policy) -> dict[str, list[tuple[int, float]]]:
    """Our policy keyed by OpenSpiel's information-state strings, mapped through histories
    (Kuhn and Leduc share OpenSpiel's chance outcome and action ids)."""
    game = get_game(game_name)
    out: dict[str, list[tuple[int, float]]] = {}
    stack = [os_game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            ours = play(game, state.history())
            assert ours.current_player() == state.current_player()
            assert ours.legal_actions() == tuple(state.legal_actions())
            dist = policy[ours.information_state_key()]
            out[state.information_state_string()] = [(a, dist[a]) for a in ours.legal_actions()]
        stack.extend(state.child(a) for a in state.legal_actions())
    return out


@pytest.mark.parametrize(("name", "os_name"), [("kuhn", "kuhn_poker"), ("leduc", "leduc_poker")])
def test_uniform_matches_openspiel(name: str, os_name: str) -> None:
    game, os_game = get_game(name), pyspiel.load_game(os_name)
    expected = os_exploitability.exploitability(os_game, os_policy.UniformRandomPolicy(os_game))
    got = reference.exploitability(game, uniform_policy(game))
    assert got == pytest.approx(expected, abs=1e-9)


def test_known_uniform_figures() -> None:
    kuhn, leduc = get_game("kuhn"), get_game("leduc")
    assert reference.exploitability(kuhn, uniform_policy(kuhn)) == pytest.approx(11 / 24)
    assert reference.expected_value(kuhn, uniform_policy(kuhn)) == pytest.approx(1 / 8)
    assert reference.nash_conv(leduc, uniform_policy(leduc)) == pytest.approx(4.747222222, 1e-8)


@pytest.mark.parametrize(("name", "os_name"), [("kuhn", "kuhn_poker"), ("leduc", "leduc_poker")])
@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.slow
def test_random_policy_matches_openspiel(name: str, os_name: str, seed: int) -> None:
    game, os_game = get_game(name), pyspiel.load_game(os_name)
    policy = _random_policy(name, seed)
    expected = pyspiel.exploitability(os_game, _to_openspiel(name, os_game, policy))
    assert reference.exploitability(game, policy) == pytest.approx(expected, abs=1e-9)
    for player in (0, 1):
        value = reference.best_response_value(game, policy, player)
        own = reference.expected_value(game, policy) * (1 if player == 0 else -1)
        assert value >= own - 1e-12


@pytest.mark.slow
def test_uniform_dudo_value() -> None:
    game = get_game("dudo")
    assert reference.expected_value(game, uniform_policy(game)) == pytest.approx(-0.0324, abs=5e-5)


def _rps(p1: Sequence[float], p2: Sequence[float]) -> dict[str, dict[int, float]]:
    return {"P1": dict(enumerate(p1)), "P2": dict(enumerate(p2))}


def test_rps_by_hand() -> None:
    game = get_game("rps")
    # Player 1 always rock, player 2 half rock half paper: player 1 wins 0 and loses 1/2, so
    # value -1/2; player 1's best reply is paper (+1/2), player 2's is paper (+1).
    policy = _rps((1, 0, 0), (0.5, 0.5, 0))
    assert reference.expected_value(game, policy) == pytest.approx(-0.5)
    assert reference.best_response_value(game, policy, 0) == pytest.approx(0.5)
    assert reference.best_response_value(game, policy, 1) == pytest.approx(1.0)
    assert reference.nash_conv(game, policy) == pytest.approx(1.5)
    assert reference.exploitability(game, policy) == pytest.approx(0.75)
    _value, choice = reference.best_response(game, policy, 1)
    assert choice == {"P2": PAPER}

    assert reference.exploitability(game, _rps((1 / 3,) * 3, (1 / 3,) * 3)) == pytest.approx(0)
    # Against uniform every reply earns 0, so only the non-uniform side is exploited:
    # (0.5, 0.3, 0.2) is beaten by paper: 0.5 - 0.2 = 0.3.
    assert reference.exploitability(game, _rps((0.5, 0.3, 0.2), (1 / 3,) * 3)) == pytest.approx(
        0.15
    )


def test_policy_errors() -> None:
    game = get_game("rps")
    with pytest.raises(KeyError, match="P2"):
        reference.expected_value(game, {"P1": {0: 1.0}})
    with pytest.raises(ValueError, match="not a distribution"):
        reference.expected_value(game, _rps((0.5, 0.3, 0.3), (1, 0, 0)))

"""The sequence-form LP: known values, exact equilibria, Kuhn's unique player-2 strategy."""

from __future__ import annotations

import numpy as np
import pytest

from solver.algorithms import reference
from solver.algorithms.lp import LPResult, build_sequence_form, exploitability_sf, solve_lp
from solver.algorithms.policy import infosets, uniform_policy
from solver.games import get_game

KUHN_VALUE = -1 / 18
LEDUC_VALUE = -0.085606424078
PASS, BET = 0, 1


@pytest.fixture(scope="module", params=[True, False], ids=["duals", "two-lps"])
def solved(request: pytest.FixtureRequest) -> dict[str, LPResult]:
    use_duals = request.param
    return {
        name: solve_lp(get_game(name), use_duals=use_duals) for name in ("rps", "kuhn", "leduc")
    }


def test_values(solved: dict[str, LPResult]) -> None:
    assert solved["rps"].value == pytest.approx(0.0, abs=1e-9)
    assert solved["kuhn"].value == pytest.approx(KUHN_VALUE, abs=1e-6)
    assert solved["leduc"].value == pytest.approx(LEDUC_VALUE, abs=1e-6)


@pytest.mark.parametrize("name", ["rps", "kuhn", "leduc"])
@pytest.mark.slow
def test_policy_is_an_equilibrium(solved: dict[str, LPResult], name: str) -> None:
    game, result = get_game(name), solved[name]
    assert set(result.policy) == set(infosets(game))
    for key, dist in result.policy.items():
        assert set(dist) == set(infosets(game)[key].actions)
        assert sum(dist.values()) == pytest.approx(1.0)
        assert min(dist.values()) >= 0.0
    assert reference.exploitability(game, result.policy) <= 1e-6
    assert reference.expected_value(game, result.policy) == pytest.approx(result.value, abs=1e-6)
    assert result.exploitability == pytest.approx(
        reference.exploitability(game, result.policy), abs=1e-9
    )


def test_rps_equilibrium_is_uniform(solved: dict[str, LPResult]) -> None:
    for key in ("P1", "P2"):
        assert list(solved["rps"].policy[key].values()) == pytest.approx([1 / 3] * 3, abs=1e-6)


def test_kuhn_equilibrium(solved: dict[str, LPResult]) -> None:
    policy = solved["kuhn"].policy

    def bet(key: str) -> float:
        return policy[key][BET]

    # Player 2's equilibrium strategy is unique.
    assert bet("J|p") == pytest.approx(1 / 3, abs=1e-6)  # bluff J after a pass
    assert bet("Q|b") == pytest.approx(1 / 3, abs=1e-6)  # call with Q facing a bet
    assert bet("Q|p") == pytest.approx(0.0, abs=1e-6)
    assert bet("K|p") == pytest.approx(1.0, abs=1e-6)
    assert bet("J|b") == pytest.approx(0.0, abs=1e-6)
    assert bet("K|b") == pytest.approx(1.0, abs=1e-6)
    # Player 1's is the one-parameter family: bet J with α ∈ [0, 1/3], K with 3α, call Q after
    # pass-bet with α + 1/3.
    alpha = bet("J|")
    assert -1e-6 <= alpha <= 1 / 3 + 1e-6
    assert bet("K|") == pytest.approx(3 * alpha, abs=1e-6)
    assert bet("Q|pb") == pytest.approx(alpha + 1 / 3, abs=1e-6)
    assert bet("Q|") == pytest.approx(0.0, abs=1e-6)
    assert bet("J|pb") == pytest.approx(0.0, abs=1e-6)
    assert bet("K|pb") == pytest.approx(1.0, abs=1e-6)


def test_sizes(solved: dict[str, LPResult]) -> None:
    sizes = solved["leduc"].sizes
    assert sizes["infosets_0"] + sizes["infosets_1"] == 936
    assert sizes["histories"] == 9457
    assert solved["kuhn"].sizes["sequences_0"] == 13
    assert solved["leduc"].seconds > 0


def test_sequence_form_constraints_hold_for_uniform() -> None:
    game = get_game("leduc")
    sf = build_sequence_form(game)
    for player in (0, 1):
        e = sf.constraints[player]
        assert e.shape == (len(sf.infosets[player]) + 1, sf.num_sequences[player])
        # Every non-empty sequence appears once with +1; the empty sequence row is x[∅] = 1.
        assert np.allclose(np.asarray((e > 0).sum(axis=0)).ravel(), 1)
    policy = uniform_policy(game)
    assert exploitability_sf(sf, policy) == pytest.approx(
        reference.exploitability(game, policy), abs=1e-9
    )

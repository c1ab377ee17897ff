"""A strategy's own style figures from a seat, exact on small trees and simulated on big ones,
against figures worked out by hand; and worked out when a solve is stored, kept with it."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest

from solver.evaluation.style import (
    exact_style,
    read_style,
    seat_styles,
    simulated_style,
    stored_policy,
)
from solver.games import State, get_game, legal_labels
from solver.runs.figures import fill_style, lacking_style
from solver.runs.store_solve import solve_and_store
from strategies import StrategyStore
from strategies.figures import STYLE
from tests.conftest import copy_store


def uniform(state: State) -> tuple[Sequence[str], Sequence[float]]:
    """Every legal action with the same probability: its figures are easy to work out."""
    labels = legal_labels(state)
    return labels, [1 / len(labels)] * len(labels)


# Kuhn, both seats uniform. Seat 0 bets (1/2), or checks and, facing a bet (1/4), calls (1/8):
# VPIP 5/8, PFR 1/2, aggression 1/2 bets per 1/8 calls = 4. Seat 1 calls a bet (1/4) or bets
# after a check (1/4): VPIP 1/2, PFR 1/4, aggression 1/4 per 1/4 = 1. Showdowns: bet-call 1/4,
# check-check 1/4, check-bet-call 1/8: 5/8 for both.
KUHN = {0: {"vpip": 5 / 8, "pfr": 1 / 2, "aggression": 4.0, "wtsd": 5 / 8},
        1: {"vpip": 1 / 2, "pfr": 1 / 4, "aggression": 1.0, "wtsd": 5 / 8}}


@pytest.mark.parametrize("seat", [0, 1])
def test_exact_figures_of_a_uniform_player_in_kuhn(seat: int) -> None:
    style = exact_style(uniform, get_game("kuhn"), seat)
    assert style.exact
    for stat, value in KUHN[seat].items():
        assert style.figure(stat) == pytest.approx(value, abs=1e-12), stat


def test_exact_figures_of_a_uniform_player_in_leduc() -> None:
    """Seat 0 bets (1/2), or checks and faces a bet (1/4), then calls or raises (2/3 of it):
    VPIP 1/2 + 1/6 = 2/3; it raises there 1/3 of the time: PFR 1/2 + 1/12 = 7/12."""
    style = exact_style(uniform, get_game("leduc"), 0)
    assert style.figure("vpip") == pytest.approx(2 / 3, abs=1e-12)
    assert style.figure("pfr") == pytest.approx(7 / 12, abs=1e-12)


@pytest.mark.slow
def test_a_simulation_estimates_the_exact_figures() -> None:
    kuhn = get_game("kuhn")
    simulated = simulated_style(uniform, kuhn, 0, hands=20_000, decisions=10**6)
    assert not simulated.exact and simulated.hands == 20_000
    for stat in ("vpip", "pfr", "wtsd"):  # shares: standard error under 0.004
        assert simulated.figure(stat) == pytest.approx(KUHN[0][stat], abs=0.015), stat


def test_a_big_tree_is_simulated_without_asking_the_policy_to_walk_it() -> None:
    """Whether a tree is small enough to walk is found before the policy is asked anything:
    a policy that computes (a re-solving bot, half a second a river decision) was otherwise
    asked at thousands of positions of hold'em before the walk gave up."""
    asked: list[State] = []

    def counting(state: State) -> tuple[Sequence[str], Sequence[float]]:
        asked.append(state)
        return uniform(state)

    styles = seat_styles(counting, get_game("holdem-mini"), hands=5)
    assert not styles[0].exact and styles[0].hands == 5
    assert len(asked) <= 5 * 12  # the hands' own decisions, no walk


def test_the_stored_equilibrium_of_kuhn(store_path: Path) -> None:
    """Seat 1 bets only after a check (its PFR): with the stored strategy's probabilities read
    at each card, P = sum over the six deals of 1/6 x P(seat 0 checks its card) x P(seat 1
    bets its card after a check). The walk gives the same figure exactly; Dudo's tree is too
    big to walk and is simulated instead. The build stored the same figures with each solve."""
    with StrategyStore.open(store_path) as store:
        kuhn = get_game("kuhn")
        info = store.latest_solve("kuhn")
        assert info is not None
        policy = stored_policy(store, kuhn, info)
        root = kuhn.initial_state()

        def bets(state: State) -> float:
            labels, probabilities = policy(state)
            assert labels is not None  # looked up, so labelled
            return dict(zip(labels, probabilities, strict=True))["bet"]

        by_hand = sum(
            (1 - bets(root.apply_action(c0).apply_action(c1)))
            * bets(root.apply_action(c0).apply_action(c1).apply_action(0))
            for c0 in range(3) for c1 in range(3) if c0 != c1) / 6
        styles = seat_styles(policy, kuhn)
        assert styles[1].exact
        assert styles[1].figure("pfr") == pytest.approx(by_hand, abs=1e-12)
        # An equilibrium bets the King after a check and bluffs the Jack a third of the time.
        assert 0.3 < by_hand < 0.4
        assert read_style(store.figures(info.id)[STYLE]) == styles
        dudo_info = store.latest_solve("dudo")
        assert dudo_info is not None
        big = read_style(store.figures(dudo_info.id)[STYLE])
        assert big is not None and not big[0].exact and big[0].hands > 0
        assert 0 < (big[0].figure("challenges") or 0) < 1


def test_a_solve_is_stored_with_its_figures(tmp_path: Path) -> None:
    """The one way a solve goes into the store works out its style figures and keeps them
    with it; a game without style statistics (RPS) gets none."""
    path = tmp_path / "store.sqlite"
    stored = solve_and_store("kuhn", "cfr+", iterations=200, store_path=path)
    rps = solve_and_store("rps", "cfr+", iterations=10, store_path=path)
    with StrategyStore.open(path) as store:
        styles = read_style(store.figures(stored.info.id)[STYLE])
        assert styles is not None and styles == seat_styles(
            stored_policy(store, get_game("kuhn"), stored.info), get_game("kuhn"))
        assert store.figures(rps.info.id) == {}
    assert lacking_style(path) == []


@pytest.mark.slow
def test_a_store_of_an_earlier_version_gets_its_figures_afterwards(store_path: Path,
                                                                    tmp_path: Path) -> None:
    """A store built before the figures were kept (none stored) keeps its solves; the step the
    background build runs first works them out for the latest solve of each game, once."""
    path = copy_store(store_path, tmp_path / "old.sqlite")
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM figures")
    games = lacking_style(path)
    assert "kuhn" in games and "dudo" in games and "rps" not in games
    assert sorted(fill_style(path)) == sorted(games)
    assert lacking_style(path) == [] and fill_style(path) == []
    with StrategyStore.open(path) as store, StrategyStore.open(store_path) as built:
        for game in games:
            info = store.latest_solve(game)
            assert info is not None
            assert store.figures(info.id)[STYLE] == built.figures(info.id)[STYLE]

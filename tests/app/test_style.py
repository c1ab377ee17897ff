"""The equilibrium's own style figures from a seat, exact on small trees and simulated on big
ones, against figures worked out by hand."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.services import StoredStrategyBot, StrategySource
from app.services.bot import Policy
from app.services.style import equilibrium_style, exact_style, simulated_style
from solver.games import Game, State, get_game, legal_labels


class UniformBot:
    """Every legal action with the same probability: its figures are easy to work out."""

    def policy(self, game: Game, state: State) -> Policy:
        labels = tuple(legal_labels(state))
        return Policy(labels, tuple(1 / len(labels) for _ in labels))

    def value(self, game: Game) -> float | None:
        return 0.0


# Kuhn, both seats uniform. Seat 0 bets (1/2), or checks and, facing a bet (1/4), calls (1/8):
# VPIP 5/8, PFR 1/2, aggression 1/2 bets per 1/8 calls = 4. Seat 1 calls a bet (1/4) or bets
# after a check (1/4): VPIP 1/2, PFR 1/4, aggression 1/4 per 1/4 = 1. Showdowns: bet-call 1/4,
# check-check 1/4, check-bet-call 1/8: 5/8 for both.
KUHN = {0: {"vpip": 5 / 8, "pfr": 1 / 2, "aggression": 4.0, "wtsd": 5 / 8},
        1: {"vpip": 1 / 2, "pfr": 1 / 4, "aggression": 1.0, "wtsd": 5 / 8}}


@pytest.mark.parametrize("seat", [0, 1])
def test_exact_figures_of_a_uniform_player_in_kuhn(seat: int) -> None:
    style = exact_style(UniformBot(), get_game("kuhn"), seat)
    assert style.exact
    for stat, value in KUHN[seat].items():
        assert style.figure(stat) == pytest.approx(value, abs=1e-12), stat


def test_exact_figures_of_a_uniform_player_in_leduc() -> None:
    """Seat 0 bets (1/2), or checks and faces a bet (1/4), then calls or raises (2/3 of it):
    VPIP 1/2 + 1/6 = 2/3; it raises there 1/3 of the time: PFR 1/2 + 1/12 = 7/12."""
    style = exact_style(UniformBot(), get_game("leduc"), 0)
    assert style.figure("vpip") == pytest.approx(2 / 3, abs=1e-12)
    assert style.figure("pfr") == pytest.approx(7 / 12, abs=1e-12)


def test_a_simulation_estimates_the_exact_figures() -> None:
    kuhn = get_game("kuhn")
    simulated = simulated_style(UniformBot(), kuhn, 0, hands=20_000, decisions=10**6)
    assert not simulated.exact and simulated.hands == 20_000
    for stat in ("vpip", "pfr", "wtsd"):  # shares: standard error under 0.004
        assert simulated.figure(stat) == pytest.approx(KUHN[0][stat], abs=0.015), stat


def test_the_stored_equilibrium_of_kuhn(store_path: Path) -> None:
    """Seat 1 bets only after a check (its PFR): with the stored strategy's probabilities read
    at each card, P = sum over the six deals of 1/6 x P(seat 0 checks its card) x P(seat 1
    bets its card after a check). The walk gives the same figure exactly; Dudo's tree is too
    big to walk and is simulated instead."""
    source = StrategySource(store_path)
    try:
        bot = StoredStrategyBot(source)
        kuhn = get_game("kuhn")
        root = kuhn.initial_state()

        def bets(state: State) -> float:
            return bot.policy(kuhn, state).as_dict()["bet"]

        by_hand = sum(
            (1 - bets(root.apply_action(c0).apply_action(c1)))
            * bets(root.apply_action(c0).apply_action(c1).apply_action(0))
            for c0 in range(3) for c1 in range(3) if c0 != c1) / 6
        style = equilibrium_style(bot, kuhn, 1, source.solve("kuhn").id)
        assert style.exact
        assert style.figure("pfr") == pytest.approx(by_hand, abs=1e-12)
        # An equilibrium bets the King after a check and bluffs the Jack a third of the time.
        assert 0.3 < by_hand < 0.4
        big = equilibrium_style(bot, get_game("dudo"), 0, source.solve("dudo").id)
        assert not big.exact and big.hands > 0
        assert 0 < (big.figure("challenges") or 0) < 1
    finally:
        source.close()

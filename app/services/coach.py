"""The coach: what each of the human's decisions cost, and a result of the hand without the luck.

At a decision at information set I, with the stored profile's values Q(I, a) of each action and
V(I) of the set (`solver.algorithms.action_values`: the bot plays its stored strategy, the human
goes on with the equilibrium), taking a costs ``V(I) - Q(I, a)`` against the equilibrium and
``max Q(I, .) - Q(I, a)`` against the best reply to the bot.

The luck-adjusted result of a hand is the seat's equilibrium value plus the sum over the human's
decisions of ``Q(I, a) - V(I)``. By the performance-difference identity its expectation is the
human's expected winnings against the bot, whatever the human's strategy: the human's choice
depends only on I, so the cards, the dice and the bot's sampling add nothing in expectation, and
they are most of the spread of the raw result. A player who only ever picks actions of the
equilibrium's support scores exactly the equilibrium value.
"""

from __future__ import annotations

from dataclasses import dataclass

from app.services.bot import Bot, Policy
from app.services.errors import StrategyUnavailableError
from app.services.trace import Trace

NEGLIGIBLE = 0.0005
"""What a decision may give up (or gain) against the equilibrium and still count as nothing:
it rounds to 0.000, the coach's precision, and it is the size of a solved strategy's own
error (its actions' values differ by about its exploitability, 1e-4). Below it a decision is
not costly and the pages say nothing was given up."""
ACCURACY_SHARE = 0.01
"""A decision is *accurate* if it gave up at most this share of the pot against the equilibrium
(of the stake of 1 in a game without a pot)."""


@dataclass(frozen=True, slots=True)
class Judged:
    """One decision of the human, judged against the stored profile."""

    seq: int
    infoset: str
    chosen: str
    policy: Policy
    """The equilibrium's probabilities and the values of every action (`values` is set)."""
    lost_vs_equilibrium: float
    lost_vs_best_reply: float
    pot: int | None
    accurate: bool


@dataclass(frozen=True, slots=True)
class HandReview:
    decisions: list[Judged]
    adjusted: float
    """The luck-adjusted result of the hand (see the module's docstring)."""

    @property
    def lost(self) -> float:
        return sum(d.lost_vs_equilibrium for d in self.decisions)

    @property
    def worst(self) -> Judged | None:
        return max(self.decisions, key=lambda d: d.lost_vs_equilibrium, default=None)

    @property
    def accurate(self) -> int:
        return sum(d.accurate for d in self.decisions)


def review(bot: Bot, trace: Trace, human_seat: int, seat_value: float | None
           ) -> HandReview | None:
    """The human's decisions in `trace` judged, and the hand's luck-adjusted result; None if
    the bot's solve has no action values (an abstract game) or the value is unknown."""
    if seat_value is None:
        return None
    decisions = []
    for step in trace.steps:
        if step.recorded.actor != human_seat:
            continue
        try:
            policy = bot.policy(trace.game, step.before)
        except StrategyUnavailableError:
            return None
        if policy.values is None or policy.value is None:
            return None
        taken = policy.values[policy.labels.index(step.recorded.label)]
        pot = step.before.public_view().pot
        lost = policy.value - taken
        decisions.append(Judged(
            seq=step.recorded.seq,
            infoset=step.before.information_state_key(human_seat),
            chosen=step.recorded.label,
            policy=policy,
            lost_vs_equilibrium=lost,
            lost_vs_best_reply=max(policy.values) - taken,
            pot=pot,
            accurate=lost <= ACCURACY_SHARE * (pot if pot else 1),
        ))
    return HandReview(decisions, seat_value - sum(d.lost_vs_equilibrium for d in decisions))

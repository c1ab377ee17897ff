"""The statistics of a match from its running totals: mean, spread, a Student's t interval and
the one verdict that the API and the pages both show.

A verdict needs enough hands: with a handful of results the sample spread is a poor guess of
the real one (two wins in Rock-Paper-Scissors have no spread at all, yet a uniform bot cannot be
beaten), so none is given before `MIN_HANDS_FOR_VERDICT` hands nor from an interval of zero
width.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache
from typing import Literal

from scipy.stats import t as student_t

MIN_HANDS_FOR_VERDICT = 30
CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Stats:
    n: int
    total: float
    mean: float | None
    """None without hands."""
    std: float | None
    """Sample standard deviation (n - 1 in the denominator); None under 2 hands."""
    ci95_low: float | None
    ci95_high: float | None
    """mean ± t(0.975, n - 1) s/√n; None under 2 hands."""


@cache
def t_quantile(degrees_of_freedom: int) -> float:
    """The two-sided 95% quantile of Student's t: 12.71 for 1 degree of freedom, 1.96 in the
    limit."""
    return float(student_t.ppf(0.5 + CONFIDENCE / 2, degrees_of_freedom))


def from_totals(n: int, total: float, total_of_squares: float) -> Stats:
    """Statistics of `n` payoffs from their sum and sum of squares (what a match keeps)."""
    if n == 0:
        return Stats(0, 0.0, None, None, None, None)
    mean = total / n
    if n < 2:
        return Stats(n, total, mean, None, None, None)
    variance = max(0.0, (total_of_squares - n * mean * mean) / (n - 1))
    std = math.sqrt(variance)
    if std <= 1e-12 * max(1.0, abs(mean)):
        std = 0.0  # rounding of equal results
    half = t_quantile(n - 1) * std / math.sqrt(n)
    return Stats(n, total, mean, std, mean - half, mean + half)


def summarize(payoffs: list[float]) -> Stats:
    return from_totals(len(payoffs), math.fsum(payoffs), math.fsum(x * x for x in payoffs))


def seat_value(value: float, seat: int) -> float:
    """Equilibrium expectation of the player in `seat` when `value` is seat 0's."""
    return value if seat == 0 else -value


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: Literal["too_few_hands", "consistent", "better", "worse", "no_expectation"]
    text: str


def verdict(stats: Stats, expected_mean: float | None) -> Verdict:
    """How the player's mean compares with what equilibrium play would expect."""
    n = stats.n
    if n < MIN_HANDS_FOR_VERDICT or stats.ci95_low is None or stats.ci95_high is None:
        more = MIN_HANDS_FOR_VERDICT - n
        return Verdict("too_few_hands",
                       f"Play {more} more hand{'s' if more != 1 else ''} for a verdict: with "
                       f"fewer than {MIN_HANDS_FOR_VERDICT} results, luck alone decides most of "
                       "what you see.")
    if stats.std == 0.0:
        return Verdict("too_few_hands", "Every result so far is the same, so there is no "
                       "spread to judge luck by yet: play on for a verdict.")
    if expected_mean is None:
        return Verdict("no_expectation", "The game's value is unknown, so there is nothing to "
                       "compare your results with.")
    if stats.ci95_low <= expected_mean <= stats.ci95_high:
        return Verdict("consistent", "So far your results are consistent with equilibrium "
                       f"play: the expected {expected_mean:+.3f} per hand lies inside your 95% "
                       "interval.")
    if stats.ci95_low > expected_mean:
        return Verdict("better", "You are doing better than the equilibrium expectation, by "
                       "more than luck alone would usually explain (95% interval above it).")
    return Verdict("worse", "You are doing worse than the equilibrium expectation, by more "
                   "than luck alone would usually explain (95% interval below it).")

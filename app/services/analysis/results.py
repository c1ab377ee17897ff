"""The statistics of a match from its running totals: mean, spread, a Student's t interval and
the one verdict that the API and the pages both show.

An interval is shown once there are `MIN_HANDS_FOR_INTERVAL` results with some spread: two
draws in Rock-Paper-Scissors have none, and an interval of zero width ([−1, −1] after two
losses) claims a certainty that two hands cannot give; with two to four results Student's t
multiplies the spread by 12.7 to 3.2, which makes the interval wider than anything the game
pays. A verdict needs more: with a handful of results the sample spread is a poor guess of the
real one (two wins against a uniform bot have no spread at all, yet it cannot be beaten), so none
is given before `MIN_HANDS_FOR_VERDICT` hands. Where every hand has a luck-adjusted result
(`app.services.analysis.coach`) the verdict judges that estimate, whose interval is far narrower,
and says so.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

MIN_HANDS_FOR_INTERVAL = 5
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


@lru_cache(maxsize=4096)
def t_quantile(degrees_of_freedom: int) -> float:
    """The two-sided 95% quantile of Student's t: 12.71 for 1 degree of freedom, 1.96 in the
    limit."""
    # Imported here, once: scipy.special is the only part of SciPy the app needs, and
    # importing it (or scipy.stats) with the app cost 0.4 s (1.5 s) of every worker's start;
    # the first results read pays it instead, or `warm_up` at start-up in the background.
    from scipy.special import stdtrit  # lazily: see above

    return float(stdtrit(degrees_of_freedom, 0.5 + CONFIDENCE / 2))


def warm_up() -> None:
    """Load what the first results read would (`t_quantile`'s import)."""
    t_quantile(1)


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
class Interval:
    """A 95% interval as the results show it: its ends, or none and why not yet."""

    low: float | None
    high: float | None
    note: str | None
    """Why there is no interval (None when there is one)."""


def shown_interval(stats: Stats) -> Interval:
    """The interval of `stats` once it has `MIN_HANDS_FOR_INTERVAL` results with some spread,
    else none and why (equal results first: that is what more hands must change)."""
    if stats.std == 0.0:
        return Interval(None, None, "not shown: every result so far is the same, so there is "
                                    "no spread to measure yet")
    if stats.n < MIN_HANDS_FOR_INTERVAL or stats.ci95_low is None or stats.ci95_high is None:
        return Interval(None, None, f"shown after {MIN_HANDS_FOR_INTERVAL} hands: fewer "
                                    "results say too little about their spread")
    return Interval(stats.ci95_low, stats.ci95_high, None)


def hands_needed(stats: Stats, expected: float | None) -> int | None:
    """How many more hands, at the current mean and spread, before the 95% interval excludes
    `expected` (the bot's value); 0 if the interval shown (`shown_interval`) excludes it
    already. The projection is the smallest number of hands N, more than those played, at
    which ``t(N - 1) s / sqrt(N)`` (Student's t, as the interval is computed) falls below
    the mean's distance from `expected`: at least 1 while the interval shown holds it. None
    without an interval shown, without a value to compare with, or with a mean exactly on it
    (never, at this rate)."""
    shown = shown_interval(stats)
    if (expected is None or shown.low is None or shown.high is None or stats.mean is None
            or not stats.std):
        return None
    if not shown.low <= expected <= shown.high:
        return 0
    distance = abs(stats.mean - expected)
    if distance <= 1e-12 * max(1.0, abs(expected)):
        return None
    std = stats.std

    def excludes(hands: int) -> bool:
        return t_quantile(hands - 1) * std / math.sqrt(hands) < distance

    # t(N - 1) falls as N grows, so `excludes` holds from some N on; t(n - 1) bounds it above.
    low = stats.n + 1
    high = max(low, math.floor((t_quantile(stats.n - 1) * std / distance) ** 2) + 1)
    while low < high:
        middle = (low + high) // 2
        if excludes(middle):
            high = middle
        else:
            low = middle + 1
    return low - stats.n


def signed(x: float, digits: int = 3) -> str:
    """``+0.056``, ``−0.056``, and ``0.000`` for anything that rounds to zero (never a
    negative zero)."""
    text = f"{abs(x):.{digits}f}"
    if not text.strip("0."):
        return text
    return ("+" if x > 0 else "−") + text


def luck_words(pieces: str) -> str:
    """What the luck-adjusted results take out, in the game's words: the luck of its dealt
    pieces (``cards``, ``dice``) and of the bot's choices; of the bot's choices alone in a game
    that deals nothing (``moves``: Rock-Paper-Scissors)."""
    if pieces in ("cards", "dice"):
        return f"the luck of the {pieces} and of the bot's choices"
    return "the luck of the bot's choices"


Basis = Literal["luck_adjusted", "raw"]


@dataclass(frozen=True, slots=True)
class Verdict:
    kind: Literal["too_few_hands", "consistent", "better", "worse", "no_expectation"]
    text: str
    basis: Basis | None = None
    """Which results were judged: the luck-adjusted ones or the raw ones (None: no verdict)."""


def verdict(stats: Stats, expected_mean: float | None, adjusted: Stats | None = None,
            luck: str = "the luck") -> Verdict:
    """How the player's mean compares with what equilibrium play would expect: judged on the
    luck-adjusted results where every hand has one and they have an interval, else on the raw
    results. `luck` names what they take out (`luck_words`)."""
    n = stats.n
    if n < MIN_HANDS_FOR_VERDICT or stats.ci95_low is None or stats.ci95_high is None:
        more = MIN_HANDS_FOR_VERDICT - n
        return Verdict("too_few_hands",
                       f"Play {more} more hand{'s' if more != 1 else ''} for a verdict: with "
                       f"fewer than {MIN_HANDS_FOR_VERDICT} results, luck alone decides most of "
                       "what you see.")
    judged: Interval | None = None
    if adjusted is not None and adjusted.n == n:
        judged = shown_interval(adjusted)
    basis: Basis = "luck_adjusted" if judged is not None and judged.low is not None else "raw"
    if basis == "raw":
        judged = shown_interval(stats)
        if stats.std == 0.0:
            return Verdict("too_few_hands", "Every result so far is the same, so there is no "
                           "spread to judge luck by yet: play on for a verdict.")
    if expected_mean is None:
        return Verdict("no_expectation", "The game's value is unknown, so there is nothing to "
                       "compare your results with.")
    assert judged is not None and judged.low is not None and judged.high is not None
    low, high = judged.low, judged.high
    expected = f"the expected {signed(expected_mean)} per hand"
    if basis == "luck_adjusted":
        where = (f"without {luck}, your 95% interval ({signed(low)} … {signed(high)} per "
                 f"hand)")
    else:
        where = f"your 95% interval ({signed(low)} … {signed(high)} per hand)"
    if low <= expected_mean <= high:
        return Verdict("consistent", f"So far your results are consistent with equilibrium "
                       f"play: {where} holds {expected}.", basis)
    if low > expected_mean:
        return Verdict("better", f"You are doing better than the equilibrium expectation, by "
                       f"more than luck alone would usually explain: {where} lies above "
                       f"{expected}.", basis)
    return Verdict("worse", f"You are doing worse than the equilibrium expectation, by more "
                   f"than luck alone would usually explain: {where} lies below {expected}.",
                   basis)

"""The statistics of a match, as pure functions of the hands' payoffs and seats."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

Z95 = 1.96


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
    """mean ± 1.96 s/√n; None under 2 hands."""


def summarize(payoffs: Sequence[float]) -> Stats:
    n = len(payoffs)
    total = math.fsum(payoffs)
    if n == 0:
        return Stats(0, 0.0, None, None, None, None)
    mean = total / n
    if n < 2:
        return Stats(n, total, mean, None, None, None)
    std = math.sqrt(math.fsum((x - mean) ** 2 for x in payoffs) / (n - 1))
    half = Z95 * std / math.sqrt(n)
    return Stats(n, total, mean, std, mean - half, mean + half)


def seat_value(value: float, seat: int) -> float:
    """Equilibrium expectation of the player in `seat` when `value` is seat 0's."""
    return value if seat == 0 else -value


def expected_total(seats: Sequence[int], value: float) -> float:
    """Equilibrium expectation of a player over hands played in `seats`."""
    return math.fsum(seat_value(value, s) for s in seats)


def cumulative(values: Sequence[float]) -> list[float]:
    out, running = [], 0.0
    for v in values:
        running += v
        out.append(running)
    return out

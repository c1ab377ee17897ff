"""The luck of a hand's opening taken out of the luck-adjusted result, with values learnt over
the match's earlier hands.

Where a value function knows no exact start of a hand (a bot solved in an abstraction, whose
value is only estimated by self-play: `solver.evaluation.values.base.Opening`), the first
decision's value stands in for it and keeps the luck of the deal and of the bot's first
action: for a player who plays by its cards most of what spread is left.  Any
function f of the opening fixed before the hand gives an unbiased control variate:

    estimate - f(opening) + sum over openings o of chance(o) f(o)

has the estimate's expectation, because the openings come with exactly those chances (the
deal, and the bot's strategy).  The closer f is to the estimate's mean given the opening, the
less spread is left; so f is that mean over the earlier hands with the same opening, each
level of the opening's path shrunk towards the level above it (`PRIOR` hands' worth), from the
seat down to the hand's class: an opening seen once says little, its kind of hand (a pair,
suited) more.  Nothing learnt yet, f is zero and so is the change.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from solver.evaluation.values import Opening

__all__ = ["PRIOR", "Learnt", "correction", "learn"]

PRIOR = 1.0
"""How many hands the level above counts for in a level's mean: about the best of 0.5 to 4 for
the simulated tight player's 4,000 hands against the lobby's biggest bot (`experiments/luck.py`,
docs/playing-and-learning.md)."""
SEP = "/"

Learnt = dict[str, list[float]]
"""Per level of an opening's path (``seat 0``, ``seat 0/raise``, ...): the hands seen there
and each estimate's sum over them."""


def correction(learnt: Mapping[str, Sequence[float]], opening: Opening, estimates: int
               ) -> tuple[float, ...]:
    """Per estimate, what the module's control variate adds to it: the expectation of f over
    every opening, less f at this hand's."""
    cache: dict[str, tuple[float, ...]] = {}

    def value(path: str) -> tuple[float, ...]:
        known = cache.get(path)
        if known is not None:
            return known
        head, sep, _ = path.rpartition(SEP)
        above = value(head) if sep else (0.0,) * estimates
        seen = learnt.get(path)
        if seen is None:
            out = above
        else:
            n = seen[0]
            out = tuple((seen[1 + i] + PRIOR * above[i]) / (n + PRIOR) for i in range(estimates))
        cache[path] = out
        return out

    expected = [0.0] * estimates
    for path, chance in opening.chances.items():
        f = value(path)
        for i in range(estimates):
            expected[i] += chance * f[i]
    here = value(opening.path)
    return tuple(expected[i] - here[i] for i in range(estimates))


def learn(learnt: Mapping[str, Sequence[float]], opening: Opening,
          estimates: Sequence[float]) -> Learnt:
    """`learnt` with a hand of `opening` and its `estimates` (before the correction) counted
    at every level of its path."""
    out = {path: list(sums) for path, sums in learnt.items()}
    parts = opening.path.split(SEP)
    for k in range(1, len(parts) + 1):
        sums = out.setdefault(SEP.join(parts[:k]), [0.0] * (1 + len(estimates)))
        sums[0] += 1.0
        for i, e in enumerate(estimates):
            sums[1 + i] += e
    return out

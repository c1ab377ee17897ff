"""The equilibrium's own style figures from a seat: what the stored strategy, playing that seat
against itself (the bot's strategy in the other seat), does in the long run.

A figure is the expected count over the expected opportunities per hand (the limit of the
player's own figure, sum of counts over sum of opportunities). Where the game's tree is small
(at most `EXACT_NODES` positions) both expectations are exact: every deal and every action is
weighted by its probability, the strategy's at decisions and chance's at chance nodes. Where it
is bigger they are estimated from `SIMULATED_HANDS` hands the strategy plays against itself,
sampled with a fixed seed (so a page shows the same figures each time). Computed once per solve
and seat, in this process.
"""

from __future__ import annotations

import math
import random
import threading
from dataclasses import dataclass

from app.services.bot import Bot
from solver.games import Game, State, action_from_label

EXACT_NODES = 30_000
"""Largest tree walked exactly: the small card games' trees are walked, a tree of a few hundred
thousand positions is simulated."""
SIMULATED_HANDS = 2_000
SIMULATED_DECISIONS = 20_000
"""A simulation stops after this many decisions if it has not played its hands by then (a
whole match of rounds is a long hand)."""
SEED = 20_240_601


@dataclass(frozen=True, slots=True)
class SeatStyle:
    """Expected (count, opportunities) per hand of each statistic, from one seat."""

    expected: dict[str, tuple[float, float]]
    exact: bool
    hands: int
    """0 when exact, else the hands simulated."""

    def figure(self, stat: str) -> float | None:
        count, out_of = self.expected.get(stat, (0.0, 0.0))
        return count / out_of if out_of > 0 else None


class _TooBig(Exception):
    pass


_CACHE: dict[tuple[str, int, object], SeatStyle] = {}
_LOCK = threading.Lock()


def equilibrium_style(bot: Bot, game: Game, seat: int, solve_key: object = None
                      ) -> SeatStyle:
    """The equilibrium's figures from `seat` (cached per game, seat and `solve_key`, which
    names the solve: a new solve gets new figures)."""
    key = (game.name, seat, solve_key)
    with _LOCK:
        cached = _CACHE.get(key)
    if cached is not None:
        return cached
    try:
        style = exact_style(bot, game, seat)
    except _TooBig:
        style = simulated_style(bot, game, seat)
    with _LOCK:
        _CACHE[key] = style
    return style


def exact_style(bot: Bot, game: Game, seat: int, limit: int = EXACT_NODES) -> SeatStyle:
    """Walk every position, weighting each end by its probability; `_TooBig` past `limit`."""
    totals: dict[str, list[float]] = {stat.name: [0.0, 0.0] for stat in game.style_stats}
    visited = 0
    stack: list[tuple[State, float]] = [(game.initial_state(), 1.0)]
    while stack:
        state, reach = stack.pop()
        visited += 1
        if visited > limit:
            raise _TooBig
        if state.is_terminal():
            _add(totals, game.style_counts(state, seat), reach)
            continue
        for action, probability in _moves(bot, game, state):
            if probability > 0:
                stack.append((state.apply_action(action), reach * probability))
    return SeatStyle({k: (v[0], v[1]) for k, v in totals.items()}, exact=True, hands=0)


def simulated_style(bot: Bot, game: Game, seat: int, hands: int = SIMULATED_HANDS,
                    seed: int = SEED, decisions: int = SIMULATED_DECISIONS) -> SeatStyle:
    """The mean counts over `hands` hands of the strategy against itself (fewer if they
    take more than `decisions` decisions)."""
    rng = random.Random(seed)
    totals: dict[str, list[float]] = {stat.name: [0.0, 0.0] for stat in game.style_stats}
    played = decided = 0
    while played < hands and decided < decisions:
        state = game.initial_state()
        while not state.is_terminal():
            decided += not state.is_chance()
            state = state.apply_action(_pick(rng, _moves(bot, game, state)))
        _add(totals, game.style_counts(state, seat), 1.0)
        played += 1
    return SeatStyle({k: (v[0] / played, v[1] / played) for k, v in totals.items()},
                     exact=False, hands=played)


def _moves(bot: Bot, game: Game, state: State) -> list[tuple[int, float]]:
    if state.is_chance():
        return list(state.chance_outcomes())
    policy = bot.policy(game, state)
    return [(action_from_label(state, label), p)
            for label, p in zip(policy.labels, policy.probabilities, strict=True)]


def _pick(rng: random.Random, moves: list[tuple[int, float]]) -> int:
    r = rng.random() * math.fsum(p for _, p in moves)
    for action, p in moves:
        r -= p
        if r < 0:
            return action
    return next(a for a, p in reversed(moves) if p > 0)


def _add(totals: dict[str, list[float]], counts: dict[str, tuple[float, float]],
         weight: float) -> None:
    for name, (count, out_of) in counts.items():
        if name in totals:
            totals[name][0] += weight * count
            totals[name][1] += weight * out_of

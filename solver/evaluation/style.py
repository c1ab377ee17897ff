"""A strategy's own style figures from a seat: what it does in the long run, playing that seat
against itself in the other.

A figure is the expected count over the expected opportunities per hand (the limit of a
player's own figure, sum of counts over sum of opportunities). Where the game's tree is small
(at most `EXACT_NODES` positions) both expectations are exact: every deal and every action is
weighted by its probability, the strategy's at decisions and chance's at chance nodes. Where it
is bigger they are estimated from `SIMULATED_HANDS` hands the strategy plays against itself,
sampled with a fixed seed (so that the same solve always gets the same figures).

They are worked out when a solve is built and kept with it (`solver.runs.figures`, the store's
`strategies.figures.STYLE`): the app reads them, it never computes them on a request.

Example::

    from solver.evaluation.style import seat_styles, stored_policy
    from solver.games import get_game
    from strategies import StrategyStore

    with StrategyStore.open() as store:
        game = get_game("kuhn")
        styles = seat_styles(stored_policy(store, game, store.latest_solve("kuhn")), game)
        styles[1].figure("pfr")              # how often seat 1 bets first, about 0.22
"""

from __future__ import annotations

import math
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from solver.abstractions import abstraction_for
from solver.abstractions.play_time import ComputedAtPlayTime
from solver.games import Game, State
from strategies import SolveInfo, StrategyStore
from strategies.figures import STYLE

EXACT_NODES = 30_000
"""Largest tree walked exactly: the small card games' trees are walked, a tree of a few hundred
thousand positions is simulated."""
SIMULATED_HANDS = 2_000
SIMULATED_DECISIONS = 20_000
"""A simulation stops after this many decisions if it has not played its hands by then (a
whole match of rounds is a long hand)."""
SEED = 20_240_601
COMPUTED_HANDS = 200
"""Hands simulated for a strategy computed at play time (a bot that re-solves the river: half a
second of CPU a hand, so 2,000 would add a quarter of an hour to its build); its figures are
rougher (a share within about 7 points, 95% of the time)."""

Policy = Callable[[State], tuple[Sequence[str] | None, Sequence[float]]]
"""The labels of the legal actions of the player to move and their probabilities (labels None:
the probabilities are in the order of ``state.legal_actions()``, which spares a no-limit game
naming thousands of sizes)."""


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

    def to_json(self) -> dict[str, Any]:
        return {"expected": {k: [c, o] for k, (c, o) in self.expected.items()},
                "exact": self.exact, "hands": self.hands}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeatStyle:
        return cls({str(k): (float(c), float(o)) for k, (c, o) in data["expected"].items()},
                   bool(data["exact"]), int(data["hands"]))


class _TooBig(Exception):
    pass


def seat_styles(policy: Policy, game: Game, hands: int = SIMULATED_HANDS
                ) -> tuple[SeatStyle, SeatStyle]:
    """The strategy's figures from seat 0 and from seat 1: exact where the tree is small,
    else from `hands` hands of self-play (the same hands for both seats)."""
    try:
        return exact_style(policy, game, 0), exact_style(policy, game, 1)
    except _TooBig:
        return simulated_styles(policy, game, hands,
                                decisions=SIMULATED_DECISIONS * hands // SIMULATED_HANDS)


def exact_style(policy: Policy, game: Game, seat: int, limit: int = EXACT_NODES) -> SeatStyle:
    """Walk every position, weighting each end by its probability; `_TooBig` if the game has
    more than `limit` positions (found before the policy is asked anything: a policy that
    computes, a re-solving bot, would otherwise be asked at thousands of them first)."""
    if not _fits(game, limit):
        raise _TooBig
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
        for action, probability in _moves(policy, state):
            if probability > 0:
                stack.append((state.apply_action(action), reach * probability))
    return SeatStyle({k: (v[0], v[1]) for k, v in totals.items()}, exact=True, hands=0)


def simulated_style(policy: Policy, game: Game, seat: int, hands: int = SIMULATED_HANDS,
                    seed: int = SEED, decisions: int = SIMULATED_DECISIONS) -> SeatStyle:
    """The mean counts from `seat` over `hands` hands of the strategy against itself (fewer
    if they take more than `decisions` decisions)."""
    return simulated_styles(policy, game, hands, seed, decisions)[seat]


def simulated_styles(policy: Policy, game: Game, hands: int = SIMULATED_HANDS,
                     seed: int = SEED, decisions: int = SIMULATED_DECISIONS
                     ) -> tuple[SeatStyle, SeatStyle]:
    """`simulated_style` of both seats, from the same hands."""
    rng = random.Random(seed)
    totals: list[dict[str, list[float]]] = [
        {stat.name: [0.0, 0.0] for stat in game.style_stats} for _ in range(2)]
    played = decided = 0
    while played < hands and decided < decisions:
        state = game.initial_state()
        while not state.is_terminal():
            decided += not state.is_chance()
            state = state.apply_action(_pick(rng, _moves(policy, state)))
        for seat in (0, 1):
            _add(totals[seat], game.style_counts(state, seat), 1.0)
        played += 1
    first, second = (SeatStyle({k: (v[0] / played, v[1] / played) for k, v in t.items()},
                               exact=False, hands=played) for t in totals)
    return first, second


def stored_policy(store: StrategyStore, game: Game, info: SolveInfo) -> Policy:
    """The strategy of the stored solve `info` of `game` as the app's bot plays it: looked up
    under the abstract key of each position, or computed from the solve's tables where its
    abstraction plays so. `ValueError` where the solve cannot be played."""
    abstraction = abstraction_for(game, info.abstraction)
    if isinstance(abstraction, ComputedAtPlayTime):
        table = store.table_strategy(game.name, info.id)
        if table is None:
            raise ValueError(f"the solve {info.id} of {game.name!r} has no tables")
        computed = abstraction

        def computed_policy(state: State) -> tuple[Sequence[str] | None, Sequence[float]]:
            return None, computed.play_time_policy(state, table)

        return computed_policy

    def looked_up(state: State) -> tuple[Sequence[str] | None, Sequence[float]]:
        key = abstraction.strategy_key(state, state.current_player())
        row = store.infoset(game.name, key, info.id)
        if row is None:
            raise ValueError(f"the solve {info.id} of {game.name!r} has no information set "
                             f"{key!r}")
        return row.labels, row.probabilities

    return looked_up


def _fits(game: Game, limit: int) -> bool:
    """Whether the game has at most `limit` positions (counted until there are more)."""
    stack = [game.initial_state()]
    seen = 0
    while stack:
        state = stack.pop()
        seen += 1
        if seen > limit:
            return False
        if not state.is_terminal():
            stack.extend(state.apply_action(a) for a in state.legal_actions())
    return True


def _moves(policy: Policy, state: State) -> list[tuple[int, float]]:
    if state.is_chance():
        return list(state.chance_outcomes())
    labels, probabilities = policy(state)
    if labels is None:
        return [(a, p) for a, p in zip(state.legal_actions(), probabilities, strict=True)
                if p > 0]
    played = {label: p for label, p in zip(labels, probabilities, strict=True) if p > 0}
    return [(action, played[label]) for action in state.legal_actions()
            if (label := state.action_label(action)) in played]


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


def style_figure(store: StrategyStore, game: Game, info: SolveInfo) -> dict[str, Any]:
    """The figure `strategies.figures.STYLE` of the stored solve `info`: its style from each
    seat, as `read_style` reads it back (from `COMPUTED_HANDS` hands where the strategy is
    computed at play time)."""
    computed = isinstance(abstraction_for(game, info.abstraction), ComputedAtPlayTime)
    styles = seat_styles(stored_policy(store, game, info), game,
                         COMPUTED_HANDS if computed else SIMULATED_HANDS)
    return {"seats": [s.to_json() for s in styles]}


def read_style(figure: Any) -> tuple[SeatStyle, SeatStyle] | None:
    """The seats' figures from a stored `style_figure`; None if it is not one."""
    try:
        first, second = (SeatStyle.from_json(s) for s in figure["seats"])
    except (KeyError, TypeError, ValueError):
        return None
    return first, second


def add_style(store: StrategyStore, game: Game, info: SolveInfo) -> bool:
    """Work out and store the style figures of the solve `info`, if its game has any and it is
    an equilibrium (an exploitable opponent has no style board); whether it did. A solve that
    cannot play the whole game (a test's match of fewer dice) gets none, and says why on
    stderr: the solve itself is kept."""
    if not game.style_stats or info.opponent:
        return False
    try:
        figure = style_figure(store, game, info)
    except ValueError as exc:
        print(f"no style figures for the solve {info.id} of {game.name}: {exc}",
              file=sys.stderr, flush=True)
        return False
    store.save_figures(info.id, {STYLE: figure})
    return True

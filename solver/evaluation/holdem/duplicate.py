"""Duplicate matches and self-play in the real game, in milli-big-blinds per hand with 95%
intervals.

**Duplicate.**  Each sampled deal (both players' hole cards and the whole board, from a seeded
generator) is played twice with the players' seats swapped: the cards stay with the seats, so
each player holds both hands of the deal once, and the luck of the cards cancels to a great
extent.  The estimate of A against B is the mean over deal pairs of A's average winnings in the
two games, and its 95% interval is Student's t over those pairs (which are independent and
identically distributed, whatever the dependence inside a pair).  Each game's actions are
sampled from the policies' probabilities with seeded uniform numbers, and the two games of a
deal use the same numbers seat by seat (the k-th action of the seat holding these cards):
common random numbers.  Each game on its own is still sampled exactly as the policies play, so
the estimate stays unbiased, while the two games move together as far as the policies do: a
policy against itself scores exactly zero on every deal, mixed or not.

**Self-play.**  A policy against itself estimates the value of seat 0, the number a player of
HULHE wants to see and nobody knows exactly.  Every deal is played as dealt and with the two
hands exchanged: both deals are equally likely, so the mean of the pair is still unbiased for
seat 0's value, and the card luck partly cancels.

**Speed.**  The hands move through the betting tree together: every betting position is visited
once with all the hands that reached it, the policy is asked once per distinct board there (one
call for all hands before the flop), and the actions are sampled for the whole group at once.
HULHE's 20,000 deal pairs (80,000 hands) take 10 to 30 s with the baselines on two cores.

Results are in milli-big-blinds per hand: 1000 × chips / the member's big blind (``max`` of
its blinds), the unit of the Annual Computer Poker Competition and of the HULHE literature.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from solver.cards.evaluator import rank_hands
from solver.engine.progress import progress_bar
from solver.evaluation.holdem.luck import check_down, round_equities
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import AnyPolicy, answer
from solver.games.holdem.rules import HoldemRules

CONFIDENCE = 0.95


@dataclass(frozen=True, slots=True)
class Estimate:
    """A sampled mean with its `CONFIDENCE` Student's t interval, ``mean ± half_width``."""

    mean: float
    half_width: float
    samples: int
    std: float

    @classmethod
    def of(cls, samples: NDArray[np.float64], scale: float = 1.0) -> Estimate:
        """The mean of `samples` × `scale` and its t interval (needs two samples or more)."""
        from scipy import stats  # a second to import: not for every `python -m solver`

        x = np.asarray(samples, dtype=np.float64) * scale
        n = len(x)
        if n < 2:
            raise ValueError(f"an interval needs at least two samples, not {n}")
        std = float(x.std(ddof=1))
        t = float(stats.t.ppf(0.5 + CONFIDENCE / 2, n - 1))
        return cls(float(x.mean()), t * std / math.sqrt(n), n, std)

    @property
    def low(self) -> float:
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        return self.mean + self.half_width

    def __str__(self) -> str:
        return f"{self.mean:+.1f} ± {self.half_width:.1f}"


def big_blind(rules: HoldemRules) -> int:
    return max(rules.blinds)


def mbb(rules: HoldemRules) -> float:
    """Chips -> milli-big-blinds."""
    return 1000.0 / big_blind(rules)


@dataclass(frozen=True, slots=True)
class Deals:
    """Sampled deals: ``holes[i, seat]`` the hole cards of `seat` in deal `i`, ``boards[i]``
    the whole board in dealing order, ``values[i, seat]`` the seat's showdown hand value
    (`solver.cards.evaluator`, higher wins)."""

    holes: NDArray[np.int64]
    boards: NDArray[np.int64]
    values: NDArray[np.int64]

    def __len__(self) -> int:
        return len(self.holes)

    def swapped(self) -> Deals:
        """The same deals with the two seats' hands exchanged."""
        return Deals(self.holes[:, ::-1].copy(), self.boards, self.values[:, ::-1].copy())


def deal(rules: HoldemRules, n: int, seed: int) -> Deals:
    """`n` uniformly random deals of `rules` from `seed`."""
    rng = np.random.default_rng(seed)
    k, board = rules.hole_cards, sum(rules.board_cards)
    cards = np.argsort(rng.random((n, rules.num_cards)), axis=1)[:, :2 * k + board]
    holes = cards[:, :2 * k].reshape(n, 2, k)
    boards = cards[:, 2 * k:]
    standard = rules.deck.standard_ids
    values = np.stack([rank_hands(standard[np.concatenate([holes[:, seat], boards], axis=1)])
                       for seat in (0, 1)], axis=1).astype(np.int64)
    return Deals(holes.astype(np.int64), boards.astype(np.int64), values)


def sample_actions(probabilities: NDArray[np.float64], u: NDArray[np.float64],
                   ) -> NDArray[np.int64]:
    """The action of each row drawn by the uniform numbers `u`: the first action whose
    cumulative probability exceeds ``u`` × the row's total, never one of probability zero."""
    cumulative = np.cumsum(probabilities, axis=1)
    below = u[:, None] * cumulative[:, -1:] < cumulative
    chosen = np.argmax(below, axis=1)
    rows = np.arange(len(chosen))
    # Rounding at a boundary (or u = 1): take the last action of positive probability.
    stray = (probabilities[rows, chosen] <= 0.0) | ~below.any(axis=1)
    if stray.any():
        last = (probabilities.shape[1] - 1
                - np.argmax(probabilities[stray][:, ::-1] > 0.0, axis=1))
        chosen[stray] = last
    out: NDArray[np.int64] = chosen.astype(np.int64)
    return out


def checked(policy: AnyPolicy, betting: Betting, board: tuple[int, ...],
            holes: NDArray[np.int64]) -> tuple[tuple[int, ...], NDArray[np.float64]]:
    """`policy`'s actions at `betting` and each hand's probabilities over them
    (`solver.games.holdem.policy.answer`), refused (ValueError naming the policy and the
    betting) unless the actions are distinct legal ones and every row a distribution."""
    actions, rows = answer(policy, betting, board, holes)
    if rows.shape != (len(holes), len(actions)) or len(set(actions)) != len(actions) or not all(
            betting.is_legal(a) for a in actions):
        raise ValueError(f"{policy.name} answered actions {actions[:10]} and shape {rows.shape} "
                         f"for {len(holes)} hands after betting {betting.acpc()!r}; legal "
                         f"actions: {betting.legal_words()}")
    if len(rows) and (rows.min() < 0 or np.abs(rows.sum(axis=1) - 1.0).max() > 1e-6):
        raise ValueError(f"{policy.name} gave probabilities that are not a distribution over "
                         f"the legal actions {betting.legal_words()} after betting "
                         f"{betting.acpc()!r}")
    return actions, rows


def most_decisions(rules: HoldemRules) -> int:
    """A bound on one seat's decisions in a hand: every action of every round, capped (without
    caps, each raise puts in at least a big blind more, so a stack bounds them)."""
    if rules.max_raises:
        return sum(cap + 2 for cap in rules.max_raises)
    stacks = rules.stacks or (0, 0)
    return 2 * rules.num_rounds + max(stacks) // max(1, big_blind(rules)) + 1


def decision_uniforms(rules: HoldemRules, n: int, rng: np.random.Generator,
                      ) -> NDArray[np.float64]:
    """Uniform numbers for `n` hands: ``[i, seat, k]`` draws seat's k-th action in hand i."""
    return rng.random((n, 2, most_decisions(rules)))


def play(game: HoldemGame, seats: Sequence[AnyPolicy], deals: Deals,
         uniforms: NDArray[np.float64], bar: object | None = None) -> NDArray[np.float64]:
    """Seat 0's winnings in chips in each of `deals`, ``seats[p]`` playing seat p, the k-th
    action of seat p in hand i drawn by ``uniforms[i, p, k]`` (`decision_uniforms`).

    The hands walk the betting tree together (see the module docstring); `bar`, a tqdm bar,
    advances by each hand finished."""
    return _play(game, seats, deals, uniforms, bar, None)[0]


def play_adjusted(game: HoldemGame, seats: Sequence[AnyPolicy], deals: Deals,
                  uniforms: NDArray[np.float64], equities: NDArray[np.float64],
                  bar: object | None = None) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """`play`'s winnings, and the same with the luck taken out (`solver.evaluation.holdem.luck`:
    check-down values by `equities`, `round_equities` of the deals): at the deal, at each
    round's cards, and at every action of both seats, whose strategies are known."""
    result, luck = _play(game, seats, deals, uniforms, bar, equities)
    assert luck is not None
    return result, result - luck


def _play(game: HoldemGame, seats: Sequence[AnyPolicy], deals: Deals,
          uniforms: NDArray[np.float64], bar: object | None,
          equities: NDArray[np.float64] | None
          ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    rules = game.definition
    result = np.zeros(len(deals))
    luck = None
    if equities is not None:
        luck = check_down(Betting.start(rules), equities[:, 0])
    taken_so_far = np.zeros((len(deals), 2), dtype=np.int64)
    stack: list[tuple[Betting, NDArray[np.int64]]] = [
        (Betting.start(rules), np.arange(len(deals), dtype=np.int64))]
    while stack:
        betting, hands = stack.pop()
        if betting.over:
            _settle(betting, deals, hands, result)
            if luck is not None and equities is not None:
                _add_runout_luck(betting, hands, equities, luck)
            if bar is not None:
                bar.update(len(hands))  # type: ignore[attr-defined]
            continue
        seat = betting.player
        actions, probabilities = _answers(seats[seat], betting, deals, hands, seat, rules)
        u = uniforms[hands, seat, taken_so_far[hands, seat]]
        taken_so_far[hands, seat] += 1
        chosen = sample_actions(probabilities, u)  # an index into `actions`
        if luck is not None and equities is not None:
            _add_luck(betting, hands, equities, actions, probabilities, chosen, luck)
        for column in reversed(range(len(actions))):
            taken = hands[chosen == column]
            if len(taken):
                stack.append((betting.apply(actions[column]), taken))
    return result, luck


def _answers(policy: AnyPolicy, betting: Betting, deals: Deals, hands: NDArray[np.int64],
             seat: int, rules: HoldemRules) -> tuple[tuple[int, ...], NDArray[np.float64]]:
    """`policy`'s answers for `hands` at `betting`, asked once per distinct board, as one
    table over the union of the actions named (in the order of the legal actions)."""
    dealt = rules.board_dealt(betting.round)
    if dealt == 0:
        return checked(policy, betting, (), deals.holes[hands, seat])
    visible = deals.boards[hands, :dealt]
    keys = visible @ (np.int64(rules.num_cards) ** np.arange(dealt, dtype=np.int64))
    order = np.argsort(keys, kind="stable")
    cuts = np.flatnonzero(np.diff(keys[order])) + 1
    answers = []
    for group in np.split(order, cuts):
        board = tuple(int(c) for c in visible[group[0]])
        answers.append((group, *checked(policy, betting, board, deals.holes[hands[group], seat])))
    named = sorted({a for _, actions, _ in answers for a in actions})
    column = {a: i for i, a in enumerate(named)}
    probabilities = np.zeros((len(hands), len(named)))
    for group, actions, rows in answers:
        probabilities[np.ix_(group, np.array([column[a] for a in actions]))] = rows
    return tuple(named), probabilities


def _add_luck(betting: Betting, hands: NDArray[np.int64], equities: NDArray[np.float64],
              actions: tuple[int, ...], probabilities: NDArray[np.float64],
              chosen: NDArray[np.int64], luck: NDArray[np.float64]) -> None:
    """The luck terms at `betting` for `hands`: its round's cards if it opens a round, then the
    action each hand took less the mean over `actions` at their `probabilities`."""
    r = betting.round
    now = equities[hands, r]
    if r > 0 and not betting.rounds[r]:
        luck[hands] += check_down(betting, now) - check_down(betting, equities[hands, r - 1])
    chances = probabilities / probabilities.sum(axis=1, keepdims=True)
    mean = np.zeros(len(hands))
    taken = np.zeros(len(hands))
    for column, action in enumerate(actions):
        value = check_down(betting.apply(action), now)
        mean += chances[:, column] * value
        taken[chosen == column] = value[chosen == column]
    luck[hands] += taken - mean


def _add_runout_luck(betting: Betting, hands: NDArray[np.int64],
                     equities: NDArray[np.float64], luck: NDArray[np.float64]) -> None:
    """The luck of the board cards dealt after an all-in closed the betting (no decision
    took their luck out): the check-down value on the whole board less the value on the board
    of the last action."""
    if betting.folded >= 0:
        return
    acted = max(r for r, actions in enumerate(betting.rounds) if actions)
    last = len(betting.rounds) - 1
    if acted < last:
        luck[hands] += check_down(betting, equities[hands, last]) - check_down(
            betting, equities[hands, acted])


def _settle(betting: Betting, deals: Deals, hands: NDArray[np.int64],
            result: NDArray[np.float64]) -> None:
    spent0, spent1 = betting.spent
    folded = betting.folded
    if folded >= 0:
        result[hands] = -spent0 if folded == 0 else spent1
        return
    v0, v1 = deals.values[hands, 0], deals.values[hands, 1]
    result[hands] = np.where(v0 > v1, spent1, np.where(v0 < v1, -spent0, 0))


@dataclass(frozen=True, slots=True)
class MatchResult:
    """A duplicate match of `first` against `second`: `first`'s winnings in mbb/hand."""

    first: str
    second: str
    estimate: Estimate
    deals: int
    seconds: float
    adjusted: Estimate
    """The same with the luck taken out (`play_adjusted`)."""

    def as_dict(self) -> dict[str, object]:
        return {"policy": self.first, "opponent": self.second, "mbb_per_hand": self.estimate.mean,
                "ci95": self.estimate.half_width, "deals": self.deals,
                "seconds": round(self.seconds, 2),
                "adjusted_mbb_per_hand": self.adjusted.mean,
                "adjusted_ci95": self.adjusted.half_width}


def _seeds(seed: int, n: int) -> list[np.random.Generator]:
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(n)]


def duplicate_match(game: HoldemGame, first: AnyPolicy, second: AnyPolicy, deals: int,
                    seed: int = 0, progress: bool = False) -> MatchResult:
    """`first` against `second` over `deals` deal pairs (see the module docstring)."""
    started = time.perf_counter()
    rules = game.definition
    dealt = deal(rules, deals, seed)
    streams = _seeds(seed, 3)
    uniforms = decision_uniforms(rules, deals, streams[1])
    equities = round_equities(rules, dealt.holes, dealt.boards, streams[2])
    with progress_bar(total=2 * deals, desc=f"{first.name} v {second.name}", unit="hand",
                      unit_scale=True, disable=not progress, file=sys.stderr,
                      mininterval=0.5) as bar:
        won, adjusted = duplicate_pairs(game, first, second, dealt, uniforms, equities, bar)
    scale = mbb(rules)
    return MatchResult(first.name, second.name, Estimate.of(won, scale), deals,
                       time.perf_counter() - started, Estimate.of(adjusted, scale))


def duplicate_pairs(game: HoldemGame, first: AnyPolicy, second: AnyPolicy, dealt: Deals,
                    uniforms: NDArray[np.float64], equities: NDArray[np.float64],
                    bar: object | None = None, second_first: AnyPolicy | None = None,
                    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """`first`'s mean winnings in chips over each deal pair (`first` in seat 0, then in seat 1
    as `second_first` if given), as won and with the luck taken out (`play_adjusted`)."""
    won0, adjusted0 = play_adjusted(game, (first, second), dealt, uniforms, equities, bar)
    won1, adjusted1 = play_adjusted(game, (second, second_first or first), dealt, uniforms,
                                    equities, bar)
    return (won0 - won1) / 2, (adjusted0 - adjusted1) / 2


@dataclass(frozen=True, slots=True)
class SelfPlay:
    """`policy` against itself: seat 0's value in mbb/hand."""

    policy: str
    estimate: Estimate
    deals: int
    seconds: float

    def as_dict(self) -> dict[str, object]:
        return {"policy": self.policy, "seat0_mbb_per_hand": self.estimate.mean,
                "ci95": self.estimate.half_width, "deals": self.deals,
                "seconds": round(self.seconds, 2)}


def self_play(game: HoldemGame, policy: AnyPolicy, deals: int, seed: int = 0,
              progress: bool = False) -> SelfPlay:
    """Seat 0's value of `policy` against itself, each deal also played with the hands
    exchanged (see the module docstring)."""
    started = time.perf_counter()
    rules = game.definition
    dealt = deal(rules, deals, seed)
    rngs = _seeds(seed, 3)[1:]
    with progress_bar(total=2 * deals, desc=f"{policy.name} self-play", unit="hand",
                      unit_scale=True, disable=not progress, file=sys.stderr,
                      mininterval=0.5) as bar:
        as_dealt = play(game, (policy, policy), dealt, decision_uniforms(rules, deals, rngs[0]),
                        bar)
        exchanged = play(game, (policy, policy), dealt.swapped(),
                         decision_uniforms(rules, deals, rngs[1]), bar)
    estimate = Estimate.of((as_dealt + exchanged) / 2, mbb(rules))
    return SelfPlay(policy.name, estimate, deals, time.perf_counter() - started)

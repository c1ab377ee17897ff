"""The coach: what each of the human's decisions cost, and a result of the hand without the luck.

At a decision at information set I, with the values Q(I, a) of each action and V(I) of the set
(`solver.evaluation.values`: the bot plays its strategy, the human goes on with it too, the
bot's hidden cards or dice weighted by their posterior), taking a costs ``V(I) - Q(I, a)``
against the equilibrium and ``max Q(I, .) - Q(I, a)`` against the best reply to the bot.

The luck-adjusted result is AIVAT's estimate (Burch, Schmid, Moravčík, Morrill & Bowling 2018):
the raw result minus, at every chance event and every action of the bot, what it changed in a
value function W of the position as the human sees it, less what it was expected to change.
The bot's strategy and chance are known, so each of those terms has expectation zero whatever
the human does, and the estimate is unbiased for the human's expected winnings; the closer W is
to the truth, the more luck the terms remove. Written at the human's decisions (the terms
telescope between them), with a segment start S (the start of the hand, or of a round of a
match, before its dice are rolled) it is::

    S_1 + sum over segments k of [W_k(start) - S_k + sum over its decisions of Q_W - V_W]

Two value functions W are used:

* *the equilibrium's*: the human goes on with the bot's strategy. Then W_k(start) = S_k and the
  estimate is the seat's value plus ``Q(I, a) - V(I)`` over the decisions (`Judged.plain`): a
  player who only takes the equilibrium's actions scores exactly the equilibrium value;
* *the human's habits*: the human goes on as it played at the same point of the game in its
  earlier hands of the match (mixed with the bot's strategy while it has few). It removes the
  luck of where the human's own habits lead it as well, which the first cannot know about
  (`HandReview.habitual`). It uses earlier hands only, so W is fixed before the hand is dealt:
  the estimate stays unbiased (a heuristic W fitted to the hand itself would not be).

Both are unbiased; what the results show is a mix of the two whose weight is fixed by the
earlier hands (`app.services.analysis.analyse`).

Where the bot does not play the strategy W assumes (a re-solving bot, valued with its
blueprint), its decisions are not zero-mean steps of W: each segment adds AIVAT's term for them
(`Segment.correction`: over the bot's range, what its actual probabilities change in W), which
makes the sum unbiased again.

Where S_1 is not known exactly (a bot whose value is only estimated by self-play), the value of
the human's first decision stands in for it (its expectation is S_1), and a hand without a
decision of the human counts its raw result. That value keeps the luck of the hand's opening
(the human's cards, the bot's first action); `app.services.analysis.analyse` takes it out afterwards
with a control variate learnt over the earlier hands (`app.services.analysis.openings`).

Against an exploitable bot the reference is the best reply to it instead (`reply_values`): Q(I,
a) is what a then goes on to win with the best reply, V(I) the best of them, and the hand's
result without the luck starts from what the best reply wins in the seat; the identity holds
for any reference (there are no habits then: the estimate is the plain one).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

from app.services.analysis.trace import Trace
from app.services.bots.bot import Policy
from app.services.bots.reply_values import BEST_TIES
from solver.evaluation.values import DecisionValues, Reference, Segment, choices_key
from solver.games import State
from solver.games.base import PotState

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
    """One decision of the human, judged against the bot's strategy."""

    seq: int
    infoset: str
    chosen: str
    policy: Policy
    """The reference's probabilities (the equilibrium's, or the best reply's) and the values
    of every action (`values` is set)."""
    lost_vs_equilibrium: float
    """What the choice gave up against the reference: ``V(I) - Q(I, chosen)``."""
    lost_vs_best_reply: float
    pot: int | None
    accurate: bool
    exact: bool = True
    """False where the values are a sampled estimate."""
    against: Reference = "equilibrium"  # what the decision is judged against

    @property
    def best_reply(self) -> tuple[str, ...]:
        """The actions the best reply to the bot takes here (the best ones, ties all)."""
        values = self.policy.values
        assert values is not None
        best = max(values)
        return tuple(label for label, q in zip(self.policy.labels, values, strict=True)
                     if q >= best - BEST_TIES)


StartFrom = Literal["value", "first_decision", "result"]
"""What a hand's luck-adjusted result starts from: the reference's value for the seat, the
value of the human's first position (where that value is not known exactly: it keeps the luck
of the hand's opening), or the raw result (no decision to judge and no known value)."""


@dataclass(frozen=True, slots=True)
class Parts:
    """A hand's luck-adjusted result in the terms that add up to it, each what it is."""

    start: float
    start_from: StartFrom
    decisions: float
    """What the human's decisions gained (negative: gave up) against the reference: minus
    the sum of their `Judged.lost_vs_equilibrium`."""
    bot: float
    """`HandReview.bot_correction`."""
    opening: float
    """The opening's control variate (`app.services.analysis.openings`), where the start is not
    known."""
    habits: float
    """What the estimates of the human's habits change in the mix
    (`app.services.analysis.analyse`)."""
    reference: Reference = "equilibrium"
    """What the start and the decisions are measured against."""

    @property
    def total(self) -> float:
        return self.start + self.decisions + self.bot + self.opening + self.habits


@dataclass(frozen=True, slots=True)
class HandReview:
    decisions: list[Judged]
    adjusted: float
    """The luck-adjusted result of the hand: the equilibrium's estimate, or what
    `app.services.analysis.analyse` makes of the two."""
    plain: float = 0.0
    """The estimate with the equilibrium's values (the seat's value plus Q - V)."""
    habitual: float = 0.0
    """The estimate with the human's habits (the plain one where there are none)."""
    moves: tuple[tuple[str, str], ...] = field(default=())
    """(habit key, label) of every decision: what the human's habits add up."""
    start: float = 0.0
    """Where `plain` starts from (`StartFrom` says what it is); `plain` is this, plus what
    the decisions gained (minus `lost`), plus `bot_correction`."""
    start_from: StartFrom = "value"
    bot_correction: float = 0.0
    """AIVAT's term for the bot's decisions where it does not play the strategy the values
    assume (`Segment.correction`, summed)."""
    parts: Parts | None = None
    """`adjusted` in its terms (`app.services.analysis.analyse` sets them; None in a record kept
    before they were)."""

    @property
    def lost(self) -> float:
        return sum(d.lost_vs_equilibrium for d in self.decisions)

    @property
    def worst(self) -> Judged | None:
        return max(self.decisions, key=lambda d: d.lost_vs_equilibrium, default=None)

    @property
    def accurate(self) -> int:
        return sum(d.accurate for d in self.decisions)


def judge(trace: Trace, human_seat: int, segments: Sequence[Segment], payoff: float,
          forfeit: str | None = None, against: Reference = "equilibrium") -> HandReview:
    """The human's decisions in `trace` judged with `segments` (its value function's, in
    order), and the hand's luck-adjusted results; `payoff` is the human's raw result. With
    `forfeit` (its label), the hand was given up at the human's last decision, whose value is
    then the payoff (the segments value that decision last). `against` says what the
    segments' values are: the equilibrium's, or the best reply's to an exploitable bot."""
    values, chosen = _played(trace, human_seat, segments, forfeit)
    decisions = []
    taken: list[float] = []
    for (seq, state, label), valued in zip(chosen, values, strict=True):
        q = payoff if label == forfeit and seq == trace.seq else _value_of(valued, label)
        taken.append(q)
        pot = sum(state.contributions()) if isinstance(state, PotState) else None
        lost = valued.value - q
        decisions.append(Judged(
            seq=seq, infoset=state.information_state_key(human_seat), chosen=label,
            policy=Policy(valued.labels, valued.probabilities, valued.values, valued.value),
            lost_vs_equilibrium=lost, lost_vs_best_reply=max(valued.values) - q, pot=pot,
            accurate=lost <= ACCURACY_SHARE * (pot if pot else 1), exact=valued.exact,
            against=against))
    plain = _estimate(segments, taken, payoff, model=False)
    habitual = habits_estimate(trace, human_seat, segments, payoff, forfeit, plain)
    moves = tuple((key, label) for (_, _, label), valued in zip(chosen, values, strict=True)
                  if label != forfeit
                  for key in (choices_key(valued.labels), *valued.habit_keys))
    start, start_from, _, bot = _terms(segments, taken, payoff, model=False)
    return HandReview(decisions, plain, plain, habitual, moves, start, start_from, bot)


def habits_estimate(trace: Trace, human_seat: int, segments: Sequence[Segment], payoff: float,
                    forfeit: str | None, plain: float) -> float:
    """The hand's luck-adjusted result with the habits' values of `segments` (`judge`'s
    arguments); `plain`, the equilibrium's, where the segments were valued without habits."""
    values, chosen = _played(trace, human_seat, segments, forfeit)
    if not (all(d.model_values is not None for d in values) and all(
            (s.start is None) == (s.model_start is None) for s in segments)):
        return plain
    modelled = [payoff if label == forfeit and seq == trace.seq else
                _value_of(valued, label, model=True)
                for (seq, _, label), valued in zip(chosen, values, strict=True)]
    return _estimate(segments, modelled, payoff, model=True)


def _played(trace: Trace, human_seat: int, segments: Sequence[Segment], forfeit: str | None
            ) -> tuple[list[DecisionValues], list[tuple[int, State, str]]]:
    """The human's valued decisions and, in the same order, (seq, state before, label) of
    each move it played (the forfeit last, if any)."""
    values = [d for segment in segments for d in segment.decisions]
    steps = [step for step in trace.steps if step.recorded.actor == human_seat]
    chosen = [(s.recorded.seq, s.before, s.recorded.label) for s in steps]
    if forfeit is not None:
        chosen.append((trace.seq, trace.state, forfeit))
    if len(values) != len(chosen):
        raise ValueError(f"{len(values)} decisions valued, {len(chosen)} played")
    return values, chosen


def _value_of(valued: DecisionValues, label: str, model: bool = False) -> float:
    values = valued.model_values if model else valued.values
    assert values is not None
    return values[valued.labels.index(label)]


def _estimate(segments: Sequence[Segment], taken: Sequence[float], payoff: float,
              model: bool) -> float:
    """The module's formula with the equilibrium's values or the habits' (`model`)."""
    start, _, gains, bot = _terms(segments, taken, payoff, model)
    return start + gains + bot


def _terms(segments: Sequence[Segment], taken: Sequence[float], payoff: float, model: bool
           ) -> tuple[float, StartFrom, float, float]:
    """The module's formula in its parts: where it starts (the segments' starts, or the first
    decision's value standing in for an unknown one, or the raw result of a hand with no
    decision and no known start) and what that is, what the decisions gained (Q - V, summed),
    and the bot's corrections."""
    first = segments[0].start if segments else None
    start_from: StartFrom = "value"
    begin = gains = bot = 0.0
    at = 0
    for k, segment in enumerate(segments):
        start = segment.model_start if model else segment.start
        for valued in segment.decisions:
            value = valued.model_value if model else valued.value
            assert value is not None
            if start is None and at == 0:  # the first decision's value stands in for it
                begin += value
                start_from = "first_decision"
            gains += taken[at] - value
            at += 1
        bot += segment.model_correction if model else segment.correction
        if segment.start is not None and start is not None:
            begin += start - (segment.start if k else 0.0)
    if first is None and at == 0:
        return payoff, "result", 0.0, 0.0
    return begin, start_from, gains, bot

"""The analysis of a finished hand: the coach's figures and the luck-adjusted result, computed once
when the hand ends and kept with it (`hands.analysis`); reading a hand never computes them.

The values come from the value function of the game's solve (`solver.evaluation.values`, one
per solve and process, `Valuers`). Where they take milliseconds (a game solved exactly, read off
its tree) the hand is analysed in the request that finishes it, in the same transaction; where
they take longer (a game solved in an abstraction: the deals or rolls below each decision) the
hand is finished *pending* and analysed after the answer is sent (`analyse_match`, which the
routes hand to FastAPI's background tasks): its result says "being analysed" until then. A
match's hands are analysed in order, each with what the earlier ones left in the match's
analysis state:

* the player's habits (`solver.evaluation.values.Habits`), so that each hand's luck-adjusted
  result can use the habits of the hands before it (`app.services.analysis.coach`);
* the moments of its three estimates so far (the equilibrium's, and the habits' with their
  model started from the bot's strategy and from the player's own choices:
  `solver.evaluation.values.base.habit_start`), from which the weights of the three in the
  next hand's result are those that would have minimised the spread of the earlier hands
  (each estimate's expectation is the player's, so any weights summing to one keep it; they
  are fixed before the hand: the result stays unbiased);
* where the values know no exact start of the hand (a bot solved in an abstraction), each
  estimate's mean over the earlier hands per opening (the player's cards and the bot's first
  action), whose control variate takes the opening's luck out of the next hands' estimates
  (`app.services.analysis.openings`).
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from app.core.errors import StrategyUnavailableError
from app.db import analysis_store, hand_store
from app.db.engine import write_lock
from app.db.hand_store import Finish, HandRow
from app.db.player_totals import StyleRows
from app.services.analysis import coach, openings
from app.services.analysis.trace import Trace
from app.services.bots.bot import Policy
from app.services.bots.valuers import Valuers
from solver.evaluation.values import HandValuer, Opening, Segment, UnreadableHand
from solver.games import get_game

log = logging.getLogger("app.analysis")

FORFEIT = "forfeit"
"""The label of a decision given up as a forfeit (its value is its payoff)."""
WARM_UP = 20
"""Hands before the habits' estimate gets any weight (their moments say too little before)."""
RECORD_VERSION = 1


ESTIMATES = 3
"""The equilibrium's estimate, and the habits' from either start of their model (the bot's
strategy, the player's choices: `solver.evaluation.values.base.habit_start`)."""
PAIRS = [(i, j) for i in range(ESTIMATES) for j in range(i, ESTIMATES)]
"""Where each product sum sits in `MatchState.moments`, after n and the sums."""


@dataclass
class MatchState:
    """What a match's analysis carries from hand to hand (see the module doc)."""

    habits: dict[str, dict[str, float]] = field(default_factory=dict)
    moments: list[float] = field(default_factory=lambda: [0.0] * (1 + ESTIMATES + len(PAIRS)))
    """n, the sums of each estimate over the hands, and the sums of their products (`PAIRS`)."""
    by_opening: openings.Learnt = field(default_factory=dict)
    """The estimates' sums per opening (`app.services.analysis.openings`), where hands have one."""

    @classmethod
    def from_json(cls, data: dict[str, Any] | None) -> MatchState:
        if not data:
            return cls()
        moments = list(data.get("moments", []))
        fresh = cls().moments
        # A state kept before the third estimate restarts its warm-up; its habits stay.
        return cls({k: dict(v) for k, v in data.get("habits", {}).items()},
                   moments if len(moments) == len(fresh) else fresh,
                   {k: list(v) for k, v in data.get("openings", {}).items()})

    def to_json(self) -> dict[str, Any]:
        return {"habits": self.habits, "moments": self.moments, "openings": self.by_opening}

    def weights(self) -> tuple[float, ...]:
        """The estimates' weights (summing to 1, none negative) of least variance over the
        hands so far; the equilibrium's alone before `WARM_UP` hands."""
        n = self.moments[0]
        alone = tuple(float(i == 0) for i in range(ESTIMATES))
        if n < WARM_UP:
            return alone
        mean = np.array(self.moments[1:1 + ESTIMATES]) / n
        products = self.moments[1 + ESTIMATES:]
        cov = np.empty((ESTIMATES, ESTIMATES))
        for (i, j), total in zip(PAIRS, products, strict=True):
            cov[i, j] = cov[j, i] = total / n - mean[i] * mean[j]
        best = min(_candidates(cov), key=lambda w: (float(w @ cov @ w), -w[0]))
        return tuple(float(w) for w in best)

    def after(self, review: coach.HandReview, estimates: tuple[float, ...],
              opening: Opening | None = None, before: tuple[float, ...] = ()) -> MatchState:
        """The state with the hand of `review` counted: its moves, its `estimates` (as the
        result used them) and, if it had an `opening`, its estimates `before` that opening's
        correction."""
        habits = {k: dict(v) for k, v in self.habits.items()}
        for key, label in review.moves:
            counts = habits.setdefault(key, {})
            counts[label] = counts.get(label, 0.0) + 1.0
        n, *rest = self.moments
        sums = [a + e for a, e in zip(rest[:ESTIMATES], estimates, strict=True)]
        products = [a + estimates[i] * estimates[j]
                    for a, (i, j) in zip(rest[ESTIMATES:], PAIRS, strict=True)]
        learnt = (self.by_opening if opening is None else
                  openings.learn(self.by_opening, opening, before or estimates))
        return MatchState(habits, [n + 1, *sums, *products], learnt)


def _candidates(cov: np.ndarray) -> list[np.ndarray]:
    """Weights on the simplex that may have the least variance ``w' cov w``: each estimate
    alone, the best mix of each pair, and of all three where none of its weights is negative
    (the least one lies on one of these faces)."""
    k = len(cov)
    out = [np.eye(k)[i] for i in range(k)]
    for i in range(k):
        for j in range(i + 1, k):
            spread = cov[i, i] + cov[j, j] - 2 * cov[i, j]
            if spread > 1e-12:
                w = np.zeros(k)
                w[j] = min(1.0, max(0.0, (cov[i, i] - cov[i, j]) / spread))
                w[i] = 1.0 - w[j]
                out.append(w)
    try:
        inverse = np.linalg.solve(cov, np.ones(k))
    except np.linalg.LinAlgError:
        return out
    if inverse.sum() > 1e-12 and np.all(inverse >= 0.0):
        out.append(inverse / inverse.sum())
    return out


@dataclass(frozen=True, slots=True)
class Analysis:
    review: coach.HandReview
    record: dict[str, Any]
    state: MatchState


def analyse(valuer: HandValuer, trace: Trace, seat: int, payoff: float, state: MatchState,
            *, forfeit: bool = False, seed: int = 0,
            segments: list[Segment] | None = None,
            choice_segments: list[Segment] | None = None) -> Analysis:
    """The hand of `trace` analysed for the player in `seat` (see the module doc).  `segments`
    and `choice_segments`: the hand's values if the caller computed them already, both or
    neither (the valuer's `both_starts` with ``state.habits`` and `seed`;
    `experiments/luck.py` reads them too)."""
    if (segments is None) != (choice_segments is None):
        raise ValueError("give both segments and choice_segments, or neither")
    if segments is None or choice_segments is None:
        segments, choice_segments = valuer.both_starts(trace.state, seat, state.habits, seed)
    gave_up = FORFEIT if forfeit else None
    judged = coach.judge(trace, seat, segments, payoff, gave_up, valuer.reference)
    from_choices_estimate = coach.habits_estimate(trace, seat, choice_segments, payoff, gave_up,
                                                  judged.plain)
    before = (judged.plain, judged.habitual, from_choices_estimate)
    opening = segments[0].opening if segments else None
    change = ((0.0,) * ESTIMATES if opening is None else
              openings.correction(state.by_opening, opening, ESTIMATES))
    estimates = tuple(e + c for e, c in zip(before, change, strict=True))
    weights = state.weights()
    adjusted = sum(w * e for w, e in zip(weights, estimates, strict=True))
    parts = coach.Parts(judged.start, judged.start_from, -judged.lost, judged.bot_correction,
                        change[0], adjusted - estimates[0], valuer.reference)
    review = replace(judged, plain=estimates[0], habitual=estimates[1], adjusted=adjusted,
                     parts=parts)
    record = {"version": RECORD_VERSION, "adjusted": review.adjusted, "plain": review.plain,
              "habits": review.habitual, "habits_from_choices": estimates[2],
              "weights": list(weights),
              "decisions": [_decision_record(d) for d in review.decisions],
              "parts": {"start": parts.start, "start_from": parts.start_from,
                        "decisions": parts.decisions, "bot": parts.bot,
                        "opening": parts.opening, "habits": parts.habits,
                        "reference": parts.reference}}
    if opening is not None:
        record["opening"] = {"path": opening.path, "change": list(change)}
    return Analysis(review, record, state.after(review, estimates, opening, before))


def _decision_record(d: coach.Judged) -> dict[str, Any]:
    p = d.policy
    assert p.values is not None and p.value is not None
    return {"seq": d.seq, "infoset": d.infoset, "chosen": d.chosen, "labels": list(p.labels),
            "probabilities": list(p.probabilities), "values": list(p.values), "value": p.value,
            "taken": p.value - d.lost_vs_equilibrium, "pot": d.pot, "exact": d.exact,
            "against": d.against}


def review_of(record: dict[str, Any] | None) -> coach.HandReview | None:
    """The kept analysis of a hand as the coach's review (None if it has none)."""
    if not record or record.get("version") != RECORD_VERSION:
        return None
    decisions = []
    for d in record["decisions"]:
        taken, value, pot = float(d["taken"]), float(d["value"]), d["pot"]
        lost = value - taken
        decisions.append(coach.Judged(
            seq=int(d["seq"]), infoset=d["infoset"], chosen=d["chosen"],
            policy=Policy(tuple(d["labels"]), tuple(d["probabilities"]), tuple(d["values"]),
                          value),
            lost_vs_equilibrium=lost, lost_vs_best_reply=max(d["values"]) - taken, pot=pot,
            accurate=lost <= coach.ACCURACY_SHARE * (pot if pot else 1),
            exact=bool(d["exact"]),
            against="best_reply" if d.get("against") == "best_reply" else "equilibrium"))
    kept = record.get("parts")
    parts = coach.Parts(
        float(kept["start"]), kept["start_from"], float(kept["decisions"]), float(kept["bot"]),
        float(kept["opening"]), float(kept["habits"]),
        "best_reply" if kept.get("reference") == "best_reply" else "equilibrium") if kept else None
    return coach.HandReview(decisions, float(record["adjusted"]), float(record["plain"]),
                            habitual=float(record["habits"]), parts=parts)


def analysed(review: coach.HandReview, record: dict[str, Any]) -> analysis_store.Analysed:
    worst = review.worst
    return analysis_store.Analysed(
        record, adjusted=review.adjusted, ev_lost=review.lost,
        worst_loss=worst.lost_vs_equilibrium if worst is not None else None,
        worst_seq=worst.seq if worst is not None else None,
        decisions=len(review.decisions), accurate=review.accurate)


# ---- when a hand ends ----------------------------------------------------------------------


def finish(session: Session, valuers: Valuers | None, trace: Trace, hand: HandRow,
           payoff: float, *, forfeit: bool = False, style: StyleRows = ()) -> Finish:
    """The end of `hand`, to be written with its last actions: analysed here where that takes
    milliseconds and no earlier hand of the match waits for its analysis (`Valuers.at_once`:
    nothing is built or waited for here), else pending (or not analysed at all, where the
    bot has no value functions)."""
    game, opponent = trace.game, hand.match.opponent
    if valuers is None:
        return Finish(payoff, style=style, forfeit=forfeit)
    connection = session.connection()
    if analysis_store.pending_count(connection, hand.match.id):
        return Finish(payoff, style=style, forfeit=forfeit, pending=True)
    version, data = analysis_store.state_of(connection, hand.match.id)
    with valuers.at_once(game, opponent) as valuer:
        if valuer is None:  # slow, or busy: after the answer (no value function: none then)
            return Finish(payoff, style=style, forfeit=forfeit, pending=True)
        try:
            result = analyse(valuer, trace, hand.human_seat, payoff,
                             MatchState.from_json(data), forfeit=forfeit)
        except StrategyUnavailableError:  # the opponent's solve is gone: counted raw
            return Finish(payoff, style=style, forfeit=forfeit)
    kept = analysed(result.review, result.record)
    return Finish(payoff, adjusted=kept.adjusted, ev_lost=kept.ev_lost,
                  worst_loss=kept.worst_loss, worst_seq=kept.worst_seq,
                  decisions=kept.decisions, accurate=kept.accurate, style=style,
                  forfeit=forfeit, analysis=result.record,
                  state=(version, result.state.to_json()))


# ---- off the request path --------------------------------------------------------------------

_IN_FLIGHT: set[int] = set()
_IN_FLIGHT_LOCK = threading.Lock()


def analyse_match(sessions: sessionmaker[Session], valuers: Valuers, match_id: str) -> int:
    """Analyse the pending hands of the match `match_id` (its public id), earliest first,
    each in a transaction of its own; how many. Does nothing if this process is at it already
    (another process racing it writes each hand once: see `analysis_store`). Run after the
    answer is sent (FastAPI's background tasks)."""
    with sessions() as session:
        match = hand_store.find_match(session, match_id).id
    with _IN_FLIGHT_LOCK:
        if match in _IN_FLIGHT:
            return 0
        _IN_FLIGHT.add(match)
    try:
        done = 0
        while _analyse_next(sessions, valuers, match):
            done += 1
        return done
    except (SQLAlchemyError, StrategyUnavailableError) as exc:
        log.warning("analysing match %s stopped: %s", match_id, exc)
        return 0
    finally:
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.discard(match)


def _analyse_next(sessions: sessionmaker[Session], valuers: Valuers, match_id: int) -> bool:
    with sessions() as session:
        connection = session.connection()
        hand = analysis_store.first_pending(connection, match_id)
        if hand is None:
            return False
        name, opponent = analysis_store.game_of(connection, match_id)
        game = get_game(name)
        trace = Trace.replay(game, hand_store.recorded(session, hand_store.find_hand(
            session, hand.public_id)))
        version, data = analysis_store.state_of(connection, match_id)
        state: tuple[int, dict[str, Any]] | None = None
        with valuers.using(game, opponent) as valuer:
            result = None
            if valuer is not None:
                try:
                    result = analyse(valuer, trace, hand.human_seat, hand.human_payoff,
                                     MatchState.from_json(data), forfeit=hand.forfeited,
                                     seed=hand.id)
                except UnreadableHand as exc:  # counted raw, as without a value function
                    log.info("hand %s not analysed: %s", hand.public_id, exc)
            outcome = (analysis_store.Analysed(None) if result is None else
                       analysed(result.review, result.record))
            if result is not None:
                state = (version, result.state.to_json())
        session.rollback()  # end the reading transaction before taking the writer's lock
        with write_lock(session):
            if not analysis_store.write(session.connection(), match_id, hand, outcome, state):
                session.rollback()
                return False
            session.commit()
        return True

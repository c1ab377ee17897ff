"""Matches and hands against the bot: pure functions over a Session, the strategies and an rng.

Every action (chance outcomes included) is committed, so the state of a hand is always
``play(game, its action ids)``: a restart mid-hand resumes where it stopped. The bot answers at
once: after a hand starts and after each human action, chance nodes are sampled and the bot
samples its move from the stored equilibrium strategy of its information set, until it is the
human's turn or the hand is over; the human's action and these replies are committed together,
in one transaction guarded by the hand's ``version`` (see :func:`act`).
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import math
import random
import secrets
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal, cast

from sqlalchemy import Table, bindparam, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session, joinedload
from sqlalchemy.orm.attributes import set_committed_value

from app.db import write_lock
from app.models import FINISHED, IN_PROGRESS, Action, Hand, Match, new_public_id, utcnow
from app.schemas import (
    ActionProbability,
    BotDecision,
    HandOutcome,
    HandSummary,
    HandView,
    MatchCreated,
    MatchResults,
    MatchSummary,
    SeriesPoint,
)
from app.services import results
from app.services.catalog import game_or_404
from app.services.errors import (
    AuthenticationError,
    ConflictError,
    HandBusyError,
    HandInProgressError,
    IllegalActionError,
    NotFoundError,
    PermissionDeniedError,
    StaleHandError,
    StrategyUnavailableError,
)
from app.services.strategy_source import BUILD_HINT, StrategySource
from app.services.views import event_for, public_state, replay_steps
from solver.games import CHANCE, State, action_from_label, get_game, legal_labels, play

log = logging.getLogger("app.play")

_SYSTEM_RANDOM = secrets.SystemRandom()
"""Dealing uses the OS's secure randomness unless a caller injects its own rng."""


def system_rng() -> random.Random:
    return _SYSTEM_RANDOM


def human_seat_for(number: int) -> int:
    """Seats alternate: hand 1 the human is seat 0 (first to act), hand 2 seat 1, ..."""
    return (number - 1) % 2


# ---- matches -------------------------------------------------------------------------------


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def create_match(
    session: Session, source: StrategySource, game: str, owner: str | None = None
) -> tuple[Match, str]:
    """A new match of `game` (404 if unknown, 503 if unsolved) and its bearer token, which is
    returned only here (the database keeps its SHA-256). `owner` ties it to a browser session."""
    game_or_404(game)
    source.require(game)
    token = secrets.token_urlsafe(32)
    match = Match(game=game, owner=owner, token_hash=hash_token(token))
    session.add(match)
    with write_lock(session):
        session.commit()
    return match, token


def match_created(match: Match, token: str) -> MatchCreated:
    return MatchCreated(match_id=match.public_id, game=match.game, token=token,
                        created=match.created)


# The statements of the hot paths, built once: building and hashing a statement on every call
# costs more than running it on SQLite.
_SELECT_MATCH = select(Match).where(Match.public_id == bindparam("public_id"))
_SELECT_HAND = (select(Hand).where(Hand.public_id == bindparam("public_id"))
                .options(joinedload(Hand.match)))
_HANDS = cast(Table, Hand.__table__)
_SELECT_LAST_HAND = (select(_HANDS.c.public_id, _HANDS.c.number, _HANDS.c.status)
                     .where(_HANDS.c.match_id == bindparam("match_id"))
                     .order_by(_HANDS.c.number.desc()).limit(1))
_INSERT_HAND = _HANDS.insert()
_NEW_HAND_COLUMNS = tuple(c.key for c in _HANDS.c if c.key != "id")
_ACTIONS = cast(Table, Action.__table__)
_SELECT_ACTIONS = (
    select(_ACTIONS.c.seq, _ACTIONS.c.actor, _ACTIONS.c.action, _ACTIONS.c.label,
           _ACTIONS.c.probabilities)
    .where(_ACTIONS.c.hand_id == bindparam("hand_id"))
    .order_by(_ACTIONS.c.seq)
)
_HAND_STATE = ("status", "human_payoff", "finished", "version")
_SELECT_HAND_STATE = (select(*(_HANDS.c[name] for name in _HAND_STATE))
                      .where(_HANDS.c.id == bindparam("hand_id")))
_INSERT_ACTIONS = _ACTIONS.insert()
_GUARD = (_HANDS.c.id == bindparam("hand_id")) & (_HANDS.c.version == bindparam("read"))
_BUMP = update(_HANDS).where(_GUARD).values(version=bindparam("new_version"))
_BUMP_AND_FINISH = update(_HANDS).where(_GUARD).values(
    version=bindparam("new_version"), status=bindparam("new_status"),
    human_payoff=bindparam("new_human_payoff"), finished=bindparam("new_finished"))


def get_match(session: Session, match_id: str) -> Match:
    match = session.scalars(_SELECT_MATCH, {"public_id": match_id}).first()
    if match is None:
        raise NotFoundError(f"no match {match_id!r}")
    return match


def get_hand(session: Session, hand_id: str) -> Hand:
    hand = session.scalars(_SELECT_HAND, {"public_id": hand_id}).first()
    if hand is None:
        raise NotFoundError(f"no hand {hand_id!r}")
    return hand


def require_token(token: str | None) -> str:
    """The bearer token; 401 without one, before any lookup, so that a request without a token
    learns nothing about what exists."""
    if not token:
        raise AuthenticationError(
            "this endpoint needs the match's token: send 'Authorization: Bearer <token>' "
            "with the token returned by POST /api/v1/matches"
        )
    return token


def check_token(match: Match, token: str | None) -> None:
    """401 without a token, 403 with one that is not this match's."""
    if not hmac.compare_digest(hash_token(require_token(token)), match.token_hash):
        raise PermissionDeniedError("the token does not open this match")


def match_for_token(session: Session, match_id: str, token: str) -> Match:
    """The match `match_id` if `token` opens it: 404 if there is no such match, 403 if not."""
    match = get_match(session, match_id)
    check_token(match, token)
    return match


def hand_for_token(session: Session, hand_id: str, token: str) -> Hand:
    """The hand `hand_id` if `token` opens its match: 404 if there is no such hand, 403 if not."""
    hand = get_hand(session, hand_id)
    check_token(hand.match, token)
    return hand


def check_owner(match: Match, owner: str | None) -> None:
    """403 unless the browser session `owner` created the match."""
    if owner is None or match.owner is None or not hmac.compare_digest(owner, match.owner):
        raise PermissionDeniedError("this match belongs to another player")


def list_matches(session: Session, owner: str) -> list[MatchSummary]:
    """The matches of a browser session, newest first."""
    matches = session.scalars(
        select(Match).where(Match.owner == owner).order_by(Match.created.desc(), Match.id.desc())
    ).all()
    out = []
    for match in matches:
        current = _current(match)
        out.append(
            MatchSummary(
                match_id=match.public_id,
                game=match.game,
                created=match.created,
                hands=len(match.hands),
                current_hand_id=current.public_id if current is not None else None,
            )
        )
    return out


def _current(match: Match) -> Hand | None:
    last = match.hands[-1] if match.hands else None
    return last if last is not None and last.status == IN_PROGRESS else None


def current_hand(session: Session, match: Match) -> Hand | None:
    """The hand of `match` still being played, if any."""
    session.refresh(match, ["hands"])
    return _current(match)


def match_results(session: Session, source: StrategySource, match: Match) -> MatchResults:
    """Winnings so far, their spread and what equilibrium play would expect for these seats."""
    session.refresh(match, ["hands"])
    hands = list(match.hands)
    finished = [h for h in hands if h.status == FINISHED and h.human_payoff is not None]
    payoffs = [float(h.human_payoff or 0.0) for h in finished]
    stats = results.summarize(payoffs)
    value = _game_value(source, match.game)
    cumulative = results.cumulative(payoffs)
    expected = (
        results.cumulative([results.seat_value(value, h.human_seat) for h in finished])
        if value is not None
        else None
    )
    current = _current(match)
    return MatchResults(
        match_id=match.public_id,
        game=match.game,
        created=match.created,
        hands_played=stats.n,
        total=stats.total,
        mean=stats.mean,
        std=stats.std,
        ci95_low=stats.ci95_low,
        ci95_high=stats.ci95_high,
        game_value=value,
        expected_total=(
            results.expected_total([h.human_seat for h in finished], value)
            if value is not None
            else None
        ),
        series=[
            SeriesPoint(
                number=h.number,
                payoff=payoffs[i],
                cumulative=cumulative[i],
                expected_cumulative=expected[i] if expected is not None else None,
            )
            for i, h in enumerate(finished)
        ],
        hands=[_hand_summary(h) for h in reversed(hands)],
        current_hand_id=current.public_id if current is not None else None,
    )


def _game_value(source: StrategySource, game: str) -> float | None:
    """Seat 0's value from the stored solve; the published value if the store is unavailable."""
    try:
        info = source.latest_solve(game)
    except StrategyUnavailableError:
        info = None
    return info.value if info is not None else get_game(game).reference_value


def _hand_summary(hand: Hand) -> HandSummary:
    return HandSummary(
        hand_id=hand.public_id,
        number=hand.number,
        human_seat=hand.human_seat,
        status=hand.status,  # type: ignore[arg-type]
        human_payoff=hand.human_payoff,
        created=hand.created,
        finished=hand.finished,
    )


# ---- hands ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Recorded:
    """One action of a hand as stored (the ``actions`` table's row)."""

    seq: int
    actor: int
    action: int
    label: str
    probabilities: dict[str, float] | None


def _recorded(session: Session, hand: Hand) -> list[Recorded]:
    """The hand's actions, read afresh (they are written with plain INSERTs)."""
    rows = session.connection().execute(_SELECT_ACTIONS, {"hand_id": hand.id})
    return [Recorded(*row) for row in rows]


def start_hand(
    session: Session,
    source: StrategySource,
    match: Match,
    rng: random.Random | None = None,
    hint: bool = False,
) -> HandView:
    """Deal the next hand of `match` and play until the human's turn (or the end).

    409 if the previous hand is unfinished, 503 if the game has no solved strategy."""
    source.require(match.game)
    number = 1
    last = session.connection().execute(_SELECT_LAST_HAND, {"match_id": match.id}).first()
    if last is not None:
        if last.status == IN_PROGRESS:
            raise HandInProgressError(
                f"hand {last.public_id} (number {last.number}) of this match is still in "
                "progress; finish it before starting a new one",
                last.public_id,
            )
        number = last.number + 1
    # Written with a plain INSERT, not the ORM's unit of work (the hot path again): `hand`
    # stays a transient object that carries the values for the view.
    hand = Hand(public_id=new_public_id(), match_id=match.id, number=number,
                human_seat=human_seat_for(number), status=IN_PROGRESS, human_payoff=None,
                created=utcnow(), finished=None, version=0)
    set_committed_value(hand, "match", match)
    actions: list[Recorded] = []
    state, failure = _simulate(source, hand, actions, get_game(match.game).initial_state(), rng)
    if state.is_terminal():
        _finish(hand, state)
    # The hand and its deal in one transaction: the unique (match, number) index turns a
    # second "next hand" at the same time into a 409.
    with write_lock(session), _conflicts_as_409(
            session, "another hand of this match was started at the same time"):
        inserted = session.connection().execute(
            _INSERT_HAND, {key: getattr(hand, key) for key in _NEW_HAND_COLUMNS})
        set_committed_value(hand, "id", (inserted.inserted_primary_key or (None,))[0])
        _insert(session, hand, actions)
        session.commit()
    if failure is not None:
        raise failure
    return _view(source, hand, actions, since=0, hint=hint)


def act(
    session: Session,
    source: StrategySource,
    hand: Hand,
    label: str,
    rng: random.Random | None = None,
    hint: bool = False,
    expected_seq: int | None = None,
) -> HandView:
    """Play the human's action `label` and the bot's replies, all in one transaction.

    `expected_seq` is the ``seq`` of the view the action was chosen on; if the hand has changed
    since (a double click, two tabs, a retry) nothing is played: 409 (`StaleHandError`).
    Without it, an action that arrives while another one on the same hand is being played is
    refused with a 409 (`HandBusyError`): within the process by a per-hand claim that never
    waits, across processes by the conditional ``UPDATE`` of ``hands.version``.

    409 (`IllegalActionError`, carrying the legal labels) if the hand is over, it is not the
    human's turn or the label is not legal here; 503 if the bot has no strategy."""
    with _claim(hand):
        _refresh(session, hand)
        return _act_claimed(session, source, hand, label, rng, hint, expected_seq)


def _act_claimed(
    session: Session,
    source: StrategySource,
    hand: Hand,
    label: str,
    rng: random.Random | None,
    hint: bool,
    expected_seq: int | None,
) -> HandView:
    version = hand.version
    actions = _recorded(session, hand)
    state = _replay(hand, actions)
    if expected_seq is not None and expected_seq != len(actions):
        legal = (legal_labels(state) if not state.is_terminal()
                 and state.current_player() == hand.human_seat else [])
        now = ("it is over" if state.is_terminal() else
               f"your legal actions now: {', '.join(legal)}" if legal else "it is not your turn")
        raise StaleHandError(
            f"hand {hand.public_id} has changed since the view this action was chosen on "
            f"(seq {expected_seq}, now {len(actions)}): a double click, another tab or a retry? "
            f"The action was not played; look at the hand again ({now})",
            legal,
            len(actions),
        )
    if hand.status == FINISHED or state.is_terminal():
        if hand.status != FINISHED:
            _save(session, hand, version, [], state)  # record the end it missed
        raise IllegalActionError(
            f"hand {hand.public_id} is finished; start the next hand with "
            f"POST /api/v1/matches/{hand.match.public_id}/hands",
            [],
        )
    if state.current_player() != hand.human_seat:
        # Only after an interruption (a failed store) between your move and the bot's: the bot
        # moves now, and you see its move before acting.
        since = len(actions)
        state, failure = _simulate(source, hand, actions, state, rng)
        _save(session, hand, version, actions[since:], state)
        if failure is not None:
            raise failure
        legal = legal_labels(state) if state.current_player() == hand.human_seat else []
        raise IllegalActionError(
            "it was not your turn: the bot has just moved; look at the hand again and choose "
            f"among the legal actions: {', '.join(legal) or 'none (the hand is over)'}",
            legal,
        )
    try:
        action = action_from_label(state, label)
    except ValueError:
        legal = legal_labels(state)
        raise IllegalActionError(
            f"illegal action {label!r}; legal actions: {', '.join(legal)}", legal
        ) from None
    since = len(actions)
    actions.append(Recorded(since, hand.human_seat, action, state.action_label(action), None))
    state, failure = _simulate(source, hand, actions, state.apply_action(action), rng)
    # Your action is kept even if the bot could not answer (503): it answers once it can.
    _save(session, hand, version, actions[since:], state)
    if failure is not None:
        raise failure
    return _view(source, hand, actions, since=since, hint=hint)


def hand_view(
    session: Session,
    source: StrategySource,
    hand: Hand,
    hint: bool = False,
    rng: random.Random | None = None,
) -> HandView:
    """The hand as the human sees it. If an interruption left the bot (or chance) to move,
    it moves now, so that a hand always resumes."""
    actions = _recorded(session, hand)
    since = len(actions)
    if hand.status == IN_PROGRESS:
        state = _replay(hand, actions)
        if state.is_terminal() or state.current_player() != hand.human_seat:
            try:
                with _claim(hand):
                    _refresh(session, hand)
                    version = hand.version
                    actions = _recorded(session, hand)
                    since = len(actions)
                    if hand.status == IN_PROGRESS:
                        state, failure = _simulate(
                            source, hand, actions, _replay(hand, actions), rng)
                        _save(session, hand, version, actions[since:], state)
                        if failure is not None:
                            raise failure
            except HandBusyError:
                # Another request is moving for the bot right now: show what is committed.
                _refresh(session, hand)
                actions = _recorded(session, hand)
                since = len(actions)
    return _view(source, hand, actions, since=since, hint=hint)


def _replay(hand: Hand, actions: Sequence[Recorded]) -> State:
    return play(get_game(hand.match.game), [a.action for a in actions])


# ---- writing a hand --------------------------------------------------------------------------


_IN_FLIGHT: set[str] = set()
"""Public ids of the hands a request of this process is writing (unique across databases)."""
_IN_FLIGHT_LOCK = threading.Lock()


@contextmanager
def _claim(hand: Hand) -> Iterator[None]:
    """Claim `hand` for this request within the process, without waiting: `HandBusyError` if
    another request of this process holds it (a double click lands here)."""
    with _IN_FLIGHT_LOCK:
        if hand.public_id in _IN_FLIGHT:
            raise HandBusyError(_BUSY)
        _IN_FLIGHT.add(hand.public_id)
    try:
        yield
    finally:
        with _IN_FLIGHT_LOCK:
            _IN_FLIGHT.discard(hand.public_id)


_BUSY = ("another action on this hand is being played at this moment (a double click, another "
         "tab or a retry?); this one was not played: look at the hand again")


def _refresh(session: Session, hand: Hand) -> None:
    """Read the hand's row again (another request may have written it)."""
    row = session.connection().execute(_SELECT_HAND_STATE, {"hand_id": hand.id}).one()
    for name, value in zip(_HAND_STATE, row, strict=True):
        set_committed_value(hand, name, value)


@contextmanager
def _conflicts_as_409(session: Session, conflict: str) -> Iterator[None]:
    """A write that lost a race with another request (a duplicate hand number or action seq,
    or SQLite's writer lock) is rolled back and reported as a `ConflictError`."""
    try:
        yield
    except (IntegrityError, OperationalError) as exc:
        session.rollback()
        if isinstance(exc, OperationalError) and "locked" not in str(exc):
            raise
        raise ConflictError(f"{conflict}; reload and try again") from None


def _finish(hand: Hand, state: State) -> None:
    hand.status = FINISHED
    hand.human_payoff = float(state.returns()[hand.human_seat])
    hand.finished = utcnow()


def _insert(session: Session, hand: Hand, rows: Sequence[Recorded]) -> None:
    """INSERT the actions `rows` (a plain INSERT: this is the per-move hot path)."""
    if rows:
        now = utcnow()
        session.connection().execute(
            _INSERT_ACTIONS,
            [{"hand_id": hand.id, "seq": r.seq, "actor": r.actor, "action": r.action,
              "label": r.label, "probabilities": r.probabilities, "created": now}
             for r in rows],
        )


def _save(
    session: Session, hand: Hand, version: int, rows: Sequence[Recorded], state: State
) -> None:
    """Commit `rows` (and the end of the hand if `state` is terminal) in one transaction,
    provided the hand still has the `version` they were computed from; else `HandBusyError`.

    The conditional UPDATE comes first: on PostgreSQL it locks the hand's row, so a concurrent
    writer waits for the commit, then finds the version changed; on SQLite it takes the
    database's write lock, and the same holds."""
    values: dict[str, object] = {"version": version + 1}
    if state.is_terminal() and hand.status != FINISHED:
        values.update(status=FINISHED, human_payoff=float(state.returns()[hand.human_seat]),
                      finished=utcnow())
    statement = _BUMP_AND_FINISH if len(values) > 1 else _BUMP
    with write_lock(session), _conflicts_as_409(
            session, "this hand was changed by another request at the same time"):
        result = session.connection().execute(
            statement, {"hand_id": hand.id, "read": version,
                        **{f"new_{key}": value for key, value in values.items()}})
        if result.rowcount != 1:
            session.rollback()
            raise HandBusyError(_BUSY)
        _insert(session, hand, rows)
        session.commit()
    for key, value in values.items():
        set_committed_value(hand, key, value)


def _sample(rng: random.Random, weights: Sequence[float]) -> int:
    total = math.fsum(weights)
    if not total > 0 or any(w < 0 for w in weights):
        raise ValueError(f"not a probability distribution: {list(weights)}")
    r = rng.random() * total
    acc = 0.0
    for i, w in enumerate(weights):
        acc += w
        if r < acc:
            return i
    return max(i for i, w in enumerate(weights) if w > 0)  # r rounded up to the total


def _simulate(
    source: StrategySource,
    hand: Hand,
    actions: list[Recorded],
    state: State,
    rng: random.Random | None,
) -> tuple[State, StrategyUnavailableError | None]:
    """Sample chance and the bot until the human's turn or the end, appending their actions
    to `actions` (nothing is written). If the bot has no usable strategy, the state reached so
    far and the error, for the caller to save what was played and then raise it."""
    rng = rng if rng is not None else _SYSTEM_RANDOM
    game = hand.match.game
    try:
        while not state.is_terminal() and state.current_player() != hand.human_seat:
            player = state.current_player()
            probabilities: dict[str, float] | None = None
            if player == CHANCE:
                outcomes = state.chance_outcomes()
                action = outcomes[_sample(rng, [p for _, p in outcomes])][0]
            else:
                labels, weights = _bot_strategy(source, game, state)
                action = action_from_label(state, labels[_sample(rng, weights)])
                probabilities = dict(zip(labels, weights, strict=True))
            actions.append(Recorded(len(actions), player, action, state.action_label(action),
                                    probabilities))
            state = state.apply_action(action)
    except StrategyUnavailableError as exc:
        return state, exc
    return state, None



def _bot_strategy(
    source: StrategySource, game: str, state: State
) -> tuple[tuple[str, ...], tuple[float, ...]]:
    """The stored strategy at the bot's information set, checked against the legal actions.

    The messages never name the information set: its key holds the bot's card."""
    key = state.information_state_key()
    row = source.infoset(game, key)
    if row is None:
        source.solve(game)  # 503 "no solved strategy" if that is the reason
        log.error("the stored %s strategy has no information set %r", game, key)
        raise StrategyUnavailableError(
            f"the stored strategy for {game!r} in {source.path} does not cover this position; "
            f"it does not match the game: {BUILD_HINT} again"
        )
    legal = legal_labels(state)
    if sorted(row.labels) != sorted(legal) or not math.fsum(row.probabilities) > 0:
        log.error("stored %s strategy at %r: %s %s, legal %s", game, key, row.labels,
                  row.probabilities, legal)
        raise StrategyUnavailableError(
            f"the stored strategy for {game!r} in {source.path} does not match the game's "
            f"actions: {BUILD_HINT} again"
        )
    return row.labels, row.probabilities


def _view(
    source: StrategySource, hand: Hand, actions: Sequence[Recorded], since: int, hint: bool
) -> HandView:
    game = get_game(hand.match.game)
    human, bot = hand.human_seat, 1 - hand.human_seat
    steps = replay_steps(game.initial_state(), [(a.seq, a.actor, a.action) for a in actions])
    state = steps[-1].after if steps else game.initial_state()
    finished = state.is_terminal()
    events = [event_for(step, human, finished) for step in steps]
    player = state.current_player()
    to_act: Literal["you", "bot", "chance"] | None = (
        None if finished else "chance" if player == CHANCE else "you" if player == human
        else "bot"
    )
    hint_out = None
    if hint and to_act == "you":
        try:
            row = source.infoset(game.name, state.information_state_key(human))
        except StrategyUnavailableError:
            row = None
        if row is not None:
            hint_out = [
                ActionProbability(label=label, probability=p)
                for label, p in zip(row.labels, row.probabilities, strict=True)
            ]
    outcome = None
    if finished:
        decisions = [
            BotDecision(
                seq=step.seq,
                infoset=step.before.information_state_key(bot),
                chosen=step.label,
                probabilities=[
                    ActionProbability(label=label, probability=float(p))
                    for label, p in (a.probabilities or {}).items()
                ],
            )
            for step, a in zip(steps, actions, strict=True)
            if step.actor == bot
        ]
        outcome = HandOutcome(
            human_payoff=float(state.returns()[human]),
            human_private_view=state.private_view(human),
            bot_private_view=state.private_view(bot),
            bot_decisions=decisions,
        )
    return HandView(
        hand_id=hand.public_id,
        match_id=hand.match.public_id,
        game=game.name,
        number=hand.number,
        human_seat=human,
        bot_seat=bot,
        status="finished" if finished else "in_progress",
        to_act=to_act,
        private_view=state.private_view(human),
        public=public_state(state),
        events=events,
        new_events=events[since:],
        legal_actions=legal_labels(state) if to_act == "you" else [],
        hint=hint_out,
        outcome=outcome,
        seq=len(actions),
    )


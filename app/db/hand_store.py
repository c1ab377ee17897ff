"""Matches, hands and actions in the play database: reading them, and writing them safely.

Every write to a hand is one transaction guarded by the hand's ``version``
(``UPDATE hands ... WHERE version = <the one read>``): of two requests that read the same
version only the first to commit writes anything, in any process; within a process a claim on
the hand turns the second away at once. A finished hand also adds its payoff to its match's
running totals in the same transaction, so that results read in O(1).

The hot paths use plain SQL statements built once: building and hashing a statement on every
call costs more than running it on SQLite, and so does the ORM's unit of work.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Table, bindparam, func, select, update
from sqlalchemy.exc import IntegrityError, OperationalError
from sqlalchemy.orm import Session

from app.core.errors import ConflictError, HandBusyError, NotFoundError
from app.db import analysis_store, player_totals
from app.db.engine import write_lock
from app.db.models import (
    FINISHED,
    GUEST,
    IN_PROGRESS,
    Action,
    Hand,
    IdempotentAction,
    Match,
    new_public_id,
    utcnow,
)
from app.db.player_totals import StyleRows
from app.db.statements import Statement

_MATCHES = cast(Table, Match.__table__)
_HANDS = cast(Table, Hand.__table__)
_ACTIONS = cast(Table, Action.__table__)
_IDEMPOTENT = cast(Table, IdempotentAction.__table__)


@dataclass(frozen=True, slots=True)
class MatchRow:
    id: int
    public_id: str
    game: str
    owner: str | None
    token_hash: str
    created: datetime
    hands_finished: int
    seat0_finished: int
    payoff_sum: float
    payoff_sumsq: float
    adjusted_n: int = 0
    adjusted_sum: float = 0.0
    adjusted_sumsq: float = 0.0
    decisions: int = 0
    accurate: int = 0
    ev_lost_sum: float = 0.0
    account_id: int | None = None
    opponent: str = ""


@dataclass(frozen=True, slots=True)
class HandRow:
    id: int
    public_id: str
    match: MatchRow
    number: int
    human_seat: int
    status: str
    human_payoff: float | None
    created: datetime
    finished: datetime | None
    version: int
    player_kind: str = GUEST
    """How it is played (`app.db.models.Hand.player_kind`): every write of the hand writes it,
    and its totals are its player's of this kind."""


@dataclass(frozen=True, slots=True)
class Recorded:
    """One action of a hand as stored (the ``actions`` table's row)."""

    seq: int
    actor: int
    action: int
    label: str
    probabilities: dict[str, float] | None


@dataclass(frozen=True, slots=True)
class Finish:
    """The end of a hand, written with its last actions: the payoff and, where the coach could
    judge the human's decisions, the luck-adjusted result and what the decisions cost."""

    human_payoff: float
    adjusted: float | None = None
    ev_lost: float | None = None
    worst_loss: float | None = None
    worst_seq: int | None = None
    decisions: int = 0
    accurate: int = 0
    style: StyleRows = ()
    """The game's style counts of the human in this hand (for the player's totals)."""
    forfeit: bool = False
    analysis: dict[str, Any] | None = None
    """The coach's figures, kept with the hand (`app.services.analysis.analyse`)."""
    pending: bool = False
    """The analysis is computed later, off the request path."""
    state: tuple[int, dict[str, Any]] | None = None
    """(version read, new state) of the match's analysis state, written with the hand."""


@dataclass(frozen=True, slots=True)
class IdempotentAnswer:
    """The answer to keep for an action sent with an idempotency key."""

    key: str
    fingerprint: str
    response: str


_MATCH_COLUMNS = tuple(_MATCHES.c[f] for f in MatchRow.__dataclass_fields__)
_HAND_COLUMNS = tuple(_HANDS.c[f] for f in HandRow.__dataclass_fields__ if f != "match")
_SELECT_MATCH = Statement(select(*_MATCH_COLUMNS)
                          .where(_MATCHES.c.public_id == bindparam("public_id")))
_SELECT_HAND = Statement(select(*_HAND_COLUMNS, *_MATCH_COLUMNS)
                         .join_from(_HANDS, _MATCHES, _HANDS.c.match_id == _MATCHES.c.id)
                         .where(_HANDS.c.public_id == bindparam("public_id")))
_SELECT_LAST_HAND = Statement(select(_HANDS.c.public_id, _HANDS.c.number, _HANDS.c.status)
                              .where(_HANDS.c.match_id == bindparam("match_id"))
                              .order_by(_HANDS.c.number.desc()).limit(1))
_SELECT_ACTIONS = Statement(select(_ACTIONS.c.seq, _ACTIONS.c.actor, _ACTIONS.c.action,
                                   _ACTIONS.c.label, _ACTIONS.c.probabilities)
                            .where(_ACTIONS.c.hand_id == bindparam("hand_id"))
                            .order_by(_ACTIONS.c.seq))
_INSERT_MATCH = Statement(_MATCHES.insert())
_INSERT_HAND = Statement(_HANDS.insert())
_INSERT_ACTIONS = Statement(_ACTIONS.insert())
_GUARD = (_HANDS.c.id == bindparam("hand_id")) & (_HANDS.c.version == bindparam("read"))
_BUMP = Statement(update(_HANDS).where(_GUARD).values(
    version=bindparam("new_version"), player_kind=bindparam("new_kind")))
_BUMP_AND_FINISH = Statement(update(_HANDS).where(_GUARD).values(
    version=bindparam("new_version"), player_kind=bindparam("new_kind"), status=FINISHED,
    human_payoff=bindparam("new_payoff"), finished=bindparam("new_finished"),
    adjusted_payoff=bindparam("new_adjusted"), ev_lost=bindparam("new_ev_lost"),
    worst_loss=bindparam("new_worst_loss"), worst_seq=bindparam("new_worst_seq"),
    forfeited=bindparam("new_forfeited"), cumulative_payoff=bindparam("cumulative"),
    seat_balance=bindparam("balance"), cumulative_adjusted=bindparam("cumulative_adjusted"),
    analysis=bindparam("new_analysis"), analysis_pending=bindparam("new_pending")))
_ADD_TO_TOTALS = Statement(
    update(_MATCHES).where(_MATCHES.c.id == bindparam("match_id"))
    .values(hands_finished=_MATCHES.c.hands_finished + 1,
            seat0_finished=_MATCHES.c.seat0_finished + bindparam("seat0"),
            payoff_sum=_MATCHES.c.payoff_sum + bindparam("payoff"),
            payoff_sumsq=_MATCHES.c.payoff_sumsq + bindparam("payoff_squared"),
            adjusted_n=_MATCHES.c.adjusted_n + bindparam("judged"),
            adjusted_sum=_MATCHES.c.adjusted_sum + bindparam("adjusted"),
            adjusted_sumsq=_MATCHES.c.adjusted_sumsq + bindparam("adjusted_squared"),
            decisions=_MATCHES.c.decisions + bindparam("decisions"),
            accurate=_MATCHES.c.accurate + bindparam("accurate"),
            ev_lost_sum=_MATCHES.c.ev_lost_sum + bindparam("ev_lost"))
    .returning(_MATCHES.c.hands_finished, _MATCHES.c.seat0_finished, _MATCHES.c.payoff_sum,
               _MATCHES.c.adjusted_sum, _MATCHES.c.account_id, _MATCHES.c.opponent))
_SELECT_IDEMPOTENT = Statement(select(_IDEMPOTENT.c.fingerprint, _IDEMPOTENT.c.response)
                               .where((_IDEMPOTENT.c.match_id == bindparam("match_id"))
                                      & (_IDEMPOTENT.c.key == bindparam("key"))))
_INSERT_IDEMPOTENT = Statement(_IDEMPOTENT.insert())


def _match_row(values: Sequence[Any]) -> MatchRow:
    return MatchRow(*values)


def find_match(session: Session, public_id: str) -> MatchRow:
    row = _SELECT_MATCH.run(session, {"public_id": public_id}).first()
    if row is None:
        raise NotFoundError(f"no match {public_id!r}")
    return _match_row(row)


def find_hand(session: Session, public_id: str) -> HandRow:
    row = _SELECT_HAND.run(session, {"public_id": public_id}).first()
    if row is None:
        raise NotFoundError(f"no hand {public_id!r}")
    n = len(_HAND_COLUMNS)
    hand = tuple(row[:n])
    return HandRow(hand[0], hand[1], _match_row(row[n:]), *hand[2:])


def last_hand(session: Session, match_id: int) -> tuple[str, int, str] | None:
    """(public id, number, status) of the match's latest hand."""
    row = _SELECT_LAST_HAND.run(session, {"match_id": match_id}).first()
    return (row[0], row[1], row[2]) if row is not None else None


def recorded(session: Session, hand: HandRow) -> list[Recorded]:
    return [Recorded(*row) for row in _SELECT_ACTIONS.run(session, {"hand_id": hand.id}).rows]


def insert_match(session: Session, game: str, owner: str | None, token_hash: str, *,
                 account_id: int | None = None, opponent: str = "") -> MatchRow:
    match = MatchRow(0, new_public_id(), game, owner, token_hash, utcnow(), 0, 0, 0.0, 0.0,
                     account_id=account_id, opponent=opponent)
    values = {name: getattr(match, name) for name in MatchRow.__dataclass_fields__
              if name != "id"}
    with write_lock(session):
        inserted = _INSERT_MATCH.run(session, values)
        session.commit()
    return replace(match, id=inserted.inserted_id or 0)


def costliest_hands(session: Session, match: MatchRow, limit: int, above: float = 0.0
                    ) -> list[Any]:
    """The match's hands whose worst decision cost most against the equilibrium, more than
    `above`: (public id, number, worst loss, its seq), costliest first."""
    return list(session.connection().execute(
        _SELECT_COSTLIEST, {"match_id": match.id, "above": above, "limit": limit}))


_SELECT_COSTLIEST = (select(_HANDS.c.public_id, _HANDS.c.number, _HANDS.c.worst_loss,
                            _HANDS.c.worst_seq)
                     .where((_HANDS.c.match_id == bindparam("match_id"))
                            & (_HANDS.c.worst_loss > bindparam("above")))
                     .order_by(_HANDS.c.worst_loss.desc()).limit(bindparam("limit")))


def new_hand(match: MatchRow, number: int, human_seat: int, kind: str = GUEST) -> HandRow:
    """A hand not written yet (`insert_hand` writes it), with its public id, played as
    `kind` (`app.services.play.tokens.kind_of_play`)."""
    return HandRow(0, new_public_id(), match, number, human_seat, IN_PROGRESS, None, utcnow(),
                   None, 0, kind)


def insert_hand(session: Session, hand: HandRow, rows: Sequence[Recorded],
                finish: Finish | None) -> HandRow:
    """Write the new `hand` with its first actions, in one transaction; the unique (match,
    number) index turns a second hand with the same number at the same time into a
    `ConflictError`."""
    values = {"public_id": hand.public_id, "match_id": hand.match.id, "number": hand.number,
              "human_seat": hand.human_seat, "status": IN_PROGRESS, "human_payoff": None,
              "created": hand.created, "finished": None, "version": 0,
              "player_kind": hand.player_kind}
    with write_lock(session), conflicts_as_409(
            session, "another hand of this match was started at the same time"):
        inserted = _INSERT_HAND.run(session, values)
        hand = replace(hand, id=inserted.inserted_id or 0)
        _insert_actions(session, hand, rows)
        if finish is not None:
            hand = _finish(session, hand, hand.version, finish)
        session.commit()
    return hand


def save(session: Session, hand: HandRow, rows: Sequence[Recorded], finish: Finish | None,
         answer: IdempotentAnswer | None = None) -> HandRow:
    """Commit `rows` (and the end of the hand, and the answer to an idempotent request) in one
    transaction, provided the hand still has the version it was read with; else
    `HandBusyError`. Returns the hand as written (with `hand.player_kind`).

    The conditional UPDATE comes first: on PostgreSQL it locks the hand's row, so a concurrent
    writer waits for the commit, then finds the version changed; on SQLite it takes the
    database's write lock, and the same holds."""
    with write_lock(session), conflicts_as_409(
            session, "this hand was changed by another request at the same time"):
        if finish is not None:
            written = _finish(session, hand, hand.version, finish)
        else:
            result = _BUMP.run(session, {"hand_id": hand.id, "read": hand.version,
                                         "new_version": hand.version + 1,
                                         "new_kind": hand.player_kind})
            if result.rowcount != 1:
                session.rollback()
                raise HandBusyError(BUSY)
            written = replace(hand, version=hand.version + 1)
        _insert_actions(session, hand, rows)
        if answer is not None:
            _INSERT_IDEMPOTENT.run(session, {
                "match_id": hand.match.id, "key": answer.key, "fingerprint": answer.fingerprint,
                "response": answer.response, "created": utcnow()})
        session.commit()
    return written


def _finish(session: Session, hand: HandRow, read: int, finish: Finish) -> HandRow:
    """Add the hand to the match's totals and mark it finished with its place in the match's
    running series, guarded by `read` (a lost race rolls the totals back too)."""
    now = utcnow()
    adjusted = finish.adjusted if finish.adjusted is not None else 0.0
    totals = _ADD_TO_TOTALS.run(session, {
        "match_id": hand.match.id, "seat0": int(hand.human_seat == 0),
        "payoff": finish.human_payoff, "payoff_squared": finish.human_payoff ** 2,
        "judged": int(finish.adjusted is not None), "adjusted": adjusted,
        "adjusted_squared": adjusted ** 2, "decisions": finish.decisions,
        "accurate": finish.accurate,
        "ev_lost": finish.ev_lost if finish.ev_lost is not None else 0.0}).one()
    finished, seat0, payoff_sum, adjusted_sum, account_id, opponent = totals
    result = _BUMP_AND_FINISH.run(session, {
        "hand_id": hand.id, "read": read, "new_version": read + 1, "new_kind": hand.player_kind,
        "new_payoff": finish.human_payoff, "new_finished": now,
        "new_adjusted": finish.adjusted, "new_ev_lost": finish.ev_lost,
        "new_worst_loss": finish.worst_loss, "new_worst_seq": finish.worst_seq,
        "new_forfeited": finish.forfeit, "cumulative": payoff_sum,
        "balance": 2 * seat0 - finished,
        "cumulative_adjusted": adjusted_sum if finish.adjusted is not None else None,
        "new_analysis": finish.analysis, "new_pending": finish.pending})
    if result.rowcount != 1 or (finish.state is not None and not analysis_store.set_state(
            session.connection(), hand.match.id, *finish.state)):
        session.rollback()
        raise HandBusyError(BUSY)
    if account_id is not None:  # read in this transaction: a match just claimed counts
        player_totals.add_hand(
            session.connection(), account_id=account_id,
            game=player_totals.board_key(hand.match.game, opponent), kind=hand.player_kind,
            seat=hand.human_seat, payoff=finish.human_payoff, adjusted=finish.adjusted,
            decisions=finish.decisions, accurate=finish.accurate, forfeit=finish.forfeit,
            style=finish.style, day=now.date())
    return replace(hand, status=FINISHED, human_payoff=finish.human_payoff, finished=now,
                   version=read + 1)


def _insert_actions(session: Session, hand: HandRow, rows: Sequence[Recorded]) -> None:
    if rows:
        now = utcnow()
        _INSERT_ACTIONS.run_many(
            session,
            [{"hand_id": hand.id, "seq": r.seq, "actor": r.actor, "action": r.action,
              "label": r.label, "probabilities": r.probabilities, "created": now}
             for r in rows],
        )


def idempotent_answer(session: Session, match: MatchRow, key: str) -> tuple[str, str] | None:
    """(fingerprint, response) kept for `key` in `match`, if an action was played with it."""
    row = _SELECT_IDEMPOTENT.run(session, {"match_id": match.id, "key": key}).first()
    return (row[0], row[1]) if row is not None else None


# ---- claims and conflicts ---------------------------------------------------------------------

BUSY = ("another action on this hand is being played at this moment (a double click, another "
        "tab or a retry?); this one was not played: look at the hand again")

_IN_FLIGHT: set[str] = set()
"""Public ids of the hands a request of this process is writing (unique across databases)."""
_IN_FLIGHT_LOCK = threading.Lock()


@contextmanager
def claim(public_id: str) -> Iterator[bool]:
    """Claim the hand `public_id` for this request within the process, without waiting: True
    if this request holds it, False if another request of this process does (a double click
    lands here; the caller answers `HandBusyError` once the request may know about the hand).
    Claimed before the hand is read, so that what is read is what the last request of this
    process on it committed."""
    with _IN_FLIGHT_LOCK:
        held = public_id not in _IN_FLIGHT
        _IN_FLIGHT.add(public_id)
    try:
        yield held
    finally:
        if held:
            with _IN_FLIGHT_LOCK:
                _IN_FLIGHT.discard(public_id)


@contextmanager
def conflicts_as_409(session: Session, conflict: str) -> Iterator[None]:
    """A write that lost a race with another request (a duplicate hand number, action seq or
    idempotency key, or SQLite's writer lock) is rolled back and reported as a
    `ConflictError`."""
    try:
        yield
    except (IntegrityError, OperationalError) as exc:
        session.rollback()
        if isinstance(exc, OperationalError) and "locked" not in str(exc):
            raise
        raise ConflictError(f"{conflict}; look again and try again") from None


# ---- matches ----------------------------------------------------------------------------------

_SELECT_LISTED = (
    select(*_MATCH_COLUMNS,
           select(func.max(_HANDS.c.number)).where(_HANDS.c.match_id == _MATCHES.c.id)
           .scalar_subquery().label("last_number"),
           select(_HANDS.c.public_id).where((_HANDS.c.match_id == _MATCHES.c.id)
                                            & (_HANDS.c.status == IN_PROGRESS))
           .limit(1).scalar_subquery().label("current"))
    .order_by(_MATCHES.c.created.desc(), _MATCHES.c.id.desc())
)
_SELECT_OWNED = _SELECT_LISTED.where((_MATCHES.c.owner == bindparam("owner"))
                                     & _MATCHES.c.account_id.is_(None))
_SELECT_OF_ACCOUNT = _SELECT_LISTED.where(_MATCHES.c.account_id == bindparam("account_id"))


def owned_matches(session: Session, owner: str, account_id: int | None = None,
                  limit: int | None = None) -> list[tuple[MatchRow, int, str | None]]:
    """The matches of a browser (those of no account), or of an account, newest first:
    (match, hands dealt, hand in progress)."""
    query = _SELECT_OWNED if account_id is None else _SELECT_OF_ACCOUNT
    if limit is not None:
        query = query.limit(limit)
    rows = session.connection().execute(query, {"owner": owner, "account_id": account_id})
    n = len(_MATCH_COLUMNS)
    return [(_match_row(row[:n]), int(row.last_number or 0), row.current) for row in rows]


def hand_page(session: Session, match: MatchRow, before: int | None, limit: int) -> list[Any]:
    """Up to `limit` hands of `match` numbered below `before` (all if None), newest first."""
    return list(session.connection().execute(_SELECT_PAGE, {
        "match_id": match.id, "before": before if before is not None else 2**31 - 1,
        "limit": limit}).all())


_SELECT_PAGE = (select(_HANDS.c.id, _HANDS.c.public_id, _HANDS.c.number, _HANDS.c.human_seat,
                       _HANDS.c.status, _HANDS.c.human_payoff, _HANDS.c.created,
                       _HANDS.c.finished, _HANDS.c.adjusted_payoff, _HANDS.c.ev_lost,
                       _HANDS.c.forfeited)
                .where((_HANDS.c.match_id == bindparam("match_id"))
                       & (_HANDS.c.number < bindparam("before")))
                .order_by(_HANDS.c.number.desc()).limit(bindparam("limit")))

"""The analysis of finished hands in the play database: a match's analysis state, the hands still
waiting for theirs, and writing one hand's analysis into the hand, the match's running totals and
its player's.

A match's analysis state (the player's habits, the moments of its estimates) is written only if
its `analysis_version` is still the one read (``UPDATE ... WHERE analysis_version = <read>``),
and a hand's analysis only if it is still pending: of two processes analysing the same hand,
exactly one writes it, and the hands of a match are added to its state once each, in order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any, cast

from sqlalchemy import Connection, Table, bindparam, func, select, update

from app.db.models import FINISHED, Hand, Match, PlayerDay, PlayerTotals
from app.db.player_totals import board_key, upsert_add

_MATCHES = cast(Table, Match.__table__)
_HANDS = cast(Table, Hand.__table__)
_TOTALS = cast(Table, PlayerTotals.__table__)
_DAYS = cast(Table, PlayerDay.__table__)

_SET_STATE = (update(_MATCHES)
              .where((_MATCHES.c.id == bindparam("match_id"))
                     & (_MATCHES.c.analysis_version == bindparam("read")))
              .values(analysis_state=bindparam("new_state"),
                      analysis_version=bindparam("new_version")))
_SELECT_STATE = (select(_MATCHES.c.analysis_version, _MATCHES.c.analysis_state)
                 .where(_MATCHES.c.id == bindparam("match_id")))
_PENDING = _HANDS.c.analysis_pending.is_(True)


def set_state(connection: Connection, match_id: int, read: int, state: dict[str, Any]
              ) -> bool:
    """Write the match's analysis state if its version is still `read`; False if not."""
    result = connection.execute(_SET_STATE, {"match_id": match_id, "read": read,
                                             "new_state": state, "new_version": read + 1})
    return result.rowcount == 1


def state_of(connection: Connection, match_id: int) -> tuple[int, dict[str, Any] | None]:
    """(version, state) of the match's analysis."""
    row = connection.execute(_SELECT_STATE, {"match_id": match_id}).one()
    return int(row.analysis_version), row.analysis_state


def record_of(connection: Connection, hand_id: int) -> tuple[dict[str, Any] | None, bool]:
    """(the kept analysis, whether it is still pending) of a hand."""
    row = connection.execute(select(_HANDS.c.analysis, _HANDS.c.analysis_pending)
                             .where(_HANDS.c.id == hand_id)).one()
    return row.analysis, bool(row.analysis_pending)


def game_of(connection: Connection, match_id: int) -> tuple[str, str]:
    """(game, opponent: empty for the equilibrium) of the match."""
    row = connection.execute(select(_MATCHES.c.game, _MATCHES.c.opponent)
                             .where(_MATCHES.c.id == match_id)).one()
    return str(row.game), str(row.opponent or "")


def pending_count(connection: Connection, match_id: int) -> int:
    """How many finished hands of the match wait for their analysis (its partial index)."""
    return int(connection.execute(select(func.count()).select_from(_HANDS).where(
        (_HANDS.c.match_id == match_id) & _PENDING)).scalar_one())


@dataclass(frozen=True, slots=True)
class PendingHand:
    id: int
    public_id: str
    number: int
    human_seat: int
    human_payoff: float
    forfeited: bool
    finished: date
    player_kind: str


def first_pending(connection: Connection, match_id: int) -> PendingHand | None:
    """The match's earliest hand waiting for its analysis."""
    row = connection.execute(
        select(_HANDS.c.id, _HANDS.c.public_id, _HANDS.c.number, _HANDS.c.human_seat,
               _HANDS.c.human_payoff, _HANDS.c.forfeited, _HANDS.c.finished,
               _HANDS.c.player_kind)
        .where((_HANDS.c.match_id == match_id) & _PENDING & (_HANDS.c.status == FINISHED))
        .order_by(_HANDS.c.number).limit(1)).first()
    if row is None:
        return None
    return PendingHand(int(row.id), row.public_id, int(row.number), int(row.human_seat),
                       float(row.human_payoff or 0.0), bool(row.forfeited), row.finished.date(),
                       str(row.player_kind))


@dataclass(frozen=True, slots=True)
class Analysed:
    """What one hand's analysis adds (`write`)."""

    record: dict[str, Any] | None
    """The coach's figures; None if the hand cannot be analysed (it then counts raw only)."""
    adjusted: float | None = None
    ev_lost: float | None = None
    worst_loss: float | None = None
    worst_seq: int | None = None
    decisions: int = 0
    accurate: int = 0


def write(connection: Connection, match_id: int, hand: PendingHand, analysed: Analysed,
          state: tuple[int, dict[str, Any]] | None) -> bool:
    """Write `hand`'s analysis, add it to the match's totals and its player's, and move the
    match's analysis state on (guarded, see the module doc). False, changing nothing, if the
    hand is no longer pending or the state has moved: the caller rolls back."""
    done = connection.execute(
        update(_HANDS).where((_HANDS.c.id == hand.id) & _PENDING)
        .values(analysis=analysed.record, analysis_pending=False,
                adjusted_payoff=analysed.adjusted, ev_lost=analysed.ev_lost,
                worst_loss=analysed.worst_loss, worst_seq=analysed.worst_seq))
    if done.rowcount != 1 or (state is not None and not set_state(connection, match_id,
                                                                  *state)):
        return False
    if analysed.adjusted is None:
        return True
    adjusted = analysed.adjusted
    totals = connection.execute(
        update(_MATCHES).where(_MATCHES.c.id == match_id)
        .values(adjusted_n=_MATCHES.c.adjusted_n + 1,
                adjusted_sum=_MATCHES.c.adjusted_sum + adjusted,
                adjusted_sumsq=_MATCHES.c.adjusted_sumsq + adjusted * adjusted,
                decisions=_MATCHES.c.decisions + analysed.decisions,
                accurate=_MATCHES.c.accurate + analysed.accurate,
                ev_lost_sum=_MATCHES.c.ev_lost_sum + (analysed.ev_lost or 0.0))
        .returning(_MATCHES.c.adjusted_sum, _MATCHES.c.account_id, _MATCHES.c.game,
                   _MATCHES.c.opponent)).one()
    connection.execute(update(_HANDS).where(_HANDS.c.id == hand.id)
                       .values(cumulative_adjusted=totals.adjusted_sum))
    if totals.account_id is not None:
        player = {"account_id": totals.account_id,
                  "game": board_key(totals.game, totals.opponent),
                  "kind": hand.player_kind}
        upsert_add(connection, _TOTALS, player, {
            "adjusted_n": 1, "adjusted_sum": adjusted, "adjusted_sumsq": adjusted * adjusted,
            "decisions": analysed.decisions, "accurate": analysed.accurate})
        upsert_add(connection, _DAYS, {**player, "day": hand.finished},
                   {"decisions": analysed.decisions, "accurate": analysed.accurate})
    return True

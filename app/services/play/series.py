"""A match's running series, sampled for its chart: at most a few hundred finished hands spread
evenly over the match, read in time that does not grow with the match.

Hands finish in order, so the finished ones are numbered 1 .. ``hands_finished``, and a finished
hand's row never changes again. The sample is every `stride`-th hand and the last one; this
process remembers, for the matches read lately, the multiples of the stride read so far, and a
read fetches only the hands finished since (a range of the (match, number) index) instead of
walking every hand of the match: a 10,000-hand match read again after a hand or two costs a
few rows. Another process's reads and writes need no notice: what is remembered never changes,
and what is new is read from the database.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, cast

from pydantic import TypeAdapter
from sqlalchemy import Table, bindparam, select
from sqlalchemy.orm import Session

from app.db.hand_store import MatchRow
from app.db.models import Hand
from app.db.statements import Statement
from app.schemas import SeriesPoint

REMEMBERED = 256
"""Matches whose sampled points a process keeps (at most `MAX_POINTS` each)."""
MAX_POINTS = 500

_POINTS = TypeAdapter(list[SeriesPoint])
"""The new points are validated as one list: a model's Python ``__init__`` per point was a
third of a 10,000-hand match's read."""

_HANDS = cast(Table, Hand.__table__)
_SELECT = Statement(select(_HANDS.c.number, _HANDS.c.human_payoff, _HANDS.c.cumulative_payoff,
                           _HANDS.c.seat_balance, _HANDS.c.cumulative_adjusted)
                    .where((_HANDS.c.match_id == bindparam("match_id"))
                           & (_HANDS.c.number > bindparam("after"))
                           & (_HANDS.c.number <= bindparam("finished"))
                           & ((_HANDS.c.number % bindparam("stride") == 0)
                              | (_HANDS.c.number == bindparam("finished"))))
                    .order_by(_HANDS.c.number))

_SEEN: OrderedDict[tuple[str, int, float | None],
                   tuple[int, tuple[int, int], list[SeriesPoint], SeriesPoint | None]
                   ] = OrderedDict()
"""(match's public id, stride, the game's value) -> (finished hands covered, (how many of them
were not analysed, the match's analysed hands) then, the points of the stride's multiples
among them, the point of the last of them); least recently used first. A hand analysed after
the answer (`app.services.analysis.analyse`) gets its running adjusted result then: where some
covered hand was not analysed and the match's analysed count has moved, the points are read
again."""
_LOCK = threading.Lock()


def stride_for(finished: int, points: int) -> int:
    return max(1, -(-finished // max(1, points - 1)))


def series_points(session: Session, match: MatchRow, value: float | None,
                  points: int = MAX_POINTS) -> list[SeriesPoint]:
    """The running series at finished hands spread evenly over the match, at most `points` of
    them, the last one included; `value`, the game's value for seat 0, gives the expectation
    for the seats played."""
    finished = match.hands_finished
    if finished == 0:
        return []
    stride = stride_for(finished, points)
    key = (match.public_id, stride, value)
    with _LOCK:
        covered, (waiting, analysed), multiples, last = _SEEN.get(key) or (0, (0, 0), [], None)
    if finished < covered or (waiting and match.adjusted_n != analysed):  # read them all
        covered, multiples, last = 0, [], None
    if finished > covered:
        rows = _SELECT.run(session, {"match_id": match.id, "after": covered,
                                     "finished": finished, "stride": stride}).rows
        new = _point_list(rows, value)
        multiples = multiples + [point for point in new if point.number % stride == 0]
        last = new[-1] if new and new[-1].number == finished else None
        covered = finished
        with _LOCK:
            _SEEN[key] = (covered, (finished - match.adjusted_n, match.adjusted_n), multiples,
                          last)
            _SEEN.move_to_end(key)
            while len(_SEEN) > REMEMBERED:
                _SEEN.popitem(last=False)
    if last is not None and last.number % stride != 0:
        return [*multiples, last]
    return list(multiples)


def _point_list(rows: list[tuple[Any, ...]], value: float | None) -> list[SeriesPoint]:
    return _POINTS.validate_python([
        {"number": number, "payoff": payoff, "cumulative": cumulative,
         "expected_cumulative": value * balance if value is not None else None,
         "adjusted_cumulative": adjusted_cumulative}
        for number, payoff, cumulative, balance, adjusted_cumulative in rows])

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

from sqlalchemy import Table, bindparam, select
from sqlalchemy.orm import Session

from app.models import Hand
from app.services.hand_store import MatchRow
from app.services.statements import Statement

REMEMBERED = 256
"""Matches whose sampled rows a process keeps (at most ~500 rows of five numbers each)."""

_HANDS = cast(Table, Hand.__table__)
_SELECT = Statement(select(_HANDS.c.number, _HANDS.c.human_payoff, _HANDS.c.cumulative_payoff,
                           _HANDS.c.seat_balance, _HANDS.c.cumulative_adjusted)
                    .where((_HANDS.c.match_id == bindparam("match_id"))
                           & (_HANDS.c.number > bindparam("after"))
                           & (_HANDS.c.number <= bindparam("finished"))
                           & ((_HANDS.c.number % bindparam("stride") == 0)
                              | (_HANDS.c.number == bindparam("finished"))))
                    .order_by(_HANDS.c.number))

Row = tuple[Any, ...]
_SEEN: OrderedDict[tuple[str, int], tuple[int, list[Row], Row | None]] = OrderedDict()
"""(match's public id, stride) -> (finished hands covered, the rows of the stride's multiples
among them, the row of the last of them); least recently used first."""
_LOCK = threading.Lock()


def stride_for(finished: int, points: int) -> int:
    return max(1, -(-finished // max(1, points - 1)))


def series_sample(session: Session, match: MatchRow, points: int) -> list[Row]:
    """Finished hands (number, payoff, cumulative payoff, seat balance, cumulative adjusted
    result) spread evenly over the match: at most `points` of them, the last one included."""
    finished = match.hands_finished
    if finished == 0:
        return []
    stride = stride_for(finished, points)
    key = (match.public_id, stride)
    with _LOCK:
        covered, multiples, last = _SEEN.get(key) or (0, [], None)
    if finished < covered:  # the match's hands were not where they were: read them all
        covered, multiples, last = 0, [], None
    if finished > covered:
        new = _SELECT.run(session, {"match_id": match.id, "after": covered,
                                    "finished": finished, "stride": stride}).rows
        multiples = multiples + [row for row in new if row[0] % stride == 0]
        last = new[-1] if new and new[-1][0] == finished else None
        covered = finished
        with _LOCK:
            _SEEN[key] = (covered, multiples, last)
            _SEEN.move_to_end(key)
            while len(_SEEN) > REMEMBERED:
                _SEEN.popitem(last=False)
    if last is not None and last[0] % stride != 0:
        return [*multiples, last]
    return list(multiples)

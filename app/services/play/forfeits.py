"""Hands left unfinished are settled as forfeits, so that no hand can be abandoned to dodge a
loss.

A hand whose last move is older than the forfeit time (``FORFEIT_AFTER_HOURS``, default 24)
and that waits for the player's decision is finished at that decision as the game says
(`Game.forfeit_payoff`): a fold where the game has one, its worst result otherwise. It counts
like any finished hand, in the match's totals and the player's, and is marked as a forfeit.
Its luck-adjusted result is the usual one with the forfeit as the last decision: its value is
exactly its payoff, so the estimate stays unbiased (`app.services.analysis.coach`).

There is no scheduler: the sweep runs when the app starts, when a player's profile is read
(their own hands) and when a leaderboard is read (a bounded batch of anybody's). Each hand is
written through the hand's version guard, as play is (`hand_store.save`): of several workers
sweeping at once exactly one settles it, and a player acting at that moment either acts
first (the hand is no longer stale) or finds the hand finished.
"""

from __future__ import annotations

import logging
from datetime import datetime, timedelta
from typing import cast

from sqlalchemy import Table, func, select, text
from sqlalchemy.orm import Session

from app.core.errors import ConflictError, StrategyUnavailableError
from app.db import hand_store
from app.db.models import IN_PROGRESS, Action, Hand, Match, utcnow
from app.db.player_totals import style_rows
from app.services.analysis import analyse
from app.services.analysis.trace import Trace
from app.services.bots.bot import Bot, valuers_of
from solver.games import get_game

log = logging.getLogger("app.forfeits")

DEFAULT_HOURS = 24.0
BATCH = 200

_HANDS = cast(Table, Hand.__table__)
_MATCHES = cast(Table, Match.__table__)
_ACTIONS = cast(Table, Action.__table__)
_IN_PROGRESS = text(f"hands.status = '{IN_PROGRESS}'")
"""Written out, not bound: the planner uses the partial index of the hands in progress only
for a condition it can see is the index's own."""


def stale_hands(session: Session, cutoff: datetime, *, account_id: int | None = None,
                limit: int = BATCH) -> list[str]:
    """Public ids of hands in progress whose last move (or start) is older than `cutoff`,
    of one account if given. Reads the index of the hands in progress only."""
    last_move = (select(func.max(_ACTIONS.c.created)).where(_ACTIONS.c.hand_id == _HANDS.c.id)
                 .scalar_subquery())
    query = (select(_HANDS.c.public_id)
             .where(_IN_PROGRESS & (_HANDS.c.created < cutoff)
                    & (func.coalesce(last_move, _HANDS.c.created) < cutoff))
             .order_by(_HANDS.c.created).limit(limit))
    if account_id is not None:
        query = query.join_from(_HANDS, _MATCHES, _MATCHES.c.id == _HANDS.c.match_id).where(
            _MATCHES.c.account_id == account_id)
    return list(session.connection().execute(query).scalars())


def settle(session: Session, bot: Bot, hand_id: str) -> bool:
    """Settle the hand as a forfeit if it still waits for the player's decision; False if
    it does not (it moved on, it waits for the bot, or another worker settled it first)."""
    hand = hand_store.find_hand(session, hand_id)
    if hand.status != IN_PROGRESS:
        return False
    game = get_game(hand.match.game)
    trace = Trace.replay(game, hand_store.recorded(session, hand))
    state = trace.state
    seat = hand.human_seat
    if state.is_terminal() or state.current_player() != seat:
        return False  # not the player's decision: the bot or chance is to move
    payoff = float(game.forfeit_payoff(state, seat))
    style = (style_rows(game.style_counts(state, seat)) if hand.match.account_id is not None
             else ())
    finish = analyse.finish(session, valuers_of(bot), trace, hand, payoff, forfeit=True,
                             style=style)
    try:
        hand_store.save(session, hand, [], finish)
    except ConflictError:  # played or settled by another request meanwhile
        session.rollback()
        return False
    return True


def sweep(session: Session, bot: Bot, *, hours: float = DEFAULT_HOURS,
          account_id: int | None = None, limit: int = BATCH, now: datetime | None = None
          ) -> int:
    """Settle up to `limit` stale hands (of one account if given); how many were settled."""
    cutoff = (now or utcnow()) - timedelta(hours=hours)
    settled = 0
    for hand_id in stale_hands(session, cutoff, account_id=account_id, limit=limit):
        try:
            settled += settle(session, bot, hand_id)
        except StrategyUnavailableError as exc:
            log.warning("hand %s was not settled: %s", hand_id, exc.message)
    return settled


def sweep_all(session: Session, bot: Bot, *, hours: float = DEFAULT_HOURS) -> int:
    """Settle every stale hand, a batch at a time (at start-up)."""
    total = 0
    while True:
        settled = sweep(session, bot, hours=hours)
        total += settled
        if settled == 0:
            return total

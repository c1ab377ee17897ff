"""Matches: create one, list a browser's, and read a match's results in bounded time.

A match's totals are kept up to date as its hands finish (`hand_store`), so its results cost
the same after ten hands or ten thousand: the hand list comes a page at a time and the chart's
series is a sample of at most `MAX_SERIES_POINTS` hands.
"""

from __future__ import annotations

from typing import Any

from pydantic import TypeAdapter
from sqlalchemy.orm import Session

from app.core.errors import NotFoundError
from app.db import analysis_store, hand_store
from app.db.hand_store import HandRow, MatchRow
from app.db.models import FINISHED, IN_PROGRESS
from app.schemas import (
    CostlyDecision,
    ExportedAction,
    ExportedHand,
    HandExport,
    HandHistoryPage,
    HandSummary,
    MatchCreated,
    MatchResults,
    MatchSummary,
    RatesInUnit,
    WinChances,
)
from app.services.analysis import results
from app.services.analysis.coach import NEGLIGIBLE
from app.services.analysis.trace import Trace
from app.services.bots.strategy_source import StrategySource
from app.services.play.catalog import game_value, known_game, known_view, offered_game
from app.services.play.opponents import EQUILIBRIUM, known_opponent, opponent_of_match
from app.services.play.series import MAX_POINTS, series_points
from app.services.play.tokens import Access, hash_token, new_token, open_match
from solver.games import get_game
from solver.games.game_view import PlayedHand
from solver.games.view_values import ResultUnit

_HAND_LIST = TypeAdapter(list[HandSummary])
"""The page of hands is validated as one list (as the series is, `app.services.play.series`)."""
MAX_SERIES_POINTS = MAX_POINTS
COSTLIEST = 5
DEFAULT_PAGE = 50
MAX_PAGE = 100
MAX_EXPORT_PAGE = 500


def create_match(session: Session, source: StrategySource, game: str,
                 owner: str | None = None, *, account_id: int | None = None,
                 opponent: str = "") -> MatchCreated:
    """A new match of `game` (`NotFoundError` if the lobby does not offer it,
    `GameNotReadyError` while it is not built) against `opponent` (empty or ``equilibrium``: the
    game's equilibrium; else one of its exploitable opponents, a `NotFoundError` naming them if
    it has no such one) and its bearer token, which is returned only here (the database keeps
    its SHA-256).  `owner` ties it to a browser, `account_id` to an account (how each hand is
    played is the hand's: `kind_of_play`)."""
    offered_game(source, game)
    source.require(game)
    chosen = known_opponent(source, game, opponent)
    token = new_token()
    match = hand_store.insert_match(session, game, owner, hash_token(token),
                                    account_id=account_id, opponent=chosen.stored)
    return MatchCreated(match_id=match.public_id, game=match.game, token=token,
                        created=match.created, opponent=chosen.name)


def game_title(name: str) -> str:
    """The title of a game, or its name if this version of the app knows it no more."""
    try:
        return get_game(name).title
    except (KeyError, ValueError):
        return name


def list_matches(session: Session, owner: str, game: str | None = None, *,
                 account_id: int | None = None, limit: int | None = None,
                 source: StrategySource | None = None) -> list[MatchSummary]:
    """The matches of a browser, or of the account it is signed in to, newest first (of one
    game if `game` is given), each with its game's title and, read from `source`, its
    opponent's."""
    opponents: dict[tuple[str, str], str | None] = {}

    def opponent_title(match: MatchRow) -> str | None:
        key = (match.game, match.opponent)
        if source is None:
            return None
        if key not in opponents:
            out = opponent_of_match(source, match.game, match.opponent).out()
            opponents[key] = out.title if out is not None else None
        return opponents[key]

    return [
        MatchSummary(match_id=match.public_id, game=match.game,
                     title=game_title(match.game),
                     opponent=match.opponent or EQUILIBRIUM,
                     opponent_title=opponent_title(match), created=match.created,
                     hands=dealt, total=match.payoff_sum, current_hand_id=current)
        for match, dealt, current in hand_store.owned_matches(session, owner, account_id,
                                                              limit)
        if game is None or match.game == game
    ]


def match_results(session: Session, source: StrategySource, match_id: str, access: Access,
                  *, limit: int = DEFAULT_PAGE, before: int | None = None) -> MatchResults:
    """Winnings so far with a Student's t interval and the verdict, the equilibrium
    expectation for the seats played, a sample of the cumulative series, and one page of the
    hands (newest first, those numbered below `before`)."""
    match = open_match(session, match_id, access)
    limit = max(1, min(MAX_PAGE, limit))
    stats = results.from_totals(match.hands_finished, match.payoff_sum, match.payoff_sumsq)
    value, value_ci95 = game_value(source, match.game)
    balance = 2 * match.seat0_finished - match.hands_finished
    # As many hands in each seat cancel out: a plain zero, not the -0.0 of a negative value.
    expected_total = (value * balance if balance else 0.0) if value is not None else None
    expected_mean = (expected_total / stats.n
                     if expected_total is not None and stats.n else None)
    adjusted = results.from_totals(match.adjusted_n, match.adjusted_sum, match.adjusted_sumsq)
    judged = results.verdict(stats, expected_mean, adjusted,
                             results.luck_words(known_view(match.game).pieces))
    interval = results.shown_interval(stats)
    adjusted_interval = results.shown_interval(adjusted)
    page = hand_store.hand_page(session, match, before, limit + 1)
    more = len(page) > limit
    page = page[:limit]
    last = hand_store.last_hand(session, match.id)
    current = last[0] if last is not None and last[2] == IN_PROGRESS else None
    series = series_points(session, match, value)
    judged_everything = adjusted.n == stats.n and stats.n > 0
    opponent = opponent_of_match(source, match.game, match.opponent)
    reply_total = opponent.best_reply_total(match.seat0_finished,
                                            match.hands_finished - match.seat0_finished)
    # The coach's figures for the decisions alone, added up: not the luck terms of a hand.
    ev_lost = match.ev_lost_sum if judged_everything else None
    return MatchResults(
        match_id=match.public_id,
        game=match.game,
        created=match.created,
        hands_played=stats.n,
        total=stats.total,
        mean=stats.mean,
        std=stats.std,
        ci95_low=interval.low,
        ci95_high=interval.high,
        ci95_note=interval.note,
        game_value=value,
        game_value_ci95=value_ci95,
        expected_total=expected_total,
        expected_mean=expected_mean,
        verdict=judged.kind,
        verdict_text=judged.text,
        verdict_basis=judged.basis,
        adjusted_hands=adjusted.n,
        hands_analysing=analysis_store.pending_count(session.connection(), match.id),
        hands_needed=results.hands_needed(stats, expected_mean),
        adjusted_hands_needed=results.hands_needed(adjusted, expected_mean)
        if judged_everything else None,
        win_chances=_win_chances(stats, interval, adjusted, adjusted_interval, expected_mean)
        if known_view(match.game).wins_and_losses else None,
        adjusted_mean=adjusted.mean,
        adjusted_ci95_low=adjusted_interval.low,
        adjusted_ci95_high=adjusted_interval.high,
        adjusted_ci95_note=adjusted_interval.note,
        ev_lost=ev_lost,
        accuracy=match.accurate / match.decisions if match.decisions else None,
        costliest=[CostlyDecision(hand_id=row.public_id, number=row.number, seq=row.worst_seq,
                                  lost_vs_equilibrium=row.worst_loss)
                   for row in hand_store.costliest_hands(session, match, COSTLIEST,
                                                         above=NEGLIGIBLE)],
        series=series,
        hands=_HAND_LIST.validate_python([
            {"hand_id": row.public_id, "number": row.number, "human_seat": row.human_seat,
             "status": "finished" if row.status == FINISHED else "in_progress",
             "human_payoff": row.human_payoff, "created": row.created,
             "finished": row.finished, "adjusted_payoff": row.adjusted_payoff,
             "ev_lost": row.ev_lost, "forfeited": bool(row.forfeited)}
            for row in page]),
        next_cursor=page[-1].number if more and page else None,
        current_hand_id=current,
        in_unit=_in_unit(known_view(match.game).result_unit, stats, interval, adjusted,
                         adjusted_interval, expected_mean),
        opponent=opponent.out(),
        best_reply_mean=reply_total / stats.n if reply_total is not None and stats.n else
        opponent.best_reply_per_hand,
        target_text=opponent.target_text(reply_total, stats, adjusted, adjusted_interval,
                                         interval),
    )


def _win_chances(stats: results.Stats, interval: results.Interval, adjusted: results.Stats,
                 adjusted_interval: results.Interval, expected_mean: float | None
                 ) -> WinChances:
    """A +1/-1 game's rates as chances of winning, (1 + x) / 2."""
    def chance(x: float | None) -> float | None:
        return None if x is None else (1.0 + x) / 2.0

    return WinChances(
        won=chance(stats.mean), ci95_low=chance(interval.low), ci95_high=chance(interval.high),
        adjusted=chance(adjusted.mean), adjusted_ci95_low=chance(adjusted_interval.low),
        adjusted_ci95_high=chance(adjusted_interval.high), expected=chance(expected_mean))


def _in_unit(unit: ResultUnit | None, stats: results.Stats, interval: results.Interval,
             adjusted: results.Stats, adjusted_interval: results.Interval,
             expected_mean: float | None) -> RatesInUnit | None:
    """The rates per hand in the game's usual unit, if it has one beside chips."""
    if unit is None:
        return None

    def scaled(x: float | None) -> float | None:
        return None if x is None else x * unit.per_chip

    return RatesInUnit(
        unit=unit.name, meaning=unit.meaning, per_chip=unit.per_chip, mean=scaled(stats.mean),
        ci95_low=scaled(interval.low), ci95_high=scaled(interval.high),
        expected_mean=scaled(expected_mean), adjusted_mean=scaled(adjusted.mean),
        adjusted_ci95_low=scaled(adjusted_interval.low),
        adjusted_ci95_high=scaled(adjusted_interval.high))


def export_hands(session: Session, match_id: str, access: Access, *, limit: int = DEFAULT_PAGE,
                 before: int | None = None) -> HandExport:
    """A page of the match's finished hands as full records (a hand in progress is left out:
    the bot's cards are still hidden)."""
    match = open_match(session, match_id, access)
    finished, next_cursor = _finished_hands(session, match, limit, before)
    hands = []
    view = known_view(match.game)
    for row, trace in finished:
        state = trace.state
        public = view.public_view(state)
        hands.append(ExportedHand(
            hand_id=row.public_id, number=row.number, human_seat=row.human_seat,
            human_private=view.private_view(state, row.human_seat),
            bot_private=view.private_view(state, 1 - row.human_seat),
            board=[str(p) for p in public.board],
            actions=[ExportedAction(seq=step.recorded.seq,
                                    actor="chance" if step.recorded.actor < 0 else
                                    "you" if step.recorded.actor == row.human_seat else "bot",
                                    label=step.recorded.label) for step in trace.steps],
            betting=public.betting, human_payoff=float(row.human_payoff),
            adjusted_payoff=row.adjusted_payoff, ev_lost=row.ev_lost, finished=row.finished))
    return HandExport(match_id=match.public_id, game=match.game, hands=hands,
                      next_cursor=next_cursor)


def export_hand_histories(session: Session, match_id: str, access: Access, *,
                          limit: int = DEFAULT_PAGE, before: int | None = None
                          ) -> HandHistoryPage:
    """A page of the match's finished hands in the game's standard hand-history format
    (PHH for poker), newest first; not found for a game that has none."""
    match = open_match(session, match_id, access)
    game, view = known_game(match.game), known_view(match.game)
    if view.hand_history_format is None:
        raise NotFoundError(
            f"a match of {game.title} has no hand histories (the game has no standard "
            "hand-history format); export its hands as records "
            "(JSON or CSV) instead")
    finished, next_cursor = _finished_hands(session, match, limit, before)
    played = [PlayedHand(row.number, trace.state,
                         tuple("you" if seat == row.human_seat else "bot" for seat in (0, 1)))
              for row, trace in finished if trace.state.is_terminal()]  # forfeits have none
    return HandHistoryPage(match_id=match.public_id, format=view.hand_history_format,
                           text=view.hand_histories(played), next_cursor=next_cursor)


def _finished_hands(session: Session, match: MatchRow, limit: int, before: int | None
                    ) -> tuple[list[tuple[Any, Trace]], int | None]:
    """A page of the match's hands (`hand_store.hand_page` rows) replayed, those in progress
    left out, and the cursor of the next page."""
    limit = max(1, min(MAX_EXPORT_PAGE, limit))
    game = known_game(match.game)
    rows = hand_store.hand_page(session, match, before, limit + 1)
    more = len(rows) > limit
    rows = rows[:limit]
    finished = []
    for row in rows:
        if row.status != FINISHED:
            continue
        hand = HandRow(row.id, row.public_id, match, row.number, row.human_seat, row.status,
                       row.human_payoff, row.created, row.finished, 0)
        finished.append((row, Trace.replay(game, hand_store.recorded(session, hand))))
    return finished, rows[-1].number if more and rows else None

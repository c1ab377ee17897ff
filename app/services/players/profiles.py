"""A player's profile and the leaderboards, read from the players' running totals.

Neither reads the hands: a profile reads the account's rows of totals, days and style counts
(a few per game) and its list of matches; a board reads one row per player of the game, ranked
in the database. Both first settle the forfeits that are due (`forfeits`): a profile its
player's, a board a bounded batch of anybody's.
"""

from __future__ import annotations

import math
from typing import Any, cast

from sqlalchemy import Table, case, select
from sqlalchemy.orm import Session

from app.core.errors import (
    AuthenticationError,
    InvalidRequestError,
    StrategyUnavailableError,
)
from app.db import player_totals
from app.db.models import PERSON, PROGRAM, Account
from app.schemas.players import (
    AccountOut,
    AccuracyPoint,
    BoardEntry,
    BoardKind,
    GameRecord,
    Leaderboard,
    Profile,
    Rate,
    StyleFigure,
)
from app.services.analysis import results
from app.services.analysis.results import signed
from app.services.bots.bot import Bot
from app.services.bots.strategy_source import StrategySource
from app.services.play import forfeits
from app.services.play.catalog import game_value, known_game
from app.services.play.matches import list_matches
from app.services.play.opponents import EQUILIBRIUM
from app.services.players.accounts import AccountRow
from app.services.players.api_keys import list_keys
from solver.evaluation.style import SeatStyle, read_style
from solver.games import Game, get_game, get_view
from strategies.figures import STYLE

THRESHOLDS = (30, 300, 3000)
"""The minimum numbers of hands a board can ask for, as Slumbot's boards have several."""
BOARD_SIZE = 100
PROFILE_MATCHES = 500
BOARD_KINDS: dict[str, str] = {"people": PERSON, "programs": PROGRAM}

_TOTALS = player_totals.TOTALS
_ACCOUNTS = cast(Table, Account.__table__)


def account_row(session: Session, account_id: int) -> AccountRow:
    account = session.get(Account, account_id)
    if account is None:
        raise AuthenticationError("this account no longer exists")
    return AccountRow(account.id, account.username, account.on_boards, account.created)


def rate(game: Game | None, n: int, total: float, total_of_squares: float) -> Rate:
    """Mean per hand and its 95% interval (`results`), also in the game's unit."""
    stats = results.from_totals(n, total, total_of_squares)
    unit = get_view(game.name).result_unit if game is not None else None

    def scaled(x: float | None) -> float | None:
        return None if x is None or unit is None else x * unit.per_chip

    return Rate(hands=n, mean=stats.mean, ci95_low=stats.ci95_low, ci95_high=stats.ci95_high,
                unit=unit.name if unit is not None else None, mean_in_unit=scaled(stats.mean),
                ci95_low_in_unit=scaled(stats.ci95_low),
                ci95_high_in_unit=scaled(stats.ci95_high))


def _game(name: str) -> Game | None:
    try:
        return get_game(name)
    except (KeyError, ValueError):
        return None


def profile(session: Session, source: StrategySource, bot: Bot, account: AccountRow, *,
            forfeit_hours: float = forfeits.DEFAULT_HOURS) -> Profile:
    """Everything the account has played: its matches, and per game its results, the
    coach's accuracy by day and its style beside the equilibrium's."""
    forfeits.sweep(session, bot, hours=forfeit_hours, account_id=account.id)
    connection = session.connection()
    records = []
    for row in player_totals.totals_of(connection, account.id):
        name, opponent = player_totals.split_board(row.game)
        game = _game(name)
        days = player_totals.days_of(connection, account.id, row.game, row.kind)
        title = game.title if game is not None else name
        records.append(GameRecord(
            game=name, opponent=opponent or EQUILIBRIUM,
            title=f"{title} against {opponent}" if opponent else title,
            kind=row.kind, hands=row.hands, forfeits=row.forfeits,
            raw=rate(game, row.hands, row.payoff_sum, row.payoff_sumsq),
            adjusted=rate(game, row.adjusted_n, row.adjusted_sum, row.adjusted_sumsq),
            accuracy=row.accurate / row.decisions if row.decisions else None,
            accuracy_series=[AccuracyPoint(day=d.day, hands=d.hands, decisions=d.decisions,
                                           accuracy=d.accurate / d.decisions
                                           if d.decisions else None) for d in days],
            style=_style(connection, source, account.id, row, game)))
    return Profile(
        account=AccountOut(username=account.username, on_boards=account.on_boards,
                           created=account.created),
        matches=list_matches(session, "", account_id=account.id, limit=PROFILE_MATCHES,
                             source=source),
        games=records, keys=list_keys(session, account.id))


def _style(connection: Any, source: StrategySource, account_id: int, row: Any,
           game: Game | None) -> list[StyleFigure]:
    """The player's style figures in a game beside the equilibrium's from the same seats,
    mixed as the player played them: those its build stored with the solve (never worked out
    here); `equilibrium_pending` where a solve stored before they were has none yet."""
    if game is None or not game.style_stats or player_totals.split_board(row.game)[1]:
        return []  # style counts are kept per game, beside its equilibrium's totals
    counts = player_totals.style_of_player(connection, account_id, row.game, row.kind)
    seats = (row.seat0, row.hands - row.seat0)
    equilibrium: list[SeatStyle] = []
    try:
        info = source.latest_solve(row.game)
        if info is not None:
            equilibrium = list(read_style(source.figures(info.id).get(STYLE)) or ())
    except StrategyUnavailableError:
        info = None
    pending = info is not None and not equilibrium
    figures = []
    for stat in game.style_stats:
        count = sum(counts.get((stat.name, s), (0.0, 0.0))[0] for s in (0, 1))
        out_of = sum(counts.get((stat.name, s), (0.0, 0.0))[1] for s in (0, 1))
        mixed = None
        if equilibrium:
            expected = [e.expected.get(stat.name, (0.0, 0.0)) for e in equilibrium]
            top = sum(n * c for n, (c, _) in zip(seats, expected, strict=True))
            bottom = sum(n * o for n, (_, o) in zip(seats, expected, strict=True))
            mixed = top / bottom if bottom > 0 else None
        figures.append(StyleFigure(
            name=stat.name, title=stat.title, meaning=stat.meaning, kind=stat.kind,
            count=count, out_of=out_of, value=count / out_of if out_of else None,
            equilibrium=mixed,
            equilibrium_by_seat=[e.figure(stat.name) for e in equilibrium],
            equilibrium_exact=all(e.exact for e in equilibrium) and bool(equilibrium),
            equilibrium_pending=pending))
    return figures


def _reference(source: StrategySource | None, game: Game, opponent: str
               ) -> tuple[str, tuple[float, float] | None, str]:
    """Whose play the skill figure is measured against on this board, what it scores per hand
    in seat 0 and in seat 1 (from the stored solve; None where unknown), and that in words."""
    view = get_view(game.name)
    seats = [seat.name for seat in view.seats]
    unit = view.result_unit

    def said(x: float) -> str:
        return signed(x) + (f" ({x * unit.per_chip:+,.0f} {unit.name})" if unit else "")

    if opponent == EQUILIBRIUM:
        value, ci95 = game_value(source, game.name) if source is not None else (None, None)
        if value is None:
            return "equilibrium play", None, ("The game's value is not known here, so par "
                                              "(what equilibrium play scores) cannot be said.")
        how = " (estimated by the bot's self-play)" if ci95 is not None else ""
        return "equilibrium play", (value, -value), (
            f"Par is what equilibrium play scores, the game's value{how}: {said(value)} a "
            f"hand as {seats[0]}, {said(-value)} as {seats[1]}, so {said(0.0)} over as many "
            f"hands in each seat; each row's par is that from the player's own seats.")
    try:
        info = source.opponent(game.name, opponent) if source is not None else None
    except StrategyUnavailableError:
        info = None
    reply = (info.best_reply if info is not None and info.best_reply is not None else
             (info.exploitability,) * 2 if info is not None
             and math.isfinite(info.exploitability) else None)
    if reply is None:
        return "a best reply", None, ("What a best reply to this bot scores is not stored, "
                                      "so par cannot be said.")
    return "a best reply", (reply[0], reply[1]), (
        f"Par is what a best reply to this bot scores, the most any play scores (the coach "
        f"judges play against this bot by it): {said(reply[0])} a hand as {seats[0]}, "
        f"{said(reply[1])} as {seats[1]}; each row's par is that from the player's own "
        f"seats.")


def leaderboard(session: Session, bot: Bot, game: str, *, kind: str = "people",
                min_hands: int = THRESHOLDS[0], opponent: str = EQUILIBRIUM,
                forfeit_hours: float = forfeits.DEFAULT_HOURS,
                source: StrategySource | None = None) -> Leaderboard:
    """The players of `game` against `opponent` (each opponent has its board) with at least
    `min_hands` hands (one of `THRESHOLDS`), people or programs, ranked by their luck-adjusted
    result per hand (the raw one where the solve has no action values), with its 95% interval
    and the raw rate beside it; display names only, and only the players who stay on the
    boards."""
    played = known_game(game)
    board = player_totals.board_key(game, "" if opponent == EQUILIBRIUM else opponent)
    if kind not in BOARD_KINDS:
        raise InvalidRequestError(f"a board is of {' or '.join(BOARD_KINDS)}, not {kind!r}")
    if min_hands not in THRESHOLDS:
        raise InvalidRequestError("the minimum number of hands is one of "
                                  f"{', '.join(map(str, THRESHOLDS))}")
    forfeits.sweep(session, bot, hours=forfeit_hours, limit=50)
    rank_by = case((_TOTALS.c.adjusted_n > 0, _TOTALS.c.adjusted_sum / _TOTALS.c.adjusted_n),
                   else_=_TOTALS.c.payoff_sum / _TOTALS.c.hands)
    rows = session.connection().execute(
        select(_TOTALS, _ACCOUNTS.c.username)
        .join_from(_TOTALS, _ACCOUNTS, _ACCOUNTS.c.id == _TOTALS.c.account_id)
        .where((_TOTALS.c.game == board) & (_TOTALS.c.kind == BOARD_KINDS[kind])
               & (_TOTALS.c.hands >= min_hands) & _ACCOUNTS.c.on_boards)
        .order_by(rank_by.desc(), _TOTALS.c.hands.desc(), _ACCOUNTS.c.username)
        .limit(BOARD_SIZE)).all()
    whose, per_seat, words = _reference(source, played, opponent)
    unit = get_view(played.name).result_unit

    def reference(row: Any) -> float | None:
        if per_seat is None or not row.hands:
            return None
        hands, seat0 = int(row.hands), int(row.seat0)
        return (seat0 * per_seat[0] + (hands - seat0) * per_seat[1]) / hands

    entries = [BoardEntry(
        rank=i + 1, name=row.username, hands=row.hands, forfeits=row.forfeits,
        adjusted=rate(played, row.adjusted_n, row.adjusted_sum, row.adjusted_sumsq),
        raw=rate(played, row.hands, row.payoff_sum, row.payoff_sumsq),
        reference=(r := reference(row)),
        reference_in_unit=r * unit.per_chip if r is not None and unit is not None else None)
        for i, row in enumerate(rows)]
    adjusted = all(e.adjusted.hands for e in entries) if entries else True
    return Leaderboard(
        game=game, opponent=opponent,
        title=played.title if opponent == EQUILIBRIUM else f"{played.title} against {opponent}",
        kind=cast(BoardKind, kind), min_hands=min_hands,
        thresholds=list(THRESHOLDS), entries=entries,
        ranked_by=("the luck-adjusted result per hand" if adjusted
                   else "the result per hand (the solve has no action values to take the "
                        "luck out)"),
        reference=whose, reference_words=words)

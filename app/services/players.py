"""A player's profile and the leaderboards, read from the players' running totals.

Neither reads the hands: a profile reads the account's rows of totals, days and style counts
(a few per game) and its list of matches; a board reads one row per player of the game, ranked
in the database. Both first settle the forfeits that are due (`forfeits`): a profile its
player's, a board a bounded batch of anybody's.
"""

from __future__ import annotations

from typing import Any, cast

from sqlalchemy import Table, case, select
from sqlalchemy.orm import Session

from app.models import PERSON, PROGRAM
from app.models_players import Account
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
from app.services import forfeits, player_totals, results
from app.services.accounts import AccountRow
from app.services.api_keys import list_keys
from app.services.bot import Bot
from app.services.catalog import game_or_404
from app.services.errors import (
    AuthenticationError,
    InvalidRequestError,
    StrategyUnavailableError,
)
from app.services.matches import list_matches
from app.services.strategy_source import StrategySource
from app.services.style import equilibrium_style
from solver.games import Game, get_game

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
    unit = game.result_unit if game is not None else None

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
        game = _game(row.game)
        days = player_totals.days_of(connection, account.id, row.game, row.kind)
        records.append(GameRecord(
            game=row.game, title=game.title if game is not None else row.game,
            kind=row.kind, hands=row.hands, forfeits=row.forfeits,
            raw=rate(game, row.hands, row.payoff_sum, row.payoff_sumsq),
            adjusted=rate(game, row.adjusted_n, row.adjusted_sum, row.adjusted_sumsq),
            accuracy=row.accurate / row.decisions if row.decisions else None,
            accuracy_series=[AccuracyPoint(day=d.day, hands=d.hands, decisions=d.decisions,
                                           accuracy=d.accurate / d.decisions
                                           if d.decisions else None) for d in days],
            style=_style(connection, source, bot, account.id, row, game)))
    return Profile(
        account=AccountOut(username=account.username, on_boards=account.on_boards,
                           created=account.created),
        matches=list_matches(session, "", account_id=account.id, limit=PROFILE_MATCHES),
        games=records, keys=list_keys(session, account.id))


def _style(connection: Any, source: StrategySource, bot: Bot, account_id: int, row: Any,
           game: Game | None) -> list[StyleFigure]:
    """The player's style figures in a game beside the equilibrium's from the same seats,
    mixed as the player played them."""
    if game is None or not game.style_stats:
        return []
    counts = player_totals.style_of_player(connection, account_id, row.game, row.kind)
    seats = (row.seat0, row.hands - row.seat0)
    try:
        solve = source.solve(row.game).id
        equilibrium = [equilibrium_style(bot, game, seat, solve) for seat in (0, 1)]
    except StrategyUnavailableError:
        equilibrium = []
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
            equilibrium_exact=all(e.exact for e in equilibrium) and bool(equilibrium)))
    return figures


def leaderboard(session: Session, bot: Bot, game: str, *, kind: str = "people",
                min_hands: int = THRESHOLDS[0],
                forfeit_hours: float = forfeits.DEFAULT_HOURS) -> Leaderboard:
    """The players of `game` with at least `min_hands` hands (one of `THRESHOLDS`), people or
    programs, ranked by their luck-adjusted result per hand (the raw one where the solve has
    no action values), with its 95% interval and the raw rate beside it; display names only,
    and only the players who stay on the boards."""
    played = game_or_404(game)
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
        .where((_TOTALS.c.game == game) & (_TOTALS.c.kind == BOARD_KINDS[kind])
               & (_TOTALS.c.hands >= min_hands) & _ACCOUNTS.c.on_boards)
        .order_by(rank_by.desc(), _TOTALS.c.hands.desc(), _ACCOUNTS.c.username)
        .limit(BOARD_SIZE)).all()
    entries = [BoardEntry(
        rank=i + 1, name=row.username, hands=row.hands, forfeits=row.forfeits,
        adjusted=rate(played, row.adjusted_n, row.adjusted_sum, row.adjusted_sumsq),
        raw=rate(played, row.hands, row.payoff_sum, row.payoff_sumsq))
        for i, row in enumerate(rows)]
    adjusted = all(e.adjusted.hands for e in entries) if entries else True
    return Leaderboard(
        game=game, title=played.title, kind=cast(BoardKind, kind), min_hands=min_hands,
        thresholds=list(THRESHOLDS), entries=entries,
        ranked_by=("the luck-adjusted result per hand" if adjusted
                   else "the result per hand (the solve has no action values to take the "
                        "luck out)"))

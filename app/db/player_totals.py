"""The running totals of each player in each game, kept as hands finish.

A hand of a match that belongs to an account adds itself to the account's totals for the game
and the way it was played (`app.db.models.Hand.player_kind`: a person's, a program's or a
guest's), to its row of the day, and to its style counts, in the transaction that finishes it
(`hand_store`), so that a profile or a leaderboard reads a row per player and game, never the
hands. The additions are upserts: the first hand of a game creates the rows, and two hands
finishing at once both count, in any worker.

When a browser's matches become an account's (at sign-up, at sign-in), their totals are added
from the matches' own running totals, as a guest's (every hand of them was dealt to a browser
signed in to no account); the style counts of their hands are counted once then.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import Connection, Table, func, select, update
from sqlalchemy.dialects.postgresql import insert as postgresql_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from app.db.models import FINISHED, GUEST, Action, Hand, Match, PlayerDay, PlayerStyle, PlayerTotals

TOTALS = cast(Table, PlayerTotals.__table__)
DAYS = cast(Table, PlayerDay.__table__)
STYLE = cast(Table, PlayerStyle.__table__)
_MATCHES = cast(Table, Match.__table__)
_HANDS = cast(Table, Hand.__table__)
_ACTIONS = cast(Table, Action.__table__)

StyleRows = Sequence[tuple[str, float, float]]
"""(statistic, count, opportunities) of one hand."""


def upsert_add(connection: Connection, table: Table, keys: Mapping[str, Any],
               amounts: Mapping[str, float]) -> None:
    """Add `amounts` to the row of `table` identified by `keys` (its unique columns),
    creating it with `amounts` if there is none; atomic on SQLite and PostgreSQL."""
    dialect = connection.dialect.name
    if dialect in ("sqlite", "postgresql"):
        insert = sqlite_insert if dialect == "sqlite" else postgresql_insert
        statement = insert(table).values(**keys, **amounts)
        statement = statement.on_conflict_do_update(
            index_elements=list(keys),
            set_={name: table.c[name] + statement.excluded[name] for name in amounts})
        connection.execute(statement)
        return
    where = [table.c[name] == value for name, value in keys.items()]
    changed = connection.execute(update(table).where(*where).values(
        {name: table.c[name] + value for name, value in amounts.items()}))
    if changed.rowcount == 0:
        connection.execute(table.insert().values(**keys, **amounts))


def board_key(game: str, opponent: str) -> str:
    """What a player's totals and days are kept under (their ``game`` column): the game for
    its matches against the equilibrium, ``game@opponent`` for those against an exploitable
    opponent, which has its own totals and its own board.  Style counts are the game's."""
    return f"{game}@{opponent}" if opponent else game


def split_board(key: str) -> tuple[str, str]:
    """(game, opponent) of a `board_key`."""
    game, _, opponent = key.partition("@")
    return game, opponent


def add_hand(connection: Connection, *, account_id: int, game: str, kind: str, seat: int,
             payoff: float, adjusted: float | None, decisions: int, accurate: int,
             forfeit: bool, style: StyleRows, day: date) -> None:
    """Add one finished hand to its player's totals, day and style counts; `game` is a
    `board_key`."""
    player = {"account_id": account_id, "game": game, "kind": kind}
    judged = adjusted is not None
    value = adjusted if adjusted is not None else 0.0
    upsert_add(connection, TOTALS, player, {
        "hands": 1, "seat0": int(seat == 0), "payoff_sum": payoff,
        "payoff_sumsq": payoff * payoff, "adjusted_n": int(judged), "adjusted_sum": value,
        "adjusted_sumsq": value * value, "decisions": decisions, "accurate": accurate,
        "forfeits": int(forfeit)})
    upsert_add(connection, DAYS, {**player, "day": day},
               {"hands": 1, "decisions": decisions, "accurate": accurate})
    for stat, count, out_of in style:
        upsert_add(connection, STYLE, {**player, "game": split_board(game)[0], "stat": stat,
                                       "seat": seat},
                   {"count": count, "out_of": out_of})


_MATCH_TOTALS = ("hands_finished", "seat0_finished", "payoff_sum", "payoff_sumsq",
                 "adjusted_n", "adjusted_sum", "adjusted_sumsq", "decisions", "accurate")


def add_matches(connection: Connection, account_id: int, match_ids: Sequence[int],
                style_of: Any) -> None:
    """Add the finished hands of `match_ids` (a browser's matches, just given to the account)
    to its totals as a guest's: from the matches' running totals, a day row per match (on the
    day of its last finished hand), forfeits counted from the hands, and the style counts of
    every finished hand, counted once here by ``style_of(game, seat, actions) -> StyleRows``.
    A hand of them that finishes later adds itself as a guest's too (it was dealt so)."""
    if not match_ids:
        return
    ids = list(match_ids)
    matches = connection.execute(
        select(_MATCHES.c.id, _MATCHES.c.game, _MATCHES.c.opponent,
               *(_MATCHES.c[c] for c in _MATCH_TOTALS),
               select(func.max(_HANDS.c.finished)).where(_HANDS.c.match_id == _MATCHES.c.id)
               .scalar_subquery().label("last"),
               select(func.count()).where((_HANDS.c.match_id == _MATCHES.c.id)
                                          & _HANDS.c.forfeited).scalar_subquery()
               .label("forfeits"))
        .where(_MATCHES.c.id.in_(ids))).all()
    for row in matches:
        if not row.hands_finished:
            continue
        player = {"account_id": account_id, "game": board_key(row.game, row.opponent),
                  "kind": GUEST}
        upsert_add(connection, TOTALS, player, {
            "hands": row.hands_finished, "seat0": row.seat0_finished,
            "payoff_sum": row.payoff_sum, "payoff_sumsq": row.payoff_sumsq,
            "adjusted_n": row.adjusted_n, "adjusted_sum": row.adjusted_sum,
            "adjusted_sumsq": row.adjusted_sumsq, "decisions": row.decisions,
            "accurate": row.accurate, "forfeits": row.forfeits})
        last = row.last if isinstance(row.last, datetime) else None
        upsert_add(connection, DAYS, {**player, "day": (last or datetime.now()).date()},
                   {"hands": row.hands_finished, "decisions": row.decisions,
                    "accurate": row.accurate})
    kinds = {row.id: (row.game, GUEST) for row in matches}
    for (game, kind, seat), counts in _style_of_hands(connection, ids, kinds,
                                                      style_of).items():
        for stat, (count, out_of) in counts.items():
            upsert_add(connection, STYLE, {"account_id": account_id, "game": game,
                                           "kind": kind, "stat": stat, "seat": seat},
                       {"count": count, "out_of": out_of})


def _style_of_hands(connection: Connection, match_ids: list[int],
                    kinds: Mapping[int, tuple[str, str]], style_of: Any
                    ) -> dict[tuple[str, str, int], dict[str, tuple[float, float]]]:
    """The style counts of the finished hands of `match_ids`, summed by game, kind and seat."""
    rows = connection.execute(
        select(_HANDS.c.id, _HANDS.c.match_id, _HANDS.c.human_seat, _ACTIONS.c.action)
        .join_from(_HANDS, _ACTIONS, _ACTIONS.c.hand_id == _HANDS.c.id)
        .where(_HANDS.c.match_id.in_(match_ids) & (_HANDS.c.status == FINISHED))
        .order_by(_HANDS.c.id, _ACTIONS.c.seq))
    hands: dict[int, tuple[int, int, list[int]]] = {}
    for hand_id, match_id, seat, action in rows:
        hands.setdefault(hand_id, (match_id, seat, []))[2].append(action)
    summed: dict[tuple[str, str, int], dict[str, tuple[float, float]]] = defaultdict(dict)
    for match_id, seat, actions in hands.values():
        game, kind = kinds[match_id]
        counts = summed[(game, kind, seat)]
        for stat, count, out_of in style_of(game, seat, actions):
            old = counts.get(stat, (0.0, 0.0))
            counts[stat] = (old[0] + count, old[1] + out_of)
    return summed


def style_rows(counts: Mapping[str, tuple[float, float]]) -> StyleRows:
    return tuple((stat, count, out_of) for stat, (count, out_of) in counts.items())


def totals_of(connection: Connection, account_id: int) -> list[Any]:
    """The account's totals rows, by game and kind."""
    return list(connection.execute(select(TOTALS).where(TOTALS.c.account_id == account_id)
                                   .order_by(TOTALS.c.game, TOTALS.c.kind)))


def days_of(connection: Connection, account_id: int, game: str, kind: str,
            limit: int = 366) -> list[Any]:
    """The account's last `limit` days of play of `game`, oldest first."""
    rows = connection.execute(
        select(DAYS.c.day, DAYS.c.hands, DAYS.c.decisions, DAYS.c.accurate)
        .where((DAYS.c.account_id == account_id) & (DAYS.c.game == game)
               & (DAYS.c.kind == kind))
        .order_by(DAYS.c.day.desc()).limit(limit))
    return list(reversed(list(rows)))


def style_of_player(connection: Connection, account_id: int, game: str, kind: str
                    ) -> dict[tuple[str, int], tuple[float, float]]:
    """(statistic, seat) -> (count, opportunities) of the account in `game`."""
    rows = connection.execute(
        select(STYLE.c.stat, STYLE.c.seat, STYLE.c.count, STYLE.c.out_of)
        .where((STYLE.c.account_id == account_id) & (STYLE.c.game == game)
               & (STYLE.c.kind == kind)))
    return {(stat, seat): (count, out_of) for stat, seat, count, out_of in rows}


def iter_ids(rows: Iterable[Any]) -> list[int]:
    return [int(row[0]) for row in rows]

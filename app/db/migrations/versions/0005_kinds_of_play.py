"""How each hand was played (`hands.player_kind`): a person's (on the pages, signed in to the
match's account), a program's (over the API) or a guest's (on the pages, signed in to no
account), in place of what the match's creator and the API key said (`matches.player_kind` and
`api_keys.kind`, dropped); and the players' totals of the accounts whose hands change kind,
counted again.

A hand from before takes its match's kind, as far as the database can tell it:

* a match created over the API (it has no browser), or with a program's key: a program's;
* a browser's match of no account, or one made before its account existed (made the account's
  at sign-up): a guest's;
* any other match of an account: a person's. (A match made signed out after the account and
  made its own at a later sign-in cannot be told from it, nor a hand of a page's match played
  with a key.)

The totals, day rows and style counts of every account with a hand whose kind changes are
counted again from its matches: the totals from the matches' running totals, one day row per
match on the day of its last hand (as when a browser's matches join an account), the style
counts from the hands' actions, replayed with the game's rules.

Revision ID: 0005
Revises: 0004
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from datetime import date, datetime
from typing import Any

import sqlalchemy as sa
from alembic import op

from solver.games import get_game, play

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_HANDS = sa.table("hands", sa.column("id"), sa.column("match_id"), sa.column("human_seat"),
                  sa.column("status"), sa.column("finished"), sa.column("forfeited"),
                  sa.column("player_kind"))
_MATCHES = sa.table("matches", *(sa.column(c) for c in (
    "id", "game", "opponent", "account_id", "hands_finished", "seat0_finished", "payoff_sum",
    "payoff_sumsq", "adjusted_n", "adjusted_sum", "adjusted_sumsq", "decisions", "accurate")))
_ACTIONS = sa.table("actions", sa.column("hand_id"), sa.column("seq"), sa.column("action"))
_TOTAL_COLUMNS = ("hands", "seat0", "payoff_sum", "payoff_sumsq", "adjusted_n", "adjusted_sum",
                  "adjusted_sumsq", "decisions", "accurate", "forfeits")
_TOTALS = sa.table("player_totals", *(sa.column(c) for c in (
    "account_id", "game", "kind", *_TOTAL_COLUMNS)))
_DAYS = sa.table("player_days", *(sa.column(c) for c in (
    "account_id", "game", "kind", "day", "hands", "decisions", "accurate")))
_STYLE = sa.table("player_style", *(sa.column(c) for c in (
    "account_id", "game", "kind", "stat", "seat", "count", "out_of")))

_KIND_OF_MATCH = """
    SELECT CASE
        WHEN m.owner IS NULL OR m.player_kind = 'program' THEN 'program'
        WHEN m.account_id IS NULL THEN 'guest'
        WHEN m.created < (SELECT a.created FROM accounts a WHERE a.id = m.account_id)
            THEN 'guest'
        ELSE 'person' END
    FROM matches m WHERE m.id = hands.match_id
"""


def upgrade() -> None:
    op.add_column("hands", sa.Column("player_kind", sa.String(8), nullable=False,
                                     server_default="guest"))
    connection = op.get_bind()
    connection.execute(sa.text(f"UPDATE hands SET player_kind = ({_KIND_OF_MATCH})"))
    changed = connection.execute(sa.text(
        "SELECT DISTINCT m.account_id FROM matches m JOIN hands h ON h.match_id = m.id "
        "WHERE m.account_id IS NOT NULL AND h.player_kind <> m.player_kind")).scalars().all()
    for account_id in changed:
        _count_again(connection, int(account_id))
    op.drop_column("matches", "player_kind")  # SQLite >= 3.35 drops a plain column in place
    op.drop_column("api_keys", "kind")


def _count_again(connection: sa.Connection, account_id: int) -> None:
    """The account's totals, day rows and style counts, from its matches (see the module)."""
    for table in (_TOTALS, _DAYS, _STYLE):
        connection.execute(table.delete().where(table.c.account_id == account_id))
    kind_of = sa.select(_HANDS.c.player_kind).where(_HANDS.c.match_id == _MATCHES.c.id) \
        .limit(1).scalar_subquery()
    last = sa.select(sa.func.max(_HANDS.c.finished)).where(
        _HANDS.c.match_id == _MATCHES.c.id).scalar_subquery()
    forfeits = sa.select(sa.func.count()).where(
        (_HANDS.c.match_id == _MATCHES.c.id) & _HANDS.c.forfeited).scalar_subquery()
    matches = connection.execute(
        sa.select(_MATCHES, kind_of.label("kind"), last.label("last"),
                  forfeits.label("forfeits"))
        .where((_MATCHES.c.account_id == account_id) & (_MATCHES.c.hands_finished > 0))).all()
    totals: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0] * 10)
    days: dict[tuple[str, str, date], list[float]] = defaultdict(lambda: [0.0] * 3)
    for m in matches:
        board = f"{m.game}@{m.opponent}" if m.opponent else m.game
        amounts = (m.hands_finished, m.seat0_finished, m.payoff_sum, m.payoff_sumsq,
                   m.adjusted_n, m.adjusted_sum, m.adjusted_sumsq, m.decisions, m.accurate,
                   m.forfeits)
        _add(totals[(board, m.kind)], amounts)
        _add(days[(board, m.kind, _day(m.last))], (m.hands_finished, m.decisions, m.accurate))
    _insert(connection, _TOTALS, (
        {"account_id": account_id, "game": board, "kind": kind,
         **{c: _number(c, v) for c, v in zip(_TOTAL_COLUMNS, values, strict=True)}}
        for (board, kind), values in totals.items()))
    _insert(connection, _DAYS, (
        {"account_id": account_id, "game": board, "kind": kind, "day": day,
         "hands": int(hands), "decisions": int(decisions), "accurate": int(accurate)}
        for (board, kind, day), (hands, decisions, accurate) in days.items()))
    _insert(connection, _STYLE, _style(connection, account_id, {m.id: (m.game, m.kind)
                                                                for m in matches}))


def _style(connection: sa.Connection, account_id: int, games: dict[int, tuple[str, str]]
           ) -> Iterable[dict[str, Any]]:
    """The style rows of the finished hands of the matches `games` ({id: (game, kind)})."""
    hands: dict[int, tuple[int, int, list[int]]] = {}
    rows = connection.execute(
        sa.select(_HANDS.c.id, _HANDS.c.match_id, _HANDS.c.human_seat, _ACTIONS.c.action)
        .join_from(_HANDS, _ACTIONS, _ACTIONS.c.hand_id == _HANDS.c.id)
        .where(_HANDS.c.match_id.in_(list(games)) & (_HANDS.c.status == "finished"))
        .order_by(_HANDS.c.id, _ACTIONS.c.seq))
    for hand_id, match_id, seat, action in rows:
        hands.setdefault(hand_id, (match_id, seat, []))[2].append(action)
    summed: dict[tuple[str, str, str, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for match_id, seat, actions in hands.values():
        name, kind = games[match_id]
        try:
            game = get_game(name)
        except (KeyError, ValueError):  # a game this release no longer has: no style
            continue
        for stat, (count, out_of) in game.style_counts(play(game, actions), seat).items():
            _add(summed[(name, kind, stat, seat)], (count, out_of))
    return ({"account_id": account_id, "game": name, "kind": kind, "stat": stat, "seat": seat,
             "count": count, "out_of": out_of}
            for (name, kind, stat, seat), (count, out_of) in summed.items())


def _add(into: list[float], amounts: Iterable[Any]) -> None:
    for i, amount in enumerate(amounts):
        into[i] += amount or 0


def _number(column: str, value: float) -> float | int:
    return value if column.endswith(("_sum", "_sumsq")) else int(value)


def _day(value: Any) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, str):  # SQLite hands a raw column back as text
        return datetime.fromisoformat(value).date()
    return datetime.now().date()


def _insert(connection: sa.Connection, table: sa.TableClause,
            rows: Iterable[dict[str, Any]]) -> None:
    values = list(rows)
    if values:
        connection.execute(table.insert(), values)


def downgrade() -> None:
    op.add_column("api_keys", sa.Column("kind", sa.String(8), nullable=False,
                                        server_default="program"))
    op.add_column("matches", sa.Column("player_kind", sa.String(8), nullable=False,
                                       server_default="person"))
    connection = op.get_bind()
    connection.execute(sa.text(
        "UPDATE matches SET player_kind = 'program' WHERE EXISTS (SELECT 1 FROM hands h "
        "WHERE h.match_id = matches.id AND h.player_kind = 'program')"))
    for table, keys, amounts in (
            (_TOTALS, ("account_id", "game"), _TOTAL_COLUMNS),
            (_DAYS, ("account_id", "game", "day"), ("hands", "decisions", "accurate")),
            (_STYLE, ("account_id", "game", "stat", "seat"), ("count", "out_of"))):
        _guests_as_people(connection, table, keys, amounts)
    op.drop_column("hands", "player_kind")


def _guests_as_people(connection: sa.Connection, table: sa.TableClause, keys: tuple[str, ...],
                      amounts: tuple[str, ...]) -> None:
    """The guests' rows of `table` added to the people's (the earlier release knew no
    guests)."""
    for row in connection.execute(sa.select(table).where(table.c.kind == "guest")).all():
        same = [table.c[k] == getattr(row, k) for k in keys]
        person = sa.and_(*same, table.c.kind == "person")
        added = connection.execute(table.update().where(person).values(
            {a: table.c[a] + getattr(row, a) for a in amounts}))
        guest = sa.and_(*same, table.c.kind == "guest")
        if added.rowcount:
            connection.execute(table.delete().where(guest))
        else:
            connection.execute(table.update().where(guest).values(kind="person"))

"""The store's rows as SQL and text: the statements of the bulk and hot paths, and the JSON
encoding of an information set's labels and probabilities.

The bulk and hot paths bypass SQLAlchemy's per-row parameter/JSON processing (several times
faster on 24k rows); the text written is the same JSON the ORM's JSON columns read and write.
`created` holds SQLAlchemy's ISO text, whose string order is time order.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable
from typing import Any

from strategies.models import SolveRow
from strategies.records import InfosetStrategy, PublicNode, SolveInfo, TracePoint, split_key

SELECT_LATEST = ("SELECT id FROM solves WHERE game = ? AND opponent = ? "
                 "ORDER BY created DESC, id DESC LIMIT 1")
SELECT_GAME = "SELECT game FROM solves WHERE id = ?"
SELECT_LATEST_IDS = ("SELECT (SELECT id FROM solves AS s WHERE s.game = g.game AND s.opponent = "
                     "g.opponent ORDER BY created DESC, id DESC LIMIT 1) "
                     "FROM (SELECT DISTINCT game, opponent FROM solves) AS g")
SELECT_GAMES = "SELECT DISTINCT game FROM solves ORDER BY game"
INFOSET_COLUMNS = "key, player, labels, probabilities, \"values\", value, reach, node"
SELECT_INFOSET = f"SELECT {INFOSET_COLUMNS} FROM infosets WHERE solve_id = ? AND key = ?"
INSERT_INFOSETS = (
    "INSERT INTO infosets (solve_id, key, private, public, player, labels, probabilities, "
    "\"values\", value, reach, node) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
SELECT_INFOSETS = f"SELECT {INFOSET_COLUMNS} FROM infosets WHERE solve_id = ? ORDER BY id"
INSERT_NODES = ("INSERT INTO nodes (solve_id, idx, public, parent, label, kind, actor) "
                 "VALUES (?, ?, ?, ?, ?, ?, ?)")
NODE_COLUMNS = "idx, public, parent, label, kind, actor"
SELECT_BLOBS = "SELECT name, data FROM blobs WHERE solve_id = ?"
SELECT_FIGURES = "SELECT name, data FROM figures WHERE solve_id = ?"


def encode_floats(values: Iterable[float]) -> str:
    """A JSON list of floats; exact (repr round-trips). Rejects NaN and infinities."""
    text = repr(list(map(float, values)))  # "[0.25, 0.75]": valid JSON for finite floats
    if "n" in text:  # "nan", "inf": never part of a finite float's repr
        raise ValueError(f"non-finite probability in {text}")
    return text


def decode_floats(text: str) -> tuple[float, ...]:
    inner = text.strip()[1:-1]
    return tuple(map(float, inner.split(","))) if inner.strip() else ()


def decode_rows(rows: Iterable[Any]) -> list[InfosetStrategy]:
    """Rows of `INFOSET_COLUMNS`, decoded; the few distinct action lists of a game are
    decoded once."""
    labels_of: dict[str, tuple[str, ...]] = {}
    decoded = []
    for row in rows:
        labels = labels_of.get(row[2])
        if labels is None:
            labels = labels_of[row[2]] = tuple(json.loads(row[2]))
        decoded.append(decode_row(row, labels))
    return decoded


def decode_row(row: Any, labels: tuple[str, ...]) -> InfosetStrategy:
    key, player, _labels, probabilities, values, value, reach, node = row
    return InfosetStrategy(key, player, labels, decode_floats(probabilities),
                           decode_floats(values) if values is not None else None, value, reach,
                           node)


def finite_or_none(x: float | None) -> float | None:
    return None if x is None or not math.isfinite(x) else float(x)


def infoset_parameters(solve_id: int, strategy: Iterable[InfosetStrategy]) -> list[tuple[Any, ...]]:
    """The parameters of `INSERT_INFOSETS` for `strategy`'s rows of solve `solve_id`."""
    label_json: dict[tuple[str, ...], str] = {}  # few distinct action lists per game
    rows: list[tuple[Any, ...]] = []
    for s in strategy:
        labels = tuple(s.labels)
        if len(labels) != len(s.probabilities):
            raise ValueError(
                f"infoset {s.key!r}: {len(labels)} labels "
                f"but {len(s.probabilities)} probabilities"
            )
        encoded = label_json.get(labels)
        if encoded is None:
            encoded = label_json[labels] = json.dumps([str(a) for a in labels])
        private, public = split_key(str(s.key))
        values = (None if s.values is None or any(map(math.isnan, s.values))
                  else encode_floats(s.values))
        rows.append((solve_id, str(s.key), private, public, int(s.player), encoded,
                     encode_floats(s.probabilities), values,
                     finite_or_none(s.value), finite_or_none(s.reach), s.node))
    return rows


def node_parameters(solve_id: int, nodes: Iterable[PublicNode]) -> list[tuple[Any, ...]]:
    """The parameters of `INSERT_NODES` for the public tree's `nodes` of solve `solve_id`."""
    return [(solve_id, int(n.idx), n.public, int(n.parent), n.label, n.kind, int(n.actor))
            for n in nodes]


def trace_parameters(solve_id: int, trace: Iterable[TracePoint]) -> list[dict[str, Any]]:
    """The rows of the ``trace`` table for the points of solve `solve_id`."""
    return [{"solve_id": solve_id, "iteration": int(p.iteration), "seconds": float(p.seconds),
             "exploitability": float(p.exploitability), "value": float(p.value)}
            for p in trace]


def page_condition(solve_id: int, *, prefix: str, contains: str, private: str | None,
                   public_prefix: str, node: int | None) -> tuple[str, list[object]]:
    """The WHERE clause (and its parameters) of the infosets of solve `solve_id` that
    `StrategyStore.infoset_page` matches."""
    where = ["solve_id = ?"]
    params: list[object] = [solve_id]
    # Ranges rather than LIKE: they use the indexes, and SQLite's LIKE ignores case.
    for column, start in (("key", prefix), ("public", public_prefix)):
        if start:
            where.append(f"{column} >= ? AND {column} < ?")
            params += [start, start + "\U0010ffff"]
    if private is not None:
        where.append("private = ?")
        params.append(private)
    if node is not None:
        where.append("node = ?")
        params.append(node)
    if contains:
        where.append("instr(key, ?) > 0")
        params.append(contains)
    return " AND ".join(where), params


def solve_info(row: SolveRow) -> SolveInfo:
    return SolveInfo(
        id=row.id,
        game=row.game,
        algorithm=row.algorithm,
        iterations=row.iterations,
        seconds=row.seconds,
        exploitability=row.exploitability,
        value=row.value,
        created=row.created,
        solver_version=row.solver_version,
        abstraction=row.abstraction or "",
        value_ci95=row.value_ci95,
        opponent=row.opponent or "",
        best_reply=(float(row.best_reply[0]), float(row.best_reply[1]))
        if row.best_reply is not None else None,
    )


def newest_opponents(rows: Iterable[SolveRow]) -> list[SolveInfo]:
    """The newest of `rows` (solves of one game's exploitable opponents, newest first) for
    each opponent, the most exploitable first."""
    newest: dict[str, SolveInfo] = {}
    for row in rows:
        newest.setdefault(row.opponent, solve_info(row))
    return sorted(newest.values(), key=lambda info: (-info.exploitability, info.opponent))

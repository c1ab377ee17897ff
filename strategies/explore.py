"""The store's reads for the strategy explorer: a solve's public tree node by node, and its
information sets page by page, both paged by the database (`strategies.store.StrategyStore`
has them)."""

from __future__ import annotations

import threading

from sqlalchemy import Engine

from strategies import sql
from strategies.memo import Memo
from strategies.records import InfosetStrategy, PublicNode
from strategies.tables import TableStrategy


class ExplorerReads:
    """`nodes` and `infoset_page`, on the store's engine, lock and memo."""

    _engine: Engine
    _lock: threading.Lock
    _memo: Memo

    def _solve_id_locked(self, game: str, solve_id: int | None, opponent: str = ""
                         ) -> int | None:
        raise NotImplementedError

    def _tables(self, solve_id: int) -> TableStrategy | None:
        raise NotImplementedError

    def node_count(self, solve_id: int) -> int:
        """How many nodes of its public tree the solve `solve_id` stored (0: none). Counted
        once per solve and remembered (it never changes)."""
        return self._count("nodes", solve_id)

    def infoset_count(self, solve_id: int) -> int:
        """How many information sets the solve `solve_id` stored as rows (0 for a solve
        stored as tables). Counted once per solve and remembered."""
        return self._count("infosets", solve_id)

    def _count(self, table: str, solve_id: int) -> int:
        with self._lock:
            self._memo.revalidate()
            known = self._memo.counts.get((table, solve_id))
        if known is not None:
            return known
        with self._engine.connect() as conn:
            counted = int(conn.exec_driver_sql(
                f"SELECT COUNT(*) FROM {table} WHERE solve_id = ?", (solve_id,)).scalar_one())
        with self._lock:
            self._memo.counts[(table, solve_id)] = counted
        return counted

    def nodes(self, game: str, *, public: str | None = None, parent: int | None = None,
              idx: int | None = None) -> list[PublicNode]:
        """Nodes of the latest solve's public tree of ``game``: those with this ``public`` key,
        the children of node ``parent``, or node ``idx`` (by index order). Empty if the game
        has no solve or the solve stored no tree."""
        with self._lock:
            sid = self._solve_id_locked(game, None)
        if sid is None:
            return []
        column, wanted = (("public", public) if public is not None else
                          ("parent", parent) if parent is not None else ("idx", idx))
        with self._engine.connect() as conn:
            rows = conn.exec_driver_sql(
                f"SELECT {sql.NODE_COLUMNS} FROM nodes WHERE solve_id = ? AND {column} = ? "
                "ORDER BY idx", (sid, wanted)).fetchall()
        return [PublicNode(*row) for row in rows]

    def infoset_page(
        self,
        game: str,
        *,
        prefix: str = "",
        contains: str = "",
        private: str | None = None,
        public_prefix: str = "",
        node: int | None = None,
        offset: int = 0,
        limit: int | None = None,
    ) -> tuple[int, list[InfosetStrategy]]:
        """How many infosets of the latest solve of ``game`` match, and those of them from
        ``offset`` on (at most ``limit``), in the solver's order. A key matches if it starts
        with ``prefix`` and contains ``contains``, its private part is ``private`` (any if
        None), its public part starts with ``public_prefix`` and it belongs to public ``node``
        (any if None). Paged by the database: a page of a big solve costs a page, not the
        solve. (0, []) if the game has no solve."""
        with self._lock:
            sid = self._solve_id_locked(game, None)
        if sid is None:
            return 0, []
        table = self._tables(sid)
        if table is not None:  # a table solve has no public tree: no key is in a node
            if node is not None:
                return 0, []
            total, found = table.page(prefix=prefix, contains=contains, private=private,
                                      public_prefix=public_prefix, offset=max(0, offset),
                                      limit=limit)
            return total, [InfosetStrategy(key, part.player, part.labels, probabilities)
                           for key, part, probabilities in found]
        condition, params = sql.page_condition(sid, prefix=prefix, contains=contains,
                                                private=private, public_prefix=public_prefix,
                                                node=node)
        everything = not (prefix or contains or public_prefix) and private is None \
            and node is None
        known = self.infoset_count(sid) if everything else None  # counted once per solve
        with self._engine.connect() as conn:
            total = known if known is not None else conn.exec_driver_sql(
                f"SELECT COUNT(*) FROM infosets WHERE {condition}", tuple(params)).scalar_one()
            rows = conn.exec_driver_sql(
                f"SELECT {sql.INFOSET_COLUMNS} FROM infosets WHERE {condition} "
                "ORDER BY id LIMIT ? OFFSET ?",
                (*params, -1 if limit is None else max(0, limit), max(0, offset))).fetchall()
        return int(total), sql.decode_rows(rows)

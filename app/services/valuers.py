"""The value function of each game's solve, built once per solve in a process
(`solver.evaluation.values`): what the analysis of a finished hand reads."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from app.services.errors import StrategyUnavailableError
from app.services.reply_values import ReplyValues
from app.services.strategy_source import StrategySource
from solver.evaluation.values import HandValuer, valuer_for
from solver.evaluation.values.tree import TreeValues
from solver.games import Game
from strategies import StoreError

log = logging.getLogger("app.analysis")

QUICK_NODES = 1_000
"""The largest public tree whose hands are analysed in the request that ends them: a tree of
465 nodes takes about 5 ms of CPU a hand, one of 1,198 about 30 and one of 8,191 about 65 (the
README names the games)."""


class Valuers:
    """The value function of each game's latest solve, built once per solve in this process.
    A value function keeps caches, so one thread at a time uses it (`using`)."""

    def __init__(self, source: StrategySource) -> None:
        self.source = source
        self._lock = threading.Lock()
        self._locks: dict[str, threading.Lock] = {}
        self._built: dict[str, tuple[int, HandValuer | None]] = {}

    @contextmanager
    def using(self, game: Game, opponent: str = "") -> Iterator[HandValuer | None]:
        """The game's value function, for this thread alone while the block runs; None if
        its solve has none (or none can be built now). Against an exploitable `opponent`,
        the best reply's values from its stored solve (`ReplyValues`: no cache to guard)."""
        if opponent:
            yield ReplyValues(self.source, game, opponent)
            return
        try:
            info = self.source.solve(game.name)
        except StrategyUnavailableError:
            yield None
            return
        with self._lock:
            lock = self._locks.setdefault(game.name, threading.Lock())
        with lock:
            built = self._built.get(game.name)
            if built is None or built[0] != info.id:
                try:
                    valuer: HandValuer | None = valuer_for(game, info, self.source.store())
                except (ValueError, StoreError, StrategyUnavailableError) as exc:
                    log.warning("no analysis of %s hands: %s", game.name, exc)
                    valuer = None
                built = (info.id, valuer)
                self._built[game.name] = built
            yield built[1]

    def quick(self, game: Game, opponent: str = "") -> bool:
        """True where a hand is analysed in a few milliseconds: in the request that finishes
        it. That is a game solved exactly on a small tree (`QUICK_NODES`), or a match against
        an exploitable opponent (stored values); the passes over a bigger tree take tens of
        milliseconds (about 30 and 65 of CPU for trees of 1,198 and 8,191 nodes)."""
        if opponent:
            return True
        try:
            info = self.source.solve(game.name)
        except StrategyUnavailableError:
            return False
        if info.abstraction:
            return False
        with self.using(game) as valuer:
            return isinstance(valuer, TreeValues) and valuer.tree.num_nodes <= QUICK_NODES

"""The value function of each game's solve, built once per solve in a process
(`solver.evaluation.values`): what the analysis of a finished hand reads."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from app.core.errors import StrategyUnavailableError
from app.services.bots.reply_values import ReplyValues
from app.services.bots.strategy_source import StrategySource
from solver.evaluation.values import HandValuer, valuer_for
from solver.games import Game
from strategies import SolveInfo, StoreError

log = logging.getLogger("app.analysis")

QUICK_NODES = 1_000
"""The largest public tree whose hands are analysed in the request that ends them: a tree of
about 500 nodes takes about 5 ms of CPU a hand, one of about 1,200 about 30 and one of about
8,000 about 65, and its value function is built in a few milliseconds."""


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
        """The game's value function, for this thread alone while the block runs (built here
        if need be: seconds for a big game, so never on a request); None if its solve has
        none (or none can be built now). Against an exploitable `opponent`, the best reply's
        values from its stored solve (`ReplyValues`: no cache to guard)."""
        if opponent:
            yield ReplyValues(self.source, game, opponent)
            return
        try:
            info = self.source.solve(game.name)
        except StrategyUnavailableError:
            yield None
            return
        with self._lock_of(game.name):
            yield self._built_locked(game, info)

    @contextmanager
    def at_once(self, game: Game, opponent: str = "") -> Iterator[HandValuer | None]:
        """A value function that analyses a hand in a few milliseconds, for the request that
        finishes it: against an exploitable `opponent` (stored values), or of a game solved
        exactly on a small public tree (`QUICK_NODES`, known from the stored tree before
        anything is compiled). None otherwise, and while another thread is using it: this
        never waits, and never builds more than a small tree on a request (the hand is then
        analysed after the answer, `app.services.analysis.analyse`)."""
        if opponent:
            yield ReplyValues(self.source, game, opponent)
            return
        try:
            info = self.source.solve(game.name)
            nodes = 0 if info.abstraction else self.source.node_count(info.id)
        except StrategyUnavailableError:
            yield None
            return
        lock = self._lock_of(game.name)
        if not 0 < nodes <= QUICK_NODES or not lock.acquire(blocking=False):
            yield None
            return
        try:
            yield self._built_locked(game, info)
        finally:
            lock.release()

    def _lock_of(self, game: str) -> threading.Lock:
        with self._lock:
            return self._locks.setdefault(game, threading.Lock())

    def _built_locked(self, game: Game, info: SolveInfo) -> HandValuer | None:
        """The value function of the solve `info`, built if need be; the game's lock held."""
        built = self._built.get(game.name)
        if built is None or built[0] != info.id:
            try:
                valuer: HandValuer | None = valuer_for(game, info, self.source.store())
            except (ValueError, StoreError, StrategyUnavailableError) as exc:
                log.warning("no analysis of %s hands: %s", game.name, exc)
                valuer = None
            built = (info.id, valuer)
            self._built[game.name] = built
        return built[1]

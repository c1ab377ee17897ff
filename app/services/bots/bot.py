"""The bot: what it would play at a position, as probabilities over the legal actions.

The play services are handed a `Bot` and never look behind it, so a test can give them a bot
of its own (one that always raises, one whose store fails) instead of patching private
functions. The bot of the app reads the stored equilibrium of the game; a match against an
exploitable opponent is played by `for_match`'s bot, and its human judged against the best
reply to that bot (`app.services.bots.reply_values`).
"""

from __future__ import annotations

import logging
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from app.core.errors import StrategyUnavailableError
from app.services.bots.reply_values import opponent_row, opponent_solve
from app.services.bots.strategy_source import BUILD_HINT, StrategySource
from app.services.bots.valuers import Valuers
from solver.abstractions import abstraction_for
from solver.abstractions.play_time import ComputedAtPlayTime
from solver.games import LISTED_AMOUNTS, Game, State, get_view, legal_labels
from strategies.tables import TableStrategy

log = logging.getLogger("app.bot")


@dataclass(frozen=True, slots=True)
class Policy:
    """Probabilities over the labels of the legal actions (in the game's order; where they are
    more than a list names one by one, thousands of no-limit sizes, only those the bot may
    play: `LISTED_AMOUNTS`), and what each action is worth to the player to move when both go
    on with the stored profile: Q(I, a) in `values` and V(I) in `value`, where the solve knows
    them (`solver.algorithms.action_values`)."""

    labels: tuple[str, ...]
    probabilities: tuple[float, ...]
    values: tuple[float, ...] | None = None
    value: float | None = None

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.labels, self.probabilities, strict=True))


class Bot(Protocol):
    def policy(self, game: Game, state: State) -> Policy:
        """The strategy at the information set of the player to move in `state`;
        `StrategyUnavailableError` if there is none the bot can use."""
        ...

    def value(self, game: Game) -> float | None:
        """Seat 0's expected payoff when both play the bot's profile (None if unknown)."""
        ...


def solve_figures(bot: Bot, game: Game) -> Mapping[str, Any]:
    """The figures stored with the solve of `game` that the app's bot plays, for the views
    (those the game needs: `GameView.required_figures`); none for a bot of a test, a game that
    needs none, or while the store is unavailable."""
    source = getattr(bot, "source", None)
    if not isinstance(source, StrategySource) or not get_view(game.name).required_figures:
        return {}
    try:
        info = source.latest_solve(game.name)
        return source.figures(info.id) if info is not None else {}
    except StrategyUnavailableError:
        return {}


def valuers_of(bot: Bot) -> Valuers | None:
    """The value functions of a bot that has them (the app's; a test's own bot has none, and
    its hands are then not analysed)."""
    valuers = getattr(bot, "valuers", None)
    return valuers if isinstance(valuers, Valuers) else None


class StoredStrategyBot:
    """Plays the latest stored solve of each game, checked against the legal actions. A game
    solved in an abstraction is played by looking its strategy up under the abstract key of
    the position (`solver.abstractions`).

    Its messages never name the information set: the key holds the private cards of the
    player to move, which may be the bot's."""

    def __init__(self, source: StrategySource) -> None:
        self.source = source
        self.valuers = Valuers(source)
        """What each decision was worth under this bot's strategy
        (`app.services.analysis.analyse`)."""

    def value(self, game: Game) -> float | None:
        return self.source.solve(game.name).value

    def policy(self, game: Game, state: State) -> Policy:
        info = self.source.solve(game.name)
        try:
            abstraction = abstraction_for(game, info.abstraction)
        except ValueError as exc:
            raise StrategyUnavailableError(f"the stored solve of {game.name!r} cannot be played: "
                                           f"{exc}") from None
        if isinstance(abstraction, ComputedAtPlayTime):
            return self._computed(game, state, abstraction)
        key = abstraction.strategy_key(state, state.current_player())
        row = self.source.infoset(game.name, key)
        if row is None:
            log.error("the stored %s strategy has no information set %r", game.name, key)
            raise StrategyUnavailableError(
                f"the stored strategy for {game.name!r} does not cover this position; it does "
                f"not match the game: {BUILD_HINT} again")
        legal = legal_labels(state)
        if sorted(row.labels) != sorted(legal) or not math.fsum(row.probabilities) > 0:
            log.error("stored %s strategy at %r: %s %s, legal %s", game.name, key, row.labels,
                      row.probabilities, legal)
            raise StrategyUnavailableError(
                f"the stored strategy for {game.name!r} does not match the game's actions: "
                f"{BUILD_HINT} again")
        return Policy(row.labels, row.probabilities, row.values, row.value)

    def _table(self, game: Game) -> TableStrategy:
        table = self.source.table_strategy(game.name)
        if table is None:
            log.error("the stored solve of %s in %s has no tables", game.name, self.source.path)
            raise StrategyUnavailableError(
                f"the stored solve of {game.name!r} has no tables to play from: {BUILD_HINT} "
                f"again")
        return table

    def _computed(self, game: Game, state: State, abstraction: ComputedAtPlayTime) -> Policy:
        """A strategy computed now from the stored tables (a bot that re-solves): the same
        call serves the bot's move, the hint and the coach."""
        table = self._table(game)
        try:
            probabilities = abstraction.play_time_policy(state, table)
        except ValueError as exc:
            log.error("computing the %s strategy failed: %s", game.name, exc)
            raise StrategyUnavailableError(
                f"the stored solve of {game.name!r} cannot be played: {BUILD_HINT} again"
            ) from None
        actions = state.legal_actions()
        every = len(actions) <= LISTED_AMOUNTS
        kept = [(a, p) for a, p in zip(actions, probabilities, strict=True) if every or p > 0]
        return Policy(tuple(state.action_label(a) for a, _ in kept), tuple(p for _, p in kept))

    def computed_policies(self, game: Game, states: Sequence[State],
                          abstraction: ComputedAtPlayTime) -> list[tuple[float, ...]]:
        """`_computed`'s probabilities for positions that differ only in the private cards of
        the player to move, in one computation (the explorer's grid)."""
        table = self._table(game)
        try:
            return abstraction.play_time_policies(states, table)
        except ValueError as exc:
            log.error("computing the %s strategy failed: %s", game.name, exc)
            raise StrategyUnavailableError(
                f"the stored solve of {game.name!r} cannot be played: {BUILD_HINT} again"
            ) from None

class OpponentBot:
    """Plays an exploitable opponent of a game (`solver.runs.opponents`): the latest stored
    solve of that opponent.  Its rows carry the bot's own probabilities and, as values, what
    each action is worth to the player to move followed by the best reply to the bot (what
    the coach judges the player against: `app.services.bots.reply_values`)."""

    def __init__(self, source: StrategySource, opponent: str) -> None:
        self.source = source
        self.opponent = opponent

    def value(self, game: Game) -> float | None:
        return opponent_solve(self.source, game, self.opponent).value

    def policy(self, game: Game, state: State) -> Policy:
        info = opponent_solve(self.source, game, self.opponent)
        row = opponent_row(self.source, game, self.opponent, info, state)
        return Policy(row.labels, row.probabilities, row.values, row.value)


def for_match(bot: Bot, opponent: str) -> Bot:
    """The bot that plays a match against `opponent` (empty: the game's equilibrium, `bot`
    itself)."""
    if not opponent:
        return bot
    if isinstance(bot, StoredStrategyBot):
        return OpponentBot(bot.source, opponent)
    raise StrategyUnavailableError(f"this server's bot plays no opponent {opponent!r}")

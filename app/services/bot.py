"""The bot: what it would play at a position, as probabilities over the legal actions.

The play services are handed a `Bot` and never look behind it, so a test can give them a bot
of its own (one that always raises, one whose store fails) instead of patching private
functions. The bot of the app reads the stored equilibrium of the game.
"""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass
from typing import Protocol

from app.services.errors import StrategyUnavailableError
from app.services.strategy_source import BUILD_HINT, StrategySource
from app.services.valuers import Valuers
from solver.abstractions import abstraction_for
from solver.games import Game, State, legal_labels

log = logging.getLogger("app.bot")


@dataclass(frozen=True, slots=True)
class Policy:
    """Probabilities over the labels of the legal actions (in the game's order), and what each
    action is worth to the player to move when both go on with the stored profile: Q(I, a) in
    `values` and V(I) in `value`, where the solve knows them (`solver.algorithms.action_values`)."""

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
        """What each decision was worth under this bot's strategy (`app.services.analysis`)."""

    def value(self, game: Game) -> float | None:
        return self.source.solve(game.name).value

    def policy(self, game: Game, state: State) -> Policy:
        info = self.source.solve(game.name)
        try:
            abstraction = abstraction_for(game, info.abstraction)
        except ValueError as exc:
            raise StrategyUnavailableError(f"the stored solve of {game.name!r} cannot be played: "
                                           f"{exc}") from None
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

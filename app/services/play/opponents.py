"""Whom a match is played against: the game's equilibrium, or one of its exploitable opponents
in the strategy store (`solver.runs.opponents`), each with what a best reply wins against it.

The app names no game: an opponent's title comes from its kind (an early solve, after so many
iterations of its algorithm) or from the game's own styles (`solver.games.opponents`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from app.core.errors import NotFoundError, StrategyUnavailableError
from app.schemas import OpponentOut
from app.services.analysis.results import Interval, Stats, signed
from app.services.bots.strategy_source import StrategySource
from app.services.bots.strength import bot_nature, equilibrium_title
from app.services.bots.strength import exploitability as measured_exploitability
from solver.algorithms.names import describe_algorithm
from solver.games import get_game
from solver.games.opponents import THINKING, Styled
from strategies import SolveInfo

EQUILIBRIUM = "equilibrium"
"""What the API calls the game's equilibrium as an opponent (stored as an empty name)."""
EARLY = "early"


@dataclass(frozen=True, slots=True)
class Chosen:
    name: str
    """As the API names it."""
    stored: str
    """As a match keeps it: empty for the equilibrium."""


def describe(game: str, info: SolveInfo | None, stored: str) -> OpponentOut:
    """`info` (the equilibrium's solve if `stored` is empty, else the opponent's) in words."""
    exploitability = measured_exploitability(info) if info is not None else None
    seats = list(info.best_reply) if info is not None and info.best_reply else None
    if not stored:
        nature = bot_nature(info) if info is not None else None
        return OpponentOut(
            name=EQUILIBRIUM, kind="equilibrium", title=equilibrium_title(info),
            description=(f"The game's solved strategy. {nature.summary}" if nature is not None
                         else "The game's solved strategy (its solve is no longer stored)."),
            exploitability=exploitability, best_reply_by_seat=seats,
            iterations=info.iterations if info is not None else None,
            measured=nature.measured if nature is not None else None)
    if stored.startswith(EARLY) and info is not None:
        return OpponentOut(
            name=stored, kind="early",
            title=f"Early solve {stored.removeprefix(EARLY)}: {info.iterations} iterations",
            description=f"What the solver had learnt after {info.iterations} iterations of "
            f"{describe_algorithm(info.algorithm)}: its average strategy then.",
            exploitability=exploitability, best_reply_by_seat=seats,
            iterations=info.iterations)
    thinking = THINKING.get(stored)
    if thinking is not None:
        return OpponentOut(
            name=stored, kind="thinking", title=thinking.title,
            description=thinking.description, exploitability=exploitability,
            best_reply_by_seat=seats, iterations=None)
    played = get_game(game)
    styles = {s.name: s for s in played.opponent_styles} if isinstance(played, Styled) else {}
    style = styles.get(stored)
    return OpponentOut(
        name=stored, kind="styled", title=style.title if style is not None else stored,
        description=(f"The equilibrium bent one way. {style.description}" if style is not None
                     else "The equilibrium bent one way."),
        exploitability=exploitability, best_reply_by_seat=seats, iterations=None)


def game_opponents(source: StrategySource, game: str) -> list[OpponentOut]:
    """The equilibrium, then the stored exploitable opponents (the most exploitable first);
    none without a solve or a store."""
    try:
        info = source.latest_solve(game)
        stored = source.opponents(game) if info is not None else []
    except StrategyUnavailableError:
        return []
    if info is None:
        return []
    return [describe(game, info, ""), *(describe(game, o, o.opponent) for o in stored)]


def known_opponent(source: StrategySource, game: str, name: str) -> Chosen:
    """The opponent called `name` (empty or ``equilibrium``: the equilibrium); a
    `NotFoundError` naming the game's opponents if it has none so called (as an unknown game
    is one naming the
    lobby's games: the name is well formed, nothing is called so here)."""
    if name in ("", EQUILIBRIUM):
        return Chosen(EQUILIBRIUM, "")
    if source.opponent(game, name) is None:
        names = [o.name for o in game_opponents(source, game)] or [EQUILIBRIUM]
        raise NotFoundError(f"no opponent {name!r} for {game}; its opponents: "
                                  f"{', '.join(names)}")
    return Chosen(name, name)


@dataclass(frozen=True, slots=True)
class MatchOpponent:
    """The opponent of one match and what a best reply wins against it."""

    stored: str
    info: SolveInfo | None
    game: str

    def out(self) -> OpponentOut | None:
        return describe(self.game, self.info, self.stored) if self.info is not None else None

    @property
    def best_reply_per_hand(self) -> float | None:
        """Seats alternating: the exploitability."""
        if self.info is None or not math.isfinite(self.info.exploitability):
            return None
        return self.info.exploitability

    def best_reply_total(self, seat0_hands: int, seat1_hands: int) -> float | None:
        """What the best reply would win in all over these hands in each seat."""
        if self.info is None:
            return None
        if self.info.best_reply is not None:
            return seat0_hands * self.info.best_reply[0] + seat1_hands * self.info.best_reply[1]
        per_hand = self.best_reply_per_hand
        if per_hand is None or seat0_hands != seat1_hands:
            return None
        return per_hand * (seat0_hands + seat1_hands)

    def target_text(self, reply_total: float | None, stats: Stats, adjusted: Stats,
                    adjusted_interval: Interval, interval: Interval) -> str | None:
        """``A perfect exploiter wins +0.31 per hand here; you are at +0.12 ± 0.05.``"""
        if self.info is None:
            return None
        target = (reply_total / stats.n if reply_total is not None and stats.n
                  else self.best_reply_per_hand)
        if target is None:
            return None
        text = f"A perfect exploiter wins {signed(target)} per hand here"
        if adjusted.n == stats.n and adjusted.mean is not None:
            mean, shown, how = adjusted.mean, adjusted_interval, " without the luck"
        elif stats.mean is not None:
            mean, shown, how = stats.mean, interval, ""
        else:
            return text + "."
        if shown.low is None or shown.high is None:
            return f"{text}; you are at {signed(mean)}{how} so far."
        return (f"{text}; you are at {signed(mean)} ± {(shown.high - shown.low) / 2:.3f}"
                f"{how}.")


def opponent_of_match(source: StrategySource, game: str, stored: str) -> MatchOpponent:
    """A match's opponent with its solve (None if the store has it no longer or is down)."""
    try:
        info = source.opponent(game, stored) if stored else source.latest_solve(game)
    except StrategyUnavailableError:
        info = None
    return MatchOpponent(stored, info, game)

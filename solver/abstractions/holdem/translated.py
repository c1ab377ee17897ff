"""The abstraction kind ``translated``: a no-limit blueprint, solved in a bet abstraction, playing
the real game (every size) by action translation.

A solve stored with the descriptor ``translated=hist=k:1024,1024,1024 in holdem(betting=nolimit,
maxRaises=4 3 2 2,bettingAbstraction=...)`` holds the tables of the blueprint solved in the
abstract game the spec names (the member's own rules but for the raise sizes and caps), with
those buckets.  At play time the bot reads the real betting as its own game's: each raise of the
opponent as one or two of the sizes it knows (`solver.abstractions.holdem.translation`,
randomised), each of its own moves as the abstract moves that stand for it.  The probability it
gives a real action is then the weighted mean, over the readings, of what each reading plays,
each weighted by the translation's chances and by the bot's own probabilities of the moves it
made in that reading: the behaviour of the randomised bot, computed without keeping any state
between requests (the same behaviour `solver.evaluation.holdem.translation_cost` works out for
a whole small game, which a test checks this against).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TypeVar

import numpy as np
from numpy.typing import NDArray

from solver.abstractions import register_kind
from solver.abstractions.holdem.blueprint_betting import IN
from solver.abstractions.holdem.blueprint_betting import TRANSLATED as KIND
from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.buckets import abstract_key, bucket_counts
from solver.abstractions.holdem.percentiles import (
    Percentiles,
    bucket_text,
    deal_codes,
    hand_codes,
    table_spec,
)
from solver.abstractions.holdem.translation import Translation, own_moves
from solver.abstractions.words import AbstractionText
from solver.games.base import Game, State
from solver.games.holdem.betting import CALL, Betting, history
from solver.games.holdem.game import HoldemState
from solver.games.holdem.policy import slot_of
from solver.games.holdem.rules import HoldemRules, parse
from strategies import StrategyStore
from strategies.tables import TableStrategy

FloatArray = NDArray[np.float64]
Own = Callable[[Betting], Mapping[int, FloatArray]]
"""The bot's probabilities of its own game's actions at one of its readings, per hand."""
RANDOMISED = Translation()
Key = TypeVar("Key", Betting, int)


def _aside(mine: Betting, real: Betting) -> bool:
    """True where the bot's reading `mine` has no move for the player to act at `real`: it
    thinks the betting over, the other player to act, or the round closed (a raise beyond its
    caps read as a call).  It then checks or calls, and reads nothing in."""
    return mine.over or mine.player != real.player or mine.round != real.round


def readings(real: Betting, abstract: HoldemRules, seat: int, own: Own, hands: int,
             translation: Translation) -> dict[Betting, FloatArray]:
    """The bot's readings of the real betting `real` in its own game, each with its weight per
    hand: the translation's chances of the reading times the bot's probabilities of the moves
    it made in it (see the module)."""
    now: dict[Betting, FloatArray] = {Betting.start(abstract): np.ones(hands)}
    position = Betting.start(real.rules)
    for action in history(real):
        after: dict[Betting, FloatArray] = {}
        for mine, weight in now.items():
            if _aside(mine, position):
                if position.player != seat or action == CALL:
                    _add(after, mine, weight)
            elif position.player != seat:
                for read, p in translation.read(position, action, mine):
                    _add(after, mine.apply(read), weight * p)
            else:
                probabilities = own(mine)
                for move in own_moves(position, mine).get(action, ()):
                    _add(after, mine.apply(move), weight * probabilities[move])
        now = after
        position = position.apply(action)
    return now


def translated_moves(real: Betting, abstract: HoldemRules, own: Own, hands: int,
                     translation: Translation) -> tuple[tuple[int, ...], FloatArray]:
    """The real actions the bot may take at `real` (the player to act's), in the order of the
    legal actions, and each hand's probability of each (rows). Only the few actions a reading
    plays are touched: a real position may have thousands of sizes."""
    seat = real.player
    columns: dict[int, FloatArray] = {}
    for mine, weight in readings(real, abstract, seat, own, hands, translation).items():
        if _aside(mine, real):
            _add(columns, CALL, weight)
            continue
        probabilities = own(mine)
        for real_action, actions in own_moves(real, mine).items():
            for move in actions:
                _add(columns, real_action, weight * probabilities[move])
    if not columns:  # no reading: the bot never plays its own moves this way
        legal = real.legal_actions()
        return legal, np.full((hands, len(legal)), 1.0 / len(legal))
    actions = tuple(sorted(columns))
    total = np.stack([columns[a] for a in actions], axis=1)
    mass = total.sum(axis=1, keepdims=True)
    reached = mass[:, 0] > 0
    total[reached] /= mass[reached]
    total[~reached] = 1.0 / len(actions)
    return actions, total


def translated_rows(real: Betting, abstract: HoldemRules, own: Own, hands: int,
                    translation: Translation) -> FloatArray:
    """`translated_moves` over every legal action of `real` (columns in their order)."""
    legal = real.legal_actions()
    actions, rows = translated_moves(real, abstract, own, hands, translation)
    total = np.zeros((hands, len(legal)))
    total[:, [legal.index(a) for a in actions]] = rows
    return total


class Translated:
    """The `solver.abstractions.Abstraction` of a no-limit blueprint played by translation."""

    def __init__(self, rules: HoldemRules, abstract: HoldemRules, buckets: str,
                 translation: Translation = RANDOMISED) -> None:
        if not rules.no_limit or replace(abstract, bets=None, max_raises=rules.max_raises) != (
                rules.with_bets(None)):
            raise ValueError(f"a translated blueprint's game is the member's own with a bet "
                             f"abstraction and raise caps: {abstract.spec} is not one of "
                             f"{rules.spec}")
        self.rules = rules
        self.abstract = abstract
        self.translation = translation
        self.blueprint = Percentiles(abstract, table_spec(buckets))
        self.descriptor = f"{KIND}={buckets}{IN}{abstract.spec}"

    def __repr__(self) -> str:
        return f"Translated({self.descriptor!r})"

    def own(self, table: TableStrategy, holes: NDArray[np.int64], board: tuple[int, ...]
            ) -> Own:
        """The blueprint's probabilities at any reading, for `holes` with `board`."""
        holes = np.asarray(holes, np.int64).reshape(-1, self.rules.hole_cards)
        return self.own_dealt(table, holes, np.broadcast_to(
            np.array(board, np.int64), (len(holes), len(board))))

    def own_dealt(self, table: TableStrategy, holes: NDArray[np.int64],
                  boards: NDArray[np.int64]) -> Own:
        """`own` with each row of `holes` on its own board (the rows of `boards`), so that one
        walk of the readings serves every card still to come."""
        bot = HulheBot("blueprint", self.abstract, self.blueprint.spec, table)
        codes: dict[int, NDArray[np.int64]] = {}  # per round: every reading shares the hands'

        def own(mine: Betting) -> Mapping[int, FloatArray]:
            if mine.round not in codes:
                need = self.abstract.board_dealt(mine.round)
                if boards.shape[1] < need:
                    raise ValueError(f"round {mine.round} needs {need} board cards, not "
                                     f"{boards.shape[1]}")
                codes[mine.round] = deal_codes(self.abstract, self.blueprint.spec, mine.round,
                                               np.hstack([holes, boards[:, :need]]))
            rows = bot.bucket_probabilities(mine)[codes[mine.round]]
            return {a: rows[:, slot_of(mine, a)] for a in mine.legal_actions()}
        return own

    def _check(self, state: State) -> HoldemState:
        if not isinstance(state, HoldemState) or state.game.definition != self.rules:
            raise ValueError(f"not a position of {self.rules.spec}")
        return state

    def strategy_key(self, state: State, player: int) -> str:
        """The blueprint's key at a reading of the position, each raise read as the nearer
        size (what the explorer shows)."""
        state = self._check(state)
        mine = _readings_without_tables(state.betting, self.abstract, player,
                                        Translation(randomised=False))[0]
        hole = np.array([state.hole(player)], np.int64)
        code = int(hand_codes(self.abstract, self.blueprint.spec, mine.round, hole,
                              state.board())[0])
        return abstract_key(bucket_text(self.abstract, mine.round, code), mine.rounds)

    def play_time_policy(self, state: State, table: TableStrategy) -> tuple[float, ...]:
        """The probabilities of the legal actions (in the state's order) of the player to
        move."""
        return self.play_time_policies([state], table)[0]

    def play_time_policies(self, states: Sequence[State], table: TableStrategy
                           ) -> list[tuple[float, ...]]:
        """`play_time_policy` of positions that differ only in the hole cards of the player to
        move, in one walk of the readings."""
        if not states:
            return []
        first = self._check(states[0])
        player = first.current_player()
        holes = np.array([self._check(s).hole(player) for s in states], np.int64)
        rows = translated_rows(first.betting, self.abstract,
                               self.own(table, holes, first.board()), len(states),
                               self.translation)
        return [tuple(row) for row in rows.tolist()]


class TranslatedPolicy:
    """The translating bot as the evaluations play it (`solver.games.holdem.policy`): for a
    whole range at once, naming only the real actions it may take (`SparsePolicy`), or a
    column per legal action where there are few (`HoldemPolicy`, for exact evaluation of a
    small member)."""

    def __init__(self, name: str, translated: Translated, table: TableStrategy) -> None:
        self.name, self.translated, self.table = name, translated, table

    @classmethod
    def from_store(cls, game: Game, store_path: str | None = None) -> TranslatedPolicy:
        """The latest solve of `game` in the store, which must be a translated blueprint."""
        with StrategyStore.open(store_path) as store:
            info = store.latest_solve(game.name)
            table = store.table_strategy(game.name)
        if info is None or table is None or not (info.abstraction or "").startswith(KIND):
            raise ValueError(f"no translated blueprint of {game.name!r} in the store: run "
                             f"`python -m solver hulhe --game {game.name}`")
        return cls(f"{game.name}-solve-{info.id}",
                   parse_translated(game, info.abstraction.partition("=")[2]), table)

    def sparse_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]
                             ) -> tuple[tuple[int, ...], FloatArray]:
        bot = self.translated
        holes = np.asarray(holes, np.int64).reshape(-1, bot.rules.hole_cards)
        return translated_moves(betting, bot.abstract, bot.own(self.table, holes, board),
                                len(holes), bot.translation)

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> FloatArray:
        actions, rows = self.sparse_probabilities(betting, board, holes)
        legal = betting.legal_actions()
        out = np.zeros((len(rows), 1 + slot_of(betting, legal[-1])))
        out[:, [slot_of(betting, a) for a in actions]] = rows
        return out


def _readings_without_tables(real: Betting, abstract: HoldemRules, seat: int,
                             translation: Translation) -> list[Betting]:
    """The bot's readings of `real` whatever it would have played (every own move that stands
    for the real one kept)."""
    def anything(mine: Betting) -> Mapping[int, FloatArray]:
        return {a: np.ones(1) for a in mine.legal_actions()}
    return list(readings(real, abstract, seat, anything, 1, translation))


def _add(into: dict[Key, FloatArray], mine: Key, weight: FloatArray) -> None:
    into[mine] = into[mine] + weight if mine in into else weight


def parse_translated(game: Game, parameters: str) -> Translated:
    """``hist=k:1024,1024,1024 in holdem(betting=nolimit,...)``."""
    rules = getattr(game, "definition", None)
    if not isinstance(rules, HoldemRules):
        raise ValueError(f"translated is a no-limit hold'em blueprint, not one of "
                         f"{game.name!r}")
    return translated_for(rules, parameters)


def translated_for(rules: HoldemRules, parameters: str) -> Translated:
    """`parse_translated` for the member's rules."""
    buckets, sep, abstract = parameters.partition(IN)
    if not sep:
        raise ValueError(f"translated is a no-limit hold'em blueprint, written '<buckets> in "
                         f"<its abstract game>', not {parameters!r}")
    return Translated(rules, parse(abstract), buckets)


DEFAULT_HUNL = ("hist=k:1024,1024,1024 in holdem(betting=nolimit,maxRaises=4 3 2 2,"
                "bettingAbstraction=0.5p p a;p a/0.5p p a;p a/p a;a)")
"""The default 200-big-blind blueprint's descriptor parameters (`python -m solver hulhe --game
hunl`)."""

MEASURED = {
    DEFAULT_HUNL:
        "Its exploitability cannot be computed exactly. Local best response (LBR), which gives "
        "a lower bound on it, won 2,514 ± 294 mbb/hand against the default build (18,800 "
        "boards in 51 minutes) with pot and all-in bets on the turn and river, where it won "
        "4,020 ± 115 against Slumbot 2016 (Lisý & Bowling 2017); it beats a calling station, "
        "a pot bettor, an all-in shover and a hand-strength player (docs/games/no-limit.md).",
}
"""What was measured offline of a stored blueprint (`python -m solver evaluate-holdem`)."""


def describe_translated(parameters: str) -> AbstractionText:
    buckets, _, abstract = parameters.partition(IN)
    spec = table_spec(buckets)
    bets = parse(abstract).bets
    sizes = bets.text if bets is not None else "every size"
    return AbstractionText(
        f"a blueprint solved with a few bet sizes ({sizes}, as fractions of the pot) and its "
        f"hands in buckets of similar strength ({bucket_counts(spec.k)}); a bet of another "
        f"size it reads as one of the two nearest it knows, at random in proportion to how "
        f"near (pseudo-harmonic action translation)",
        MEASURED.get(parameters, "Its exploitability cannot be computed exactly and was not "
                                 "measured."),
        "a few bet sizes, and hands grouped by strength")


register_kind(KIND, parse_translated, describe_translated)

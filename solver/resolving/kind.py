"""The abstraction kind ``resolving``: a stored blueprint whose strategy, from a chosen round on,
is computed at play time by the re-solving bot (`solver.resolving.resolving_bot`).

A solve stored with the descriptor
``resolving=from:4;mode:maxmargin;iterations:200;blueprint:ehs2=k:128,128,128`` holds the
blueprint's tables (`strategies.tables`) as a table solve of kind ``ehs2`` does; the descriptor
says that the bot plays them up to round ``from`` (1-based) and re-solves from there.  The app
stays game-agnostic: an abstraction that has `play_time_policy` is asked for the probabilities
themselves, with the solve's tables, instead of a key to look up; the bot, the hint and the
coach all go through that one call, so what a page shows is what the bot plays.

One `ResolvingBot` is kept per stored solve (by the identity of its tables), so its re-solves
are reused across requests for the same public state.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from solver.abstractions import describe, register_kind
from solver.abstractions.holdem.blueprint_betting import TRANSLATED
from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.percentiles import Percentiles, table_spec
from solver.abstractions.holdem.sampled_cfr import DEFAULT_SPEC
from solver.abstractions.holdem.translated import (
    DEFAULT_HUNL,
    Translated,
    TranslatedPolicy,
    translated_for,
)
from solver.abstractions.words import AbstractionText
from solver.games.base import Game, State
from solver.games.holdem.game import HoldemState
from solver.games.holdem.policy import AnyPolicy, HoldemPolicy, answer
from solver.games.holdem.rules import HoldemRules
from solver.resolving.no_limit_bot import NoLimitResolvingBot
from solver.resolving.resolve import MODES
from solver.resolving.resolving_bot import ResolvingBot
from strategies.tables import TableStrategy

KIND = "resolving"


@dataclass(frozen=True, slots=True)
class ResolvingSpec:
    """The re-solving bot's settings and its blueprint's descriptor."""

    from_round: int = 4  # 1-based
    mode: str = "maxmargin"
    iterations: int = 200
    blueprint: str = DEFAULT_SPEC.descriptor
    turn: int | None = None
    """Iterations of a turn re-solve in the turn's own layout
    (`solver.resolving.turn_subgame`); None: the general layout, `iterations`."""
    sample: int = 0
    """River cards a turn iteration plays (0: all of them)."""
    warm: float = 0.0
    """> 0: a turn re-solve starts from the blueprint (`resolve_turn`'s `warm`)."""
    guard: bool = False
    """A turn re-solve is played only where it gives up no weighted margin
    (`ResolvingBot.turn_guard`)."""

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"re-solving modes are {', '.join(MODES)}, not {self.mode!r}")
        if self.from_round < 2 or self.iterations < 1 or (self.turn is not None
                                                          and self.turn < 1):
            raise ValueError("re-solving starts in round 2 or later, with at least one "
                             "iteration")
        if self.warm < 0:
            raise ValueError(f"a turn re-solve's warm start is 0 (none) or more, not "
                             f"{self.warm}")
        if self.sample < 0:
            raise ValueError(f"a turn iteration samples 0 (all) or more river cards, not "
                             f"{self.sample}")

    @property
    def descriptor(self) -> str:
        warm = (f"warm:{self.warm:g};" if self.warm else "") + ("guard:1;" if self.guard else "")
        turn = "" if self.turn is None else f"turn:{self.turn};sample:{self.sample};{warm}"
        return (f"{KIND}=from:{self.from_round};mode:{self.mode};"
                f"iterations:{self.iterations};{turn}blueprint:{self.blueprint}")

    @classmethod
    def from_arguments(cls, parser: argparse.ArgumentParser, args: argparse.Namespace
                       ) -> ResolvingSpec:
        """The settings given by `add_resolving_arguments`' options (a usage error if they
        are not legal)."""
        try:
            return cls(args.from_round, args.mode, args.iterations, turn=args.turn_iterations,
                       sample=args.turn_sample, warm=args.turn_warm, guard=args.turn_guard)
        except ValueError as exc:
            parser.error(str(exc))

    def make_bot(self, name: str, rules: HoldemRules, blueprint: HoldemPolicy) -> ResolvingBot:
        """A re-solving bot with these settings, playing `blueprint` before `from_round`."""
        return ResolvingBot(name, rules, blueprint, self.from_round - 1, self.mode,
                            self.iterations, self.turn, self.sample, self.warm, self.guard)

    @classmethod
    def parse(cls, parameters: str) -> ResolvingSpec:
        """``from:3;mode:maxmargin;iterations:200;turn:4;sample:0;warm:1;guard:1;blueprint:...``
        (any order; turn:, sample:, warm: and guard: may be left out)."""
        fields: dict[str, str] = {}
        names = ("from", "mode", "iterations", "turn", "sample", "warm", "guard", "blueprint")
        settings, sep, blueprint = parameters.partition("blueprint:")
        if sep:  # the last field: a translated blueprint's game has ';' of its own
            fields["blueprint"] = blueprint.strip()
            parameters = settings.rstrip().rstrip(";")
        for part in (p for p in parameters.split(";") if p.strip() or not sep):
            name, sep, value = part.partition(":")
            if not sep or name.strip() not in names:
                raise ValueError(f"resolving takes from:, mode:, iterations:, turn:, sample:, "
                                 f"warm:, guard: and blueprint:, not {part!r}")
            fields[name.strip()] = value.strip()
        try:
            turn = fields.get("turn")
            return cls(int(fields.get("from", "4")), fields.get("mode", "maxmargin"),
                       int(fields.get("iterations", "200")),
                       fields.get("blueprint", "ehs2=k:128,128,128"),
                       None if turn is None else int(turn), int(fields.get("sample", "0")),
                       float(fields.get("warm", "0")), fields.get("guard", "0") not in ("", "0"))
        except ValueError as exc:
            raise ValueError(f"resolving {parameters!r}: {exc}") from None


class Resolving:
    """The `solver.abstractions.Abstraction` of a re-solving bot (see the module docstring)."""

    def __init__(self, rules: HoldemRules, spec: ResolvingSpec) -> None:
        kind, _, parameters = spec.blueprint.partition("=")
        self.blueprint: Percentiles | Translated
        if kind == TRANSLATED:
            if spec.from_round not in (rules.num_rounds - 1, rules.num_rounds):
                raise ValueError(f"a no-limit bot re-solves the last round (from:"
                                 f"{rules.num_rounds}) or the last two (from:"
                                 f"{rules.num_rounds - 1}), not from round {spec.from_round}")
            self.blueprint = translated_for(rules, parameters)
        else:
            try:
                self.blueprint = Percentiles(rules, table_spec(spec.blueprint))
            except ValueError:
                raise ValueError(f"the re-solving bot's blueprint is a table solve (ehs2=, "
                                 f"hist= or translated=), not {spec.blueprint!r}") from None
        self.rules = rules
        self.spec = spec
        self.descriptor = spec.descriptor
        self._bots: dict[int, tuple[TableStrategy, AnyPolicy]] = {}
        self._lock = threading.Lock()

    def __repr__(self) -> str:
        return f"Resolving({self.descriptor!r})"

    def strategy_key(self, state: State, player: int) -> str:
        """The blueprint's key (what the tables hold, and what the explorer shows)."""
        return self.blueprint.strategy_key(state, player)

    def bot(self, table: TableStrategy) -> AnyPolicy:
        """The re-solving bot playing `table` (one per stored solve's tables)."""
        with self._lock:
            known = self._bots.get(id(table))
            if known is not None and known[0] is table:
                return known[1]
            bot: AnyPolicy
            if isinstance(self.blueprint, Translated):
                bot = NoLimitResolvingBot(
                    "re-solving", TranslatedPolicy("blueprint", self.blueprint, table),
                    self.spec.mode, self.spec.iterations, first_round=self.spec.from_round - 1,
                    turn_iterations=self.spec.turn)
            else:
                blueprint = HulheBot("blueprint", self.rules, self.blueprint.spec, table)
                bot = self.spec.make_bot("re-solving", self.rules, blueprint)
            self._bots = {id(table): (table, bot)}
            return bot

    def play_time_policy(self, state: State, table: TableStrategy) -> tuple[float, ...]:
        """The probabilities of the legal actions (in the state's order) of the player to
        move, computed now."""
        if not isinstance(state, HoldemState) or state.game.definition != self.rules:
            raise ValueError(f"not a position of {self.rules.spec}")
        return self.play_time_policies([state], table)[0]

    def play_time_policies(self, states: Sequence[State], table: TableStrategy
                           ) -> list[tuple[float, ...]]:
        """`play_time_policy` of positions that differ only in the hole cards of the player to
        move (the explorer's grid), in one call: one re-solve answers every hand."""
        if not states:
            return []
        first = states[0]
        if not isinstance(first, HoldemState) or first.game.definition != self.rules:
            raise ValueError(f"not a position of {self.rules.spec}")
        player = first.current_player()
        holes = []
        for state in states:
            if (not isinstance(state, HoldemState) or state.betting != first.betting
                    or state.board() != first.board() or state.game is not first.game):
                raise ValueError("the positions must share their board and betting")
            holes.append(state.hole(player))
        actions, rows = answer(self.bot(table), first.betting, first.board(),
                               np.array(holes, np.int64))
        column = {a: k for k, a in enumerate(actions)}
        picked = [column.get(a, -1) for a in first.legal_actions()]
        padded = np.concatenate([rows, np.zeros((len(rows), 1))], axis=1)  # column -1: zero
        return [tuple(float(p) for p in row[picked]) for row in padded]


ROUND_NAMES = {3: "the turn", 4: "the river"}
"""How the words name the round re-solving starts in (hold'em's; others by number)."""

EXACT = {
    4: "on small games whose tree compiles, safe re-solving of the last round cut the "
       "exploitability of an abstraction's strategy 2.2 times (holdem-mini, two rounds) and "
       "1.2 times (a 16-card game of three rounds)",
    3: "on a 16-card game of three rounds, whose tree compiles, safe re-solving from the "
       "second round on cut the exploitability of an abstraction's strategy 2.3 times "
       "(0.333 to 0.143 chips a hand)",
}
"""What the exact measurements say of re-solving from a round (1-based; hold'em's rounds)."""

HULHE = {
    (4, "hist=k:1024,1024,1024"):
        "in this game, local best response (LBR), a lower bound on what a perfect opponent "
        "could win, won 52 ± 21 mbb/hand from the bot re-solving the river over the "
        "default blueprint, and 111 ± 21 from that blueprint alone (20,000 deal pairs "
        "each, the luck of the cards and of the bot's own choices taken out); in 20,000 "
        "duplicate deal pairs it tied the earlier bot, which plays the strategy of 128 "
        "E[HS²] buckets a round (+1.2 ± 12.7 mbb/hand, the luck taken out), and that bot "
        "re-solving the river too (−1.3 ± 19.1)",
    (4, "ehs2=k:128,128,128"):
        "in this game, a bot re-solving the river won +18.5 ± 43.6 mbb/hand against the "
        "strategy it re-solves (1,000 duplicate deal pairs), and local best response, a lower "
        "bound on what a perfect opponent could win, won 243 ± 250 mbb/hand from it (300 deal "
        "pairs): not yet measured closely enough to tell them apart",
    (3, "ehs2=k:128,128,128"):
        "in this game, turn re-solves measured at 12 public states against the abstraction's "
        "strategy left a best-responding opponent less than it did at most of them but more "
        "at some (at 4 of 12 with 3 iterations started from that strategy, about a second; at "
        "2 of 12 with 15 from uniform, about 4 s), and the bot re-solving from the turn has "
        "not been measured against best response or other bots yet",
}
"""What was measured in heads-up limit hold'em itself (`solver.resolving.measure`), by the round the
re-solving starts in and the blueprint it re-solves."""


NO_LIMIT_EXACT = {
    (3, "resolve", 12): "on a small no-limit game of three rounds whose tree compiles, with the "
                        "blueprint's few sizes, the bot re-solving the last two rounds against "
                        "any bet (CFR-D's gadget; 12 iterations a re-solve before the last "
                        "round, 200 in it) was less exploitable than its blueprint played by "
                        "translation alone: 12.5 against 35.0 mbb/hand (26.1 re-solving the "
                        "last round only)",
    (3, "maxmargin", 12): "on a small no-limit game of three rounds whose tree compiles, with "
                          "the blueprint's few sizes, the bot re-solving the last two rounds "
                          "against any bet (max-margin; 12 iterations a re-solve before the "
                          "last round, 200 in it) was less exploitable than its blueprint "
                          "played by translation alone: 14.0 against 35.0 mbb/hand (29.6 "
                          "re-solving the last round only)",
    (4, "resolve", None): "on small no-limit games whose tree compiles, with the blueprint's few "
                    "sizes and 200 iterations a re-solve, the bot re-solving the last round "
                    "against any bet (CFR-D's gadget) was less exploitable than its blueprint "
                    "played by translation alone: 16.9 against 24.7 mbb/hand with two rounds, "
                    "26.1 against 35.0 with three, 102.5 against 123.8 with deeper stacks",
    (4, "maxmargin", None): "on small no-limit games whose tree compiles, with the blueprint's few "
                      "sizes and 200 iterations a re-solve, the bot re-solving the last round "
                      "against any bet (max-margin) was less exploitable than its blueprint "
                      "played by translation alone: 19.9 against 24.7 mbb/hand with two "
                      "rounds, 29.6 against 35.0 with three, 99.2 against 123.8 with deeper "
                      "stacks",
}
"""What the exact measurements say of no-limit re-solving, by the round it starts in
(1-based), its gadget and the iterations of a turn re-solve."""

NO_LIMIT = {
    (4, f"{TRANSLATED}={DEFAULT_HUNL}"):
        "in this game local best response (LBR, a lower bound on what a perfect opponent "
        "could win), betting the pot or all-in on the turn and river, won 1,749 ± 287 "
        "mbb/hand from the bot re-solving the river and 2,514 ± 294 from its blueprint alone "
        "(10,000 deal pairs each), where it won 4,020 ± 115 from Slumbot 2016 (Lisý & "
        "Bowling 2017)",
}
"""What was measured in heads-up no-limit hold'em itself, by round and blueprint."""


def add_resolving_arguments(parser: argparse.ArgumentParser) -> None:
    """The re-solving bot's settings as options, for every command that makes the bot
    (`ResolvingSpec.from_arguments` reads them)."""
    parser.add_argument("--from-round", type=int, default=4, help="1-based: 4 is the river")
    parser.add_argument("--mode", default="maxmargin", help=f"one of {', '.join(MODES)}")
    parser.add_argument("--iterations", type=int, default=200,
                        help="CFR+ iterations of a re-solve")
    parser.add_argument("--turn-iterations", type=int, help="iterations of a turn re-solve in "
                        "the turn's layout (default: the general layout, --iterations)")
    parser.add_argument("--turn-sample", type=int, default=0,
                        help="river cards a turn iteration plays (0: all)")
    parser.add_argument("--turn-warm", type=float, default=0.0,
                        help="a turn re-solve starts from the blueprint (0: from uniform)")
    parser.add_argument("--turn-guard", action="store_true",
                        help="a turn re-solve is played only where it gives up no weighted "
                             "margin")


def describe_resolving(parameters: str) -> AbstractionText:
    """The blueprint's words, then what re-solving changes and what was measured of it: the
    exact small-member figures for the round it starts in, and what HULHE's sampled measures
    say (never that the bot cannot be beaten)."""
    spec = ResolvingSpec.parse(parameters)
    blueprint = describe(spec.blueprint)
    start = ROUND_NAMES.get(spec.from_round, f"round {spec.from_round}")
    base = blueprint.what if blueprint is not None else "the game itself"
    safety = {"resolve": "safely (CFR-D's gadget: no more exploitable there than the "
                         "abstraction's strategy, up to the re-solve's error)",
              "maxmargin": "safely (max-margin's gadget: no more exploitable there than the "
                           "abstraction's strategy, up to the re-solve's error)"}.get(
        spec.mode, "without a safety gadget (it may be more exploitable than the abstraction's "
                   "strategy)")
    no_limit = spec.blueprint.startswith(f"{TRANSLATED}=")
    exact = (NO_LIMIT_EXACT.get((spec.from_round, spec.mode, spec.turn)) if no_limit else
             EXACT.get(spec.from_round))
    in_hulhe = (NO_LIMIT if no_limit else HULHE).get((spec.from_round, spec.blueprint))
    measured = "; ".join(part for part in (exact, in_hulhe) if part)
    page = "docs/games/no-limit.md" if no_limit else "docs/games/holdem.md"
    plain = ((blueprint.summary + "; ") if blueprint is not None else "") + (
        f"from {start} on it works the rest of the hand out again with the real cards at each "
        f"of its decisions")
    return AbstractionText(
        f"{base}; from {start} on it does not read that strategy but re-solves the rest of "
        f"the hand with the real cards at each of its decisions, keeping its own range and the "
        f"opponent's values from one decision to the next, {safety}",
        f"Its exploitability cannot be computed exactly. Measured: {measured} "
        f"({page})." if measured else
        "Its exploitability cannot be computed exactly, and re-solving from this round was not "
        "measured.", plain)


def parse_resolving(game: Game, parameters: str) -> Resolving:
    rules = getattr(game, "definition", None)
    if not isinstance(rules, HoldemRules):
        raise ValueError(f"the re-solving bot is for the hold'em family, not {game.name!r}")
    return Resolving(rules, ResolvingSpec.parse(parameters))


register_kind(KIND, parse_resolving, describe_resolving)

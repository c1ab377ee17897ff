"""A whole match of Dudo: five dice each, the loser of each round loses a die and opens the next
round, and whoever has no dice left loses the match.

One state spans the match: chance rolls both players' dice at the start of each round (seat 0's,
then seat 1's), the round is a game of `solver.games.dudo` with the current dice counts, the
call ends it, the counts move and the next round starts.  Bids keep their ids in the round's
order (``0 .. 6n - 1`` for n dice in play); the call is always `DUDO` (60), whatever the round.
The match pays +1 to its winner and -1 to its loser.

A round's dice are revealed when it ends, so the public part of a key carries the finished
rounds with both rolls; a player's private part is its dice of the current round (until its
next roll, its dice of the last one).  The bot does not need these perfect-recall keys: its
strategy is stored round by round under the keys of `solver.abstractions.dudo_recall`
(``5v4:12356| 2x3,3x4``), one solve of the match being the union of its rounds' (see
`solver.runs.dudo_match`), and the table of each round's chance of winning the match, stored with
that solve (its figure `WIN_CHANCES`), gives `win_chances`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial

from solver.games.base import (
    CHANCE,
    TERMINAL,
    BuildPlan,
    GameDefaults,
    State,
    private_then_public_key,
)
from solver.games.dudo.rules import (
    MAX_DICE,
    DudoRules,
    bluff_test,
    call_result,
    dice_text,
    explain_call,
    rolls,
    tables,
)
from solver.games.dudo.style import DUDO_STYLE, add_round
from solver.games.view_values import StyleCounts, StyleStat

WIN_CHANCES = "win_chances"
"""The name the store keeps the table of winning chances under (`strategies.figures`, whose
package loads the database library: the game names the figure, it does not import the store)."""

DUDO = 6 * 2 * MAX_DICE
"""The call's id in every round: one past the most bids a round can have."""
NAME = "dudo-match"


@dataclass(frozen=True, slots=True)
class Round:
    """One round: the dice counts (seat 0, seat 1), who opened, both rolls (indices into
    `solver.games.dudo.rolls`, seat 0 first) and the moves (bids, and `DUDO` once over)."""

    counts: tuple[int, int]
    opener: int
    rolls: tuple[int, ...] = ()
    moves: tuple[int, ...] = ()

    @property
    def rules(self) -> DudoRules:
        """The round as a Dudo game: its player 0 is the opener."""
        return DudoRules((self.counts[self.opener], self.counts[1 - self.opener]))

    def dice(self, seat: int) -> tuple[int, ...]:
        if seat >= len(self.rolls):
            return ()
        return rolls(self.counts[seat])[self.rolls[seat]][0]

    def mover(self) -> int:
        return self.opener if len(self.moves) % 2 == 0 else 1 - self.opener

    def over(self) -> bool:
        return bool(self.moves) and self.moves[-1] == DUDO

    def bid_labels(self) -> tuple[str, ...]:
        labels = tables(self.rules).labels
        return tuple(labels[m] for m in self.moves if m != DUDO)

    def loser(self) -> int:
        """The seat that lost the call (the round must be over)."""
        rules = self.rules
        dice = (self.dice(self.opener), self.dice(1 - self.opener))
        _, winner_role = call_result(rules, dice, self.moves[-2], rules.dudo)
        caller = self.opener if (len(self.moves) - 1) % 2 == 0 else 1 - self.opener
        return 1 - caller if winner_role == 0 else caller

    def explain(self, names: tuple[str, str], stake: str = "a die") -> str:
        """Why the round ended as it did, naming the seats `names` (seat 0 first)."""
        rules = self.rules
        order = (self.opener, 1 - self.opener)
        moves = self.moves[:-1] + (rules.dudo,)
        return explain_call(rules, (self.dice(order[0]), self.dice(order[1])), moves,
                            (names[order[0]], names[order[1]]), stake, show_dice=True)[0]

    def public(self) -> str:
        labels = tables(self.rules).labels
        moves = ",".join("dudo" if m == DUDO else labels[m] for m in self.moves)
        if self.over():
            return f"{dice_text(self.dice(0))}-{dice_text(self.dice(1))}:{moves}"
        return f"{self.counts[0]}v{self.counts[1]}:{moves}"


def _illegal(state: DudoMatchState, action: int) -> ValueError:
    legal = ", ".join(f"{a} ({state.action_label(a)})" for a in state.legal_actions()) or "none"
    return ValueError(f"illegal action {action} in round {state.number}; legal actions: {legal}")


@dataclass(frozen=True, slots=True)
class DudoMatchState:
    """A position of a match: the rounds so far, the last one being played (or, once the match
    is over, the one that ended it)."""

    rounds: tuple[Round, ...] = (Round((MAX_DICE, MAX_DICE), 0),)
    history: tuple[int, ...] = ()

    @property
    def current(self) -> Round:
        return self.rounds[-1]

    @property
    def number(self) -> int:
        return len(self.rounds)

    @property
    def counts(self) -> tuple[int, int]:
        """Dice held now: after the last round's call, the loser's die is gone."""
        r = self.current
        if not r.over():
            return r.counts
        loser = r.loser()
        return (r.counts[0] - (loser == 0), r.counts[1] - (loser == 1))

    def current_player(self) -> int:
        r = self.current
        if r.over():
            return TERMINAL
        if len(r.rolls) < 2:
            return CHANCE
        return r.mover()

    def is_terminal(self) -> bool:
        return self.current.over()

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> tuple[int, ...]:
        r = self.current
        if r.over():
            return ()
        t = tables(r.rules)
        if len(r.rolls) < 2:
            return tuple(range(len(rolls(r.counts[len(r.rolls)]))))
        if not r.moves:
            return t.opening
        return (*range(r.moves[-1] + 1, r.rules.num_bids), DUDO)

    def action_label(self, action: int) -> str:
        r = self.current
        if len(r.rolls) < 2 and not r.over():
            rolled = rolls(r.counts[len(r.rolls)])
            if not 0 <= action < len(rolled):
                raise ValueError(f"no roll {action} of {r.counts[len(r.rolls)]} dice")
            return dice_text(rolled[action][0])
        if action == DUDO:
            return "dudo"
        if 0 <= action < r.rules.num_bids:
            return tables(r.rules).labels[action]
        raise ValueError(f"no action {action} in a round with {sum(r.counts)} dice: bids 0.."
                         f"{r.rules.num_bids - 1} and dudo {DUDO}")

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        r = self.current
        if r.over() or len(r.rolls) >= 2:
            return ()
        return tuple(enumerate(p for _, p in rolls(r.counts[len(r.rolls)])))

    def apply_action(self, action: int) -> DudoMatchState:
        if action not in self.legal_actions():
            raise _illegal(self, action)
        r = self.current
        if len(r.rolls) < 2:
            played = Round(r.counts, r.opener, r.rolls + (action,))
        else:
            played = Round(r.counts, r.opener, r.rolls, r.moves + (action,))
        rounds = self.rounds[:-1] + (played,)
        if played.over():
            loser = played.loser()
            counts = (played.counts[0] - (loser == 0), played.counts[1] - (loser == 1))
            if min(counts) > 0:
                rounds += (Round(counts, loser),)
        return DudoMatchState(rounds, self.history + (action,))

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        u = 1.0 if self.counts[1] == 0 else -1.0
        return (u, -u)

    def held(self, player: int) -> tuple[int, ...]:
        """The dice `player` holds: this round's once rolled, else the last round's."""
        for r in reversed(self.rounds):
            if player < len(r.rolls):
                return r.dice(player)
        return ()

    def round_position(self, player: int) -> tuple[str, tuple[int, int], str, tuple[str, ...]]:
        """The round's dice counts (opener first) as the key prefix of the stored strategy,
        and `player`'s dice and the round's bids (`solver.abstractions.dudo_recall`)."""
        r = self.current
        counts = (r.counts[r.opener], r.counts[1 - r.opener])
        return f"{counts[0]}v{counts[1]}:", counts, dice_text(r.dice(player)), r.bid_labels()

    def information_state_key(self, player: int | None = None) -> str:
        return private_then_public_key(self, player)

    def public_key(self) -> str:
        """The finished rounds with both rolls (``12356-2245:1x2,4x5,dudo``), then the current
        round's counts and bids (``4v5:2x3``), joined by ``/``."""
        return "/".join(r.public() for r in self.rounds)

    def private_key(self, player: int) -> str:
        return dice_text(self.held(player))


def win_chances(counts: tuple[int, int], opener: int, table: Mapping[str, float]
                ) -> tuple[float, float] | None:
    """Each seat's chance to win the match from the start of a round, from the solve's
    `table` (the opener's chance by round, ``"5v4"``); None for a round it does not hold."""
    p = table.get(f"{counts[opener]}v{counts[1 - opener]}")
    if p is None:
        return None
    return (p, 1.0 - p) if opener == 0 else (1.0 - p, p)


def loser_payoffs(counts: tuple[int, int], table: Mapping[tuple[int, int], float]
                  ) -> tuple[float, float]:
    """What a round's calls pay its opener in zero-sum form (2P - 1): when the opener loses the
    call, and when the other does; `counts` are the round's dice, the opener's first, and
    `table` the opener's chance of winning the match by round (``P(0, n) = 0``)."""
    a, b = counts
    opener_loses = table[(a - 1, b)] if a > 1 else 0.0
    other_loses = 1.0 - (table[(b - 1, a)] if b > 1 else 0.0)
    return 2.0 * opener_loses - 1.0, 2.0 * other_loses - 1.0


def _mover(opener: int, move: int) -> int:
    return opener if move % 2 == 0 else 1 - opener


class DudoMatchGame(GameDefaults):
    """The match as one game (see the module's doc)."""

    @property
    def build(self) -> BuildPlan:
        """Every round on Dask (`solver.runs.dudo_match`), a quarter of an hour."""
        return BuildPlan(("match", "--quiet"))

    name: str = NAME
    title: str = "Dudo: a full match"
    reference_value: float | None = None
    def initial_state(self) -> DudoMatchState:
        return DudoMatchState()

    def num_distinct_actions(self) -> int:
        return DUDO + 1

    style_stats: tuple[StyleStat, ...] = DUDO_STYLE

    def style_counts(self, state: State, seat: int) -> StyleCounts:
        assert isinstance(state, DudoMatchState)
        counts: StyleCounts = {}
        for r in state.rounds:
            add_round(counts, seat, r.moves, partial(_mover, r.opener),
                      bluff_test(tables(r.rules).bids, r.dice(0) + r.dice(1)))
        return counts

    def forfeit_payoff(self, state: State, seat: int) -> float:
        return -1.0  # the match lost

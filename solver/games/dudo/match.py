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
strategy is stored round by round under the keys of `solver.abstractions.dudo_recall.memory`
(``5v4:12356| 2x3,3x4``), one solve of the match being the union of its rounds' (see
`solver.runs.dudo_match`), and the table of each round's chance of winning the match, written beside
the strategy store by the same solve, gives `PublicView.win_chances`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from solver.games.base import (
    CHANCE,
    TERMINAL,
    BuildPlan,
    GameDefaults,
    State,
    private_then_public_key,
)
from solver.games.dudo.game import dice_label_parts
from solver.games.dudo.rules import (
    MAX_DICE,
    DudoRules,
    bid_groups,
    bluff_test,
    call_result,
    dice_text,
    explain_call,
    rolls,
    tables,
)
from solver.games.dudo.style import DUDO_STYLE, add_round
from solver.games.views import (
    ActionGroup,
    Die,
    FinishedRound,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    Seat,
    StyleCounts,
    StyleStat,
)
from strategies import default_store_path

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

    def _dice(self, player: int) -> tuple[int, ...]:
        """The dice `player` holds: this round's once rolled, else the last round's."""
        for r in reversed(self.rounds):
            if player < len(r.rolls):
                return r.dice(player)
        return ()

    def round_position(self, player: int) -> tuple[str, tuple[int, int], str, tuple[str, ...]]:
        """The round's dice counts (opener first) as the key prefix of the stored strategy,
        and `player`'s dice and the round's bids (`solver.abstractions.dudo_recall.memory`)."""
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
        return dice_text(self._dice(player))

    def private_view(self, player: int) -> str:
        return self.private_key(player)

    def private_pieces(self, player: int) -> tuple[Piece, ...]:
        return tuple(Die(face) for face in self._dice(player))

    def public_view(self) -> PublicView:
        r = self.current
        bids = r.bid_labels()
        finished = tuple(
            FinishedRound(i + 1, (tuple(map(Die, x.dice(0))), tuple(map(Die, x.dice(1)))),
                          x.loser(), partial(x.explain))
            for i, x in enumerate(self.rounds) if x.over())
        return PublicView(round=self.number, bids=bids, last_bid=bids[-1] if bids else None,
                          pieces_held=self.counts, finished_rounds=finished,
                          win_chances=None if r.over() else win_chances(r.counts, r.opener))

    def action_groups(self) -> tuple[ActionGroup, ...]:
        return bid_groups(self.current.rules)

    def outcome_text(self, names: tuple[str, str]) -> str:
        if not self.is_terminal():
            return ""
        r = self.current
        winner = 0 if self.counts[1] == 0 else 1
        last = r.explain(names, "the last die")
        verb = "win" if names[winner] == "you" else "wins"
        return f"{last[:-1]}, so {names[winner]} {verb} the match in {self.number} rounds."


def win_chances(counts: tuple[int, int], opener: int) -> tuple[float, float] | None:
    """Each seat's chance to win the match from the start of a round, from the solved table
    (None if the match has not been solved where the strategy store is)."""
    table = match_table()
    if table is None:
        return None
    p = table.get(f"{counts[opener]}v{counts[1 - opener]}")
    if p is None:
        return None
    return (p, 1.0 - p) if opener == 0 else (1.0 - p, p)


_loaded: dict[Path, tuple[float, dict[str, float]]] = {}


def loser_payoffs(counts: tuple[int, int], table: Mapping[tuple[int, int], float]
                  ) -> tuple[float, float]:
    """What a round's calls pay its opener in zero-sum form (2P - 1): when the opener loses the
    call, and when the other does; `counts` are the round's dice, the opener's first, and
    `table` the opener's chance of winning the match by round (``P(0, n) = 0``)."""
    a, b = counts
    opener_loses = table[(a - 1, b)] if a > 1 else 0.0
    other_loses = 1.0 - (table[(b - 1, a)] if b > 1 else 0.0)
    return 2.0 * opener_loses - 1.0, 2.0 * other_loses - 1.0


def table_path(store: Path) -> Path:
    """Where a match solve writes its table beside the strategy store `store`."""
    return store.with_name(f"{store.stem}.{NAME}.json")


def match_table(store: Path | None = None) -> dict[str, float] | None:
    """The opener's chance of winning the match by round (``"5v4"``: the opener holds 5 dice,
    the other 4), as the latest match solve wrote it beside the strategy store (default: the
    default store); None if there is none."""
    if store is None:
        store = default_store_path()
    path = table_path(store)
    try:
        stamp = path.stat().st_mtime
    except OSError:
        return None
    cached = _loaded.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    try:
        table = {str(k): float(v) for k, v in json.loads(path.read_text())["table"].items()}
    except (OSError, ValueError, KeyError, TypeError):
        return None
    _loaded[path] = (stamp, table)
    return table


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
    rules: str = ("Five secret dice each, 1s wild; each round is a game of Dudo on all the dice.\n"
             "The loser of a round loses a die and opens the next; whoever has no dice left "
             "loses the match.")
    reference_value: float | None = None
    pieces: PieceKind = "dice"
    wins_and_losses: bool = True
    seats: tuple[Seat, Seat] = (
        Seat("first", "first in round 1"), Seat("second", "second in round 1"))
    history_legend: str = ("History: each finished round as both rolls and its moves, then the "
                      "current round's dice counts and bids.")
    history_example: str = "e.g. 12356-2245:1x2,4x5,dudo/4v5:2x3"
    notes: tuple[str, ...] = (
        "A bid 'q x f' says that at least q of all the dice show f or a 1: 1s are wild.",
        "The grid has a row per quantity and the 1s in a column of their own: a bid on 1s counts "
        "only 1s, so n x 1 ranks just above (2n - 1) x 6 and below 2n x 2 (the bids still open "
        "to you are the ones not greyed out). It shrinks as dice are lost.",
        "Dudo: you doubt the last bid. If fewer dice match, its bidder loses a die; otherwise "
        "you do. The loser opens the next round.",
        "The bot plays to win the match, not the round: a round's stakes are the chances of "
        "winning the match from the dice counts it leads to.",
    )

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        """Bids and rolls as dice; a stored key's private part, ``5v4:12356`` (the round's
        dice counts, the opener's first, then the player's dice), with its counts in words."""
        counts, sep, dice = label.partition(":")
        a, v, b = counts.partition("v")
        if sep and v and a.isdigit() and b.isdigit():
            each = f"{a} {'die' if a == '1' else 'dice'} each" if a == b else f"{a} v {b} dice"
            return (f"round of {each}: ", *dice_label_parts(dice))
        return dice_label_parts(label)

    def describe_history(self, public: str) -> str:
        """The match's public key (``12356-2245:1x2,dudo/4v5:2x3``: the finished rounds, then
        this round's counts, seat 0's first, and bids) or the public part of a stored key,
        which holds only the bids its round remembers (its counts are in the private part)."""
        if ":" not in public:
            bids = public.replace(",", ", ")
            return (f"Bids remembered (the last of this round): {bids}" if bids else
                    "The opening bid of a round")
        *done, current = public.split("/")
        counts, _, bids = current.partition(":")
        a, _, b = counts.partition("v")
        where = f"Round {len(done) + 1}, dice {a} against {b} (the first player's first)"
        return f"{where}: {'bids ' + bids.replace(',', ', ') if bids else 'the opening bid'}"

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

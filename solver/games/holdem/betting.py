"""Limit betting as ACPC plays it, apart from the cards: what the game states and the compiled
tree share.

Two seats post their blinds; in each round the player named by ``firstPlayer`` acts first and
the two alternate.  Facing a bet a player may fold, call or raise; otherwise check or bet (the
blinds count as the opening bet of the first round).  Every bet and raise is the round's fixed
size on top of the highest contribution, and the round's ``maxRaises`` caps them.  A call ends
the round unless it is the round's first action (a check, or the small blind completing),
which leaves the other player to act; after the last round it is a showdown.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from solver.games.holdem.rules import HoldemRules

FOLD, CALL, RAISE = 0, 1, 2
"""universal_poker's action ids in a limit game."""
ACTION_CHARS = "fcr"
"""How ACPC (and our keys) write the three actions."""
OVER = -2
"""`Betting.player` once the hand is over (a fold, or the showdown)."""


@dataclass(frozen=True, slots=True)
class Betting:
    """The betting so far: per round started, its actions as ``f``/``c``/``r``; the chips
    each seat has put in (blinds included); bets and raises in the current round; who acts.

    The next round starts as soon as a round closes, before its board is dealt: `round` is
    then already the new round, whose action string is still empty."""

    rules: HoldemRules
    rounds: tuple[str, ...]
    spent: tuple[int, int]
    raises: int
    player: int

    @classmethod
    def start(cls, rules: HoldemRules) -> Betting:
        return cls(rules, ("",), rules.blinds, 0, rules.first_player[0])

    @property
    def round(self) -> int:
        return len(self.rounds) - 1

    @property
    def over(self) -> bool:
        return self.player == OVER

    @property
    def folded(self) -> int:
        """The seat that folded, or -1."""
        last = self.rounds[-1]
        if not last.endswith("f"):
            return -1
        # Seats alternate inside a round, from the round's first player.
        return (self.rules.first_player[self.round] + len(last) - 1) % 2

    @property
    def facing(self) -> bool:
        """True if the player to act has less in the pot than the other."""
        p = self.player
        return p >= 0 and self.spent[p] < self.spent[1 - p]

    @property
    def opened(self) -> bool:
        """True if the current round has a bet in it already (the blinds open round one)."""
        return self.raises > 0 or (self.round == 0 and max(self.rules.blinds) > 0)

    def legal_actions(self) -> tuple[int, ...]:
        if self.player == OVER:
            return ()
        can_raise = self.raises < self.rules.max_raises[self.round]
        if self.facing:
            return (FOLD, CALL, RAISE) if can_raise else (FOLD, CALL)
        return (CALL, RAISE) if can_raise else (CALL,)

    def label(self, action: int) -> str:
        """``fold``, ``check``, ``call``, ``bet`` or ``raise``."""
        if action == FOLD:
            return "fold"
        if action == CALL:
            return "call" if self.facing else "check"
        return "raise" if self.facing or self.opened else "bet"

    def apply(self, action: int) -> Betting:
        """The betting after `action`; `ValueError` naming the legal actions if illegal."""
        legal = self.legal_actions()
        if action not in legal:
            names = ", ".join(f"{a} ({self.label(a)})" for a in legal) or "none"
            raise ValueError(f"illegal action {action} after betting {'/'.join(self.rounds)!r};"
                             f" legal actions: {names}")
        p, r = self.player, self.round
        rounds = self.rounds[:-1] + (self.rounds[-1] + ACTION_CHARS[action],)
        if action == FOLD:
            return Betting(self.rules, rounds, self.spent, self.raises, OVER)
        top = max(self.spent)
        if action == RAISE:
            spent = _put(self.spent, p, top + self.rules.raise_sizes[r])
            return Betting(self.rules, rounds, spent, self.raises + 1, 1 - p)
        spent = _put(self.spent, p, top)
        if len(rounds[-1]) < 2:  # the round's first action: the other player still acts
            return Betting(self.rules, rounds, spent, self.raises, 1 - p)
        if r + 1 == self.rules.num_rounds:
            return Betting(self.rules, rounds, spent, self.raises, OVER)
        return Betting(self.rules, rounds + ("",), spent, 0, self.rules.first_player[r + 1])

    def acpc(self) -> str:
        """The ACPC betting string, rounds separated by ``/`` (``rrc/cr``)."""
        return "/".join(self.rounds)


def _put(spent: tuple[int, int], player: int, amount: int) -> tuple[int, int]:
    return (amount, spent[1]) if player == 0 else (spent[0], amount)


def walk(rules: HoldemRules) -> Iterator[Betting]:
    """Every betting position of the game, cards aside, depth first in action order: the
    decision points and the ends (folds and showdowns)."""
    stack = [Betting.start(rules)]
    while stack:
        betting = stack.pop()
        yield betting
        stack.extend(betting.apply(a) for a in reversed(betting.legal_actions()))


def count_sequences(rules: HoldemRules) -> int:
    """Non-terminal betting sequences: the decision points of the betting alone (6,378 in
    heads-up limit Texas hold'em)."""
    return sum(1 for betting in walk(rules) if not betting.over)

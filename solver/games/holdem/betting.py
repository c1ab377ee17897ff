"""Betting as ACPC plays it, apart from the cards: what the game states and the compiled tree
share.

Two seats post their blinds; in each round the player named by ``firstPlayer`` acts first and
the two alternate.  Facing a bet a player may fold, call or raise; otherwise check or bet (the
blinds count as the opening bet of the first round).  A call ends the round unless it is the
round's first action (a check, or the small blind completing), which leaves the other player
to act; after the last round it is a showdown.

* Limit: every bet and raise is the round's fixed size on top of the highest contribution, and
  the round's ``maxRaises`` caps them.  Actions are universal_poker's ids 0 fold, 1 call,
  2 raise, written ``f``, ``c``, ``r``.
* No-limit: a raise goes *to* an amount (the player's chips in the pot over the whole hand),
  at least the largest contribution plus the round's largest raise so far (at least the big
  blind) and at most the player's stack; a player with fewer chips may go all-in for less.
  Once a player is all-in nobody raises, and a call closes the betting for the rest of the
  hand: the remaining board is dealt and the hands shown down.  Actions are universal_poker's
  ids in its full game, 0 fold, 1 call, and the amount itself for a raise, written ``r300``.
  A bet abstraction (`solver.games.holdem.bet_sizes`) keeps only some amounts.
"""

from __future__ import annotations

import re
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
    called: int = 0
    """No-limit: the players not all-in who have matched the round's last bet (ACPC's
    ``numCalled``); the round ends when it reaches the players still able to act."""
    min_raise_to: int = 0
    """No-limit: the smallest amount a raise may go to (ACPC's ``minNoLimitRaiseTo``)."""

    @classmethod
    def start(cls, rules: HoldemRules) -> Betting:
        return cls(rules, ("",), rules.blinds, 0, rules.first_player[0],
                   min_raise_to=2 * rules.big_blind if rules.no_limit else 0)

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
        actions = sum(1 for char in last if char in ACTION_CHARS)
        return (self.rules.first_player[self.round] + actions - 1) % 2

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
        if self.rules.no_limit:
            return self._calls() + self.raise_amounts()
        can_raise = self.raises < self.rules.max_raises[self.round]
        if self.facing:
            return (FOLD, CALL, RAISE) if can_raise else (FOLD, CALL)
        return (CALL, RAISE) if can_raise else (CALL,)

    def is_legal(self, action: int) -> bool:
        if self.player == OVER:
            return False
        if not self.rules.no_limit or action <= CALL or self.rules.bets is not None:
            return action in self.legal_actions()
        limits = self.raise_range()
        return limits is not None and limits[0] <= action <= limits[1]

    def legal_words(self) -> str:
        """The legal actions in words, a no-limit range of raises as one: ``0 (fold),
        1 (call), 4..20 (raise to that amount)``."""
        if self.player == OVER:
            return "none"
        if not self.rules.no_limit or self.rules.bets is not None:
            return ", ".join(f"{a} ({self.label(a)})" for a in self.legal_actions())
        words = [f"{a} ({self.label(a)})" for a in self._calls()]
        limits = self.raise_range()
        if limits is not None:
            low, high = limits
            verb = "raise to" if self.facing or self.opened else "bet"
            words.append(f"{low} ({verb} {low})" if low == high
                         else f"{low}..{high} ({verb} that amount)")
        return ", ".join(words)

    def label(self, action: int) -> str:
        """``fold``, ``check``, ``call``, ``bet`` or ``raise`` (no-limit: ``bet 6``, ``raise
        to 20``)."""
        if action == FOLD:
            return "fold"
        if action == CALL:
            return "call" if self.facing else "check"
        if not self.rules.no_limit:
            return "raise" if self.facing or self.opened else "bet"
        return f"raise to {action}" if self.facing or self.opened else f"bet {action}"

    # ---- no-limit ------------------------------------------------------------------------

    def acting(self) -> int:
        """Players who can still act: not all-in (the hand is over once one folds)."""
        stacks = self.rules.stacks or (0, 0)
        return sum(1 for p in (0, 1) if self.spent[p] < stacks[p])

    def raise_range(self) -> tuple[int, int] | None:
        """The smallest and largest amounts the player to act may raise to, or None if no
        raise is legal (ACPC's ``raiseIsValid``)."""
        rules, p = self.rules, self.player
        if self.raises >= rules.raise_cap(self.round) or self.acting() <= 1:
            return None
        stack = (rules.stacks or (0, 0))[p]
        if self.min_raise_to <= stack:
            return self.min_raise_to, stack
        return None if max(self.spent) >= stack else (stack, stack)

    def _calls(self) -> tuple[int, ...]:
        """Fold (when facing a bet) and call, or fold alone where the bet abstraction forbids
        the small blind's opening call."""
        if not self.facing:
            return (CALL,)
        opening = self.rounds == ("",)  # the small blind's first move
        return (FOLD,) if opening and self.rules.push_or_fold else (FOLD, CALL)

    def raise_amounts(self) -> tuple[int, ...]:
        """The amounts the player to act may raise to: every legal one, or the bet
        abstraction's."""
        limits = self.raise_range()
        if limits is None:
            return ()
        low, high = limits
        bets = self.rules.bets
        if bets is None:
            return tuple(range(low, high + 1))
        top = max(self.spent)
        return bets.raise_to(max_spent=top, pot=sum(self.spent),
                             to_call=top - self.spent[self.player], min_raise_to=low,
                             stack=high, depth=self.raises, round_=self.round)

    def _apply_no_limit(self, action: int, rounds: tuple[str, ...]) -> Betting:
        rules, p, r = self.rules, self.player, self.round
        stacks = rules.stacks or (0, 0)
        top = max(self.spent)
        if action == CALL:
            spent = _put(self.spent, p, min(top, stacks[p]))
            called = self.called + (spent[p] < stacks[p])
            raises, min_raise_to = self.raises, self.min_raise_to
        else:
            spent = _put(self.spent, p, action)
            called = int(action < stacks[p])
            raises, min_raise_to = self.raises + 1, max(self.min_raise_to, 2 * action - top)
        after = Betting(rules, rounds, spent, raises, 1 - p, called, min_raise_to)
        acting = after.acting()
        if called < acting:
            return after
        if acting <= 1:  # nobody left to bet against: deal the rest and show down
            rounds += ("",) * (rules.num_rounds - 1 - r)
            return Betting(rules, rounds, spent, raises, OVER, called, min_raise_to)
        if r + 1 == rules.num_rounds:
            return Betting(rules, rounds, spent, raises, OVER, called, min_raise_to)
        return Betting(rules, rounds + ("",), spent, 0, rules.first_player[r + 1], 0,
                       max(spent) + max(1, rules.big_blind))

    def apply(self, action: int) -> Betting:
        """The betting after `action`; `ValueError` naming the legal actions if illegal."""
        if not self.is_legal(action):
            raise ValueError(f"illegal action {action} after betting {'/'.join(self.rounds)!r};"
                             f" legal actions: {self.legal_words()}")
        p, r = self.player, self.round
        written = f"r{action}" if self.rules.no_limit and action > CALL else ACTION_CHARS[action]
        rounds = self.rounds[:-1] + (self.rounds[-1] + written,)
        if action == FOLD:
            return Betting(self.rules, rounds, self.spent, self.raises, OVER)
        if self.rules.no_limit:
            return self._apply_no_limit(action, rounds)
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

    def won(self) -> int:
        """What the winner takes from the loser once the hand is over: a folder's chips, or at
        a showdown the smaller contribution (an all-in for less wins only what it covers)."""
        folded = self.folded
        return self.spent[folded] if folded >= 0 else min(self.spent)

    def acpc(self) -> str:
        """The ACPC betting string, rounds separated by ``/`` (``rrc/cr``)."""
        return "/".join(self.rounds)


_MOVE = re.compile(r"r\d+|[fcr]")


def moves(written: str) -> list[int]:
    """The actions a round's betting string writes, as `Betting.apply` takes them: ``f``,
    ``c``, ``r`` (limit) or ``r300`` (a no-limit raise to 300).

    >>> moves("r300r900c"), moves("crc")
    ([300, 900, 1], [1, 2, 1])
    """
    return [int(move[1:]) if len(move) > 1 else ACTION_CHARS.index(move)
            for move in _MOVE.findall(written)]


def history(betting: Betting) -> list[int]:
    """Every action of `betting` so far, in order."""
    return [action for written in betting.rounds for action in moves(written)]


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

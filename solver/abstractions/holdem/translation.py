"""Action translation: how a no-limit bot solved with a few bet sizes answers any size.

The bot's strategy knows only its bet abstraction's raises (`solver.games.holdem.bet_sizes`).
When the opponent raises to an amount the abstraction does not have, the bot reads it as one of
the two nearest sizes it knows, measured as fractions of the pot after calling, ``x`` between
``a`` and ``b``: as ``a`` with probability

    f(x) = (b - x)(1 + a) / ((b - a)(1 + x))

and as ``b`` otherwise: the pseudo-harmonic mapping of Ganzfried & Sandholm (2013), which is
exact at ``a`` and ``b``, and randomises between them so that no size in the gap is a sure
exploit (a deterministic bot maps to the nearer size by the same rule, ``f(x) >= 1/2``).  A
raise below the smallest size the bot knows reads as the smallest, an all-in as its all-in
(where it has one).  The bot keeps what it read for the rest of the hand.

The bot's own raises are its abstraction's sizes applied to the real pot (a pot-sized raise is
a pot-sized raise in the real game), so its moves are always real moves.  Where the bot's reading
of the hand has no move for it (it thought the betting over), it checks or calls.

>>> round(pseudo_harmonic(0.75, 0.5, 1.0), 4)
0.4286
>>> pseudo_harmonic(0.5, 0.5, 1.0), pseudo_harmonic(1.0, 0.5, 1.0)
(1.0, 0.0)
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.games.holdem.betting import CALL, FOLD, Betting


def pseudo_harmonic(x: float, a: float, b: float) -> float:
    """The probability of reading a raise of `x` pots as `a` pots rather than `b` (``a <= x <=
    b``)."""
    if b <= a:
        return 1.0
    return (b - x) * (1 + a) / ((b - a) * (1 + x))


def pot_fraction(betting: Betting, amount: int) -> float:
    """A raise to `amount` as a fraction of the pot after calling, the measure bet sizes use."""
    top = max(betting.spent)
    to_call = top - betting.spent[betting.player]
    return (amount - top) / (sum(betting.spent) + to_call)


@dataclass(frozen=True, slots=True)
class Translation:
    """How the bot reads raises it does not know: `randomised` by the pseudo-harmonic mapping,
    or to the nearer size by the same rule."""

    randomised: bool = True

    def read(self, real: Betting, action: int, mine: Betting) -> tuple[tuple[int, float], ...]:
        """The opponent's real `action` at `real`, as actions of the bot's own game at `mine`
        (the bot's reading of the same moment), with their probabilities."""
        if action in (FOLD, CALL):
            return ((action, 1.0),)
        sizes = [a for a in mine.legal_actions() if a > CALL]
        if not sizes:
            return ((CALL, 1.0),)
        stacks = real.rules.stacks or (0, 0)
        if action == stacks[real.player] and (mine.rules.stacks or (0, 0))[mine.player] in sizes:
            return ((max(sizes), 1.0),)
        x = pot_fraction(real, action)
        known = [(pot_fraction(mine, a), a) for a in sizes]
        below = [k for k in known if k[0] <= x]
        above = [k for k in known if k[0] >= x]
        if not below or not above:
            return ((min(known)[1] if not below else max(known)[1], 1.0),)
        (a, low), (b, high) = max(below), min(above)
        if low == high:
            return ((low, 1.0),)
        p = pseudo_harmonic(x, a, b)
        if not self.randomised:
            return ((low if p >= 0.5 else high, 1.0),)
        return tuple((act, q) for act, q in ((low, p), (high, 1 - p)) if q > 0)


def own_moves(real: Betting, mine: Betting) -> dict[int, tuple[int, ...]]:
    """The bot's actions at its reading `mine`, grouped by the real action each is at `real`:
    fold and call as they are, a raise its size applied to the real pot.  With no move of its
    own there (its reading has the betting over), a check or a call."""
    if mine.over or mine.player != real.player:
        return {CALL: (CALL,)}
    bets = mine.rules.bets
    out: dict[int, list[int]] = {}
    real_raises = real.raise_range()
    for action in mine.legal_actions():
        if action <= CALL or bets is None:
            out.setdefault(action if action <= CALL or real_raises else CALL, []).append(action)
            continue
        out.setdefault(_real_amount(real, mine, action, real_raises), []).append(action)
    return {real_action: tuple(acts) for real_action, acts in out.items()}


def _real_amount(real: Betting, mine: Betting, action: int,
                 real_raises: tuple[int, int] | None) -> int:
    """The real raise that the bot's raise `action` at `mine` stands for: the same fraction of
    the real pot, kept inside the real game's legal raises (a call if it has none)."""
    if real_raises is None:
        return CALL
    low, high = real_raises
    stacks = mine.rules.stacks or (0, 0)
    if action == stacks[mine.player]:
        return high
    fraction = pot_fraction(mine, action)
    top = max(real.spent)
    to_call = top - real.spent[real.player]
    wanted = round(top + fraction * (sum(real.spent) + to_call))
    return min(max(wanted, low), high)


__all__ = ["Translation", "own_moves", "pot_fraction", "pseudo_harmonic"]

"""Bet abstractions: which raise sizes a no-limit member's solver considers.

The real no-limit game lets a player raise to any amount from the minimum raise to all-in, far
too many actions to solve.  A bet abstraction keeps a few: per round, and per raise depth within
a round (the first bet, the raise over it, ...), a list of sizes, each

* ``a``: all-in;
* ``m``: the minimum raise;
* ``<x>p``: a fraction of the pot (``0.5p`` half pot, ``p`` pot, ``2p`` twice the pot), where,
  as in poker and in OpenSpiel's ``universal_poker``, the pot is counted after the player
  calls: raising to ``max bet + x * (chips in the pot + the amount to call)``, rounded half
  away from zero.

A size below the minimum raise becomes the minimum raise and one at or beyond the player's stack
becomes all-in (so sizes never leave the rules); equal amounts count once.  Folding and calling
are always kept.

``pushfold`` is push-or-fold: the small blind's first move is all-in or fold (no call of the
big blind), and nobody raises after it.

Written as text: sizes separated by spaces, raise depths by ``;`` and rounds by ``/``; the
last depth's list holds for deeper raises and the last round's for later rounds, so ``p a`` is
"pot or all-in, always".  Named abstractions, as ``universal_poker``'s ``bettingAbstraction``
names them: ``fullgame`` (every size: no abstraction), ``fcpa`` (pot and all-in; move for move
OpenSpiel's) and ``fc`` (fold and call only).

>>> parse("fcpa").sizes(round_=2, depth=3)
('p', 'a')
>>> parse("0.5p p a; p a / p a").text
'0.5p p a;p a/p a'
>>> parse("fc").raise_to(max_spent=2, pot=3, to_call=1, min_raise_to=4, stack=20, depth=0,
...                      round_=0)
()
>>> parse("0.5p p a").raise_to(max_spent=2, pot=3, to_call=1, min_raise_to=4, stack=20,
...                            depth=0, round_=0)
(4, 6, 20)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

NAMED = {"fcpa": "p a", "fc": ""}
"""universal_poker's names for abstractions we play the same way."""
FULL_GAME = "fullgame"
PUSH_FOLD = "pushfold"
_SIZE = re.compile(r"^(?:a|m|(\d+(?:\.\d+)?)?p)$")


@dataclass(frozen=True, slots=True)
class BetSizes:
    """A bet abstraction: `table[round][depth]` the size tokens kept there (see the module)."""

    table: tuple[tuple[tuple[str, ...], ...], ...]
    open_limp: bool = True
    """Whether the small blind may open by calling the big blind."""

    @property
    def text(self) -> str:
        """The abstraction as a spec writes it: a name where it has one."""
        if not self.open_limp:
            return PUSH_FOLD
        written = "/".join(";".join(" ".join(sizes) for sizes in round_)
                           for round_ in self.table)
        for name, text in NAMED.items():
            if written == text:
                return name
        return written

    def sizes(self, round_: int, depth: int) -> tuple[str, ...]:
        """The size tokens kept in round `round_` (0-based) after `depth` raises in it."""
        per_depth = self.table[min(round_, len(self.table) - 1)]
        return per_depth[min(depth, len(per_depth) - 1)]

    def raise_to(self, *, max_spent: int, pot: int, to_call: int, min_raise_to: int,
                 stack: int, depth: int, round_: int) -> tuple[int, ...]:
        """The amounts the abstraction raises to, increasing, given the largest contribution
        (`max_spent`), the chips in the pot, what the player must call, the smallest legal
        raise-to and the player's stack (the largest)."""
        amounts: set[int] = set()
        for token in self.sizes(round_, depth):
            if token == "a":
                amount = stack
            elif token == "m":
                amount = min_raise_to
            else:
                fraction = float(token[:-1]) if token[:-1] else 1.0
                amount = round_half_away(max_spent + fraction * (pot + to_call))
            amounts.add(min(max(amount, min_raise_to), stack))
        return tuple(sorted(amounts))


def round_half_away(value: float) -> int:
    """C's ``std::round``, which universal_poker's pot sizes use (Python's rounds half to even)."""
    return math.floor(value + 0.5) if value >= 0 else -math.floor(-value + 0.5)


def parse(text: str) -> BetSizes | None:
    """The abstraction `text` writes (see the module); None for ``fullgame``.  `ValueError`
    names what a size may be."""
    text = " ".join(text.split())
    if text == FULL_GAME:
        return None
    if text == PUSH_FOLD:
        return BetSizes(((("a",), ()),), open_limp=False)
    text = NAMED.get(text, text)
    table = []
    for round_text in text.split("/"):
        depths = []
        for depth_text in round_text.split(";"):
            tokens = tuple(depth_text.split())
            for token in tokens:
                if not _SIZE.match(token):
                    raise ValueError(
                        f"bet size {token!r} is not one of a (all-in), m (minimum raise) or "
                        f"a fraction of the pot such as 0.5p, p, 2p; in {text!r}")
            depths.append(tokens)
        table.append(tuple(depths))
    return BetSizes(tuple(table))


__all__ = ["FULL_GAME", "NAMED", "PUSH_FOLD", "BetSizes", "parse", "round_half_away"]

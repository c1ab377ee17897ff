"""A no-limit member's blueprint betting: the bet sizes and raise caps the blueprint is solved
in (`solver.abstractions.holdem.sampled_cfr.SampledSetup.betting`), and how a solve in them is
described for the store (played by `solver.abstractions.holdem.translated`)."""

from __future__ import annotations

from dataclasses import replace

from solver.games.holdem.bet_sizes import parse as parse_bet_sizes
from solver.games.holdem.rules import HoldemRules

BLUEPRINT_BETTING = "0.5p p a;p a/0.5p p a;p a/p a;a|4 3 2 2"
"""A no-limit blueprint's default betting (`SampledSetup.betting`): half pot, pot and all-in
for a round's first bet before and on the flop, pot and all-in for the raises over it; pot and
all-in, then all-in, on the turn and river; at most 4, 3, 2 and 2 raises a round.  At 200 big
blinds, 3,908 decision points: an hour of two cores goes over some 22,000 boards
(docs/games/no-limit.md)."""
TRANSLATED, IN = "translated", " in "
"""How a blueprint solved in a bet abstraction is described: ``translated=<buckets> in <the
game solved>`` (`solver.abstractions.holdem.translated`, which registers the kind)."""


def abstract_rules(member: HoldemRules, betting: str) -> HoldemRules:
    """`member` in the bet abstraction and raise caps `betting` (``<sizes>|<caps>``, see
    `SampledSetup.betting`; empty: `member` itself)."""
    if not betting:
        return member
    sizes, _, caps = betting.partition("|")
    bets = parse_bet_sizes(sizes)
    if bets is None:
        raise ValueError("a blueprint keeps some sizes, not every one (fullgame)")
    try:
        max_raises = tuple(int(c) for c in caps.replace(",", " ").split())
    except ValueError:
        raise ValueError(f"raise caps are whole numbers per round, not {caps!r}") from None
    return replace(member, bets=bets, max_raises=max_raises or member.max_raises)


__all__ = ["BLUEPRINT_BETTING", "IN", "TRANSLATED", "abstract_rules"]

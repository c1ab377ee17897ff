"""What the pages and the API say of a bot's strength, made from its stored solve alone: whether
it is an equilibrium of the game itself (no abstraction) or of a simplified game, and its
exploitability where that was measured exactly; what was measured of an abstraction comes from
its kind's own words (`solver.abstractions.describe`). Every sentence about how strong a bot is
comes from here, so that no page calls an abstraction's strategy unbeatable.
"""

from __future__ import annotations

import math

from app.schemas import BotNature
from solver.abstractions import describe
from strategies import SolveInfo

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(x: float | None) -> str:
    """Small numbers as ``3.2×10⁻⁵``; ordinary ones as they are."""
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.4g}"
    mantissa, exponent = f"{x:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def exploitability(info: SolveInfo) -> float | None:
    """The solve's exploitability where it was measured exactly (None where it could not be)."""
    return info.exploitability if math.isfinite(info.exploitability) else None


def bot_nature(info: SolveInfo) -> BotNature:
    """The bot of `info` in words: what it plays and how strong that is (`BotNature.summary`),
    from the stored descriptor and exploitability only."""
    words = describe(info.abstraction)
    measured = exploitability(info)
    reply = (f"a perfect opponent who knew its strategy would win {sci(measured)} a hand from "
             f"it, on average over both seats" if measured is not None else None)
    if words is None:
        summary = (f"It plays an equilibrium of the game itself: {reply}, and no way of playing "
                   "wins more than that from it beyond the game's value, in the long run."
                   if reply is not None else
                   "It plays an equilibrium of the game itself as far as the solver took it; "
                   "how exploitable it is was not measured.")
        return BotNature(exact=True, abstraction=None, measured=None, plain=None,
                         summary=summary)
    summary = (f"It plays an equilibrium of a simplified game, not of the game itself: "
               f"{words.summary}. So nothing guarantees that it cannot be beaten"
               + (f": {reply}." if reply is not None else "."))
    return BotNature(exact=False, abstraction=words.what, measured=words.measured,
                     plain=words.summary, summary=summary)


def equilibrium_title(info: SolveInfo | None) -> str:
    """What the game's own bot is called as an opponent: the equilibrium where it is one of the
    game itself, the solved bot otherwise."""
    return "The equilibrium" if info is None or not info.abstraction else "The solved bot"

"""What Local Best Response may do in each round: its action sets.

Lisý and Bowling (2017) restrict LBR's own moves per round, because which moves it has decides
what it finds: in their no-limit table LBR that may only fold or call in every round wins far
less from the same bots than LBR that only checks and calls through the first two rounds and
then may fold, call, bet the pot or go all-in (greedy early bets fold the bot out of pots before
it has put chips in).  A setting names each round's moves with letters:

* ``f`` fold (when facing a bet) and ``c`` check or call (always allowed);
* ``r`` every raise the betting offers (limit betting's one raise, or a bet abstraction's);
* ``p`` a pot-sized raise and ``a`` all-in, in no-limit betting
  (`solver.games.holdem.policy.pot_raise`, `all_in`).

A setting is written round by round, ``c/c/fcpa/fcpa``; for a member with fewer rounds its last
rounds apply (its last round plays as the setting's river).

>>> paper = LBRSetting.parse("fcpa")
>>> paper.text, paper.letters(0, 4), paper.letters(3, 4), paper.letters(1, 2)
('c/c/fcpa/fcpa', 'c', 'fcpa', 'fcpa')
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.games.holdem.betting import CALL, FOLD, RAISE, Betting
from solver.games.holdem.policy import all_in, pot_raise

LETTERS = "fcrpa"

NAMED = {
    "fcr": "fcr",
    "fc": "fc/fc/fc/fc",
    "fcpa": "c/c/fcpa/fcpa",
}
"""Settings by name: ``fcr`` (limit LBR: fold, call or raise everywhere) and the paper's two
no-limit settings this project plays: ``fc`` (fold or call in every round) and ``fcpa`` (check
and call through the first two rounds, then fold, call, pot or all-in).  The paper's third
setting (56 bet sizes on the turn and river) is not reproduced: its list of sizes is not
restated here."""


@dataclass(frozen=True, slots=True)
class LBRSetting:
    """LBR's moves per round (see the module)."""

    rounds: tuple[str, ...]

    @classmethod
    def parse(cls, text: str) -> LBRSetting:
        """A setting by name (`NAMED`) or written round by round (``fc/fc/fc/fcpa``)."""
        written = NAMED.get(text, text)
        rounds = tuple(written.split("/"))
        bad = sorted({ch for r in rounds for ch in r if ch not in LETTERS})
        if not written or bad or any(not r for r in rounds):
            raise ValueError(f"an LBR setting is one of {', '.join(NAMED)} or rounds of the "
                             f"letters {LETTERS} separated by '/' (f fold, c call, r any raise, "
                             f"p pot, a all-in), not {text!r}")
        return cls(rounds)

    @property
    def text(self) -> str:
        return "/".join(self.rounds)

    def letters(self, round_: int, num_rounds: int) -> str:
        """The moves of round `round_` (0-based) of a member with `num_rounds` rounds."""
        at = round_ + len(self.rounds) - num_rounds
        return self.rounds[min(max(at, 0), len(self.rounds) - 1)]

    def moves(self, betting: Betting) -> tuple[int, ...]:
        """The legal actions LBR weighs at `betting`: check or call, and what the round's
        letters add."""
        rules = betting.rules
        letters = self.letters(betting.round, rules.num_rounds)
        out = [CALL]
        if "f" in letters and betting.is_legal(FOLD):
            out.append(FOLD)
        if "r" in letters:
            if rules.no_limit and rules.bets is None:
                raise ValueError("'r' (every raise) has thousands of amounts with every size; "
                                 "use p (pot) and a (all-in)")
            out.extend(a for a in betting.legal_actions() if a >= RAISE)
        if rules.no_limit:
            wanted = [pot_raise(betting)] if "p" in letters else []
            wanted += [all_in(betting)] if "a" in letters else []
            out.extend(a for a in wanted if a is not None and a not in out)
        return tuple(out)


__all__ = ["NAMED", "LBRSetting"]

"""The hold'em family, limit and no-limit: one parameterised game (`HoldemRules`, the
parameters of an ACPC game definition / OpenSpiel's ``universal_poker``) and its named members.

* `solver.games.holdem.rules`: the parameters and the two ways of writing them
  (``universal_poker(...)`` and our ``holdem(...)`` spec);
* `solver.games.holdem.betting`: limit and no-limit betting, cards aside;
* `solver.games.holdem.bet_sizes`: bet abstractions, the raise sizes a no-limit solver keeps;
* `solver.games.holdem.game`: the game and its states, move for move universal_poker's;
* `solver.games.holdem.names`: poker hands in words;
* `solver.games.holdem.words`: the rules, notes, rounds and seats in words, for the lobby and
  the table;
* `solver.games.holdem.view`: `HoldemView`, how a player sees a member (cards, board, pot,
  showdown, the grid of hand classes, PHH), which only the app uses;
* `solver.games.holdem.tree`: the compiled public tree, built from the rules (card removal,
  showdowns by sorted hand strength);
* `solver.games.holdem.history`: hands written as PHH, the Poker Hand History format.
* `solver.games.holdem.push_fold`: push or fold, no-limit at a few big blinds, solved exactly.
* `solver.games.holdem.policy`: `HoldemPolicy`, what a strategy of any member answers for a
  whole range of hole cards at once (the bots' and the evaluations' shared interface).

Its card abstractions (hands bucketed by strength) are in `solver.abstractions.holdem`.
"""

from solver.games.holdem import push_fold
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.rules import HOLDEM_MINI, HULHE, HUNL, NO_LIMIT_LEDUC, HoldemRules, parse

MEMBERS: dict[str, tuple[HoldemRules, str]] = {
    "holdem": (HULHE, "Heads-up limit Texas hold'em"),
    "holdem-mini": (HOLDEM_MINI, "Hold'em mini"),
    "nolimit-leduc": (NO_LIMIT_LEDUC, "No-limit Leduc"),
    "hunl": (HUNL, "Heads-up no-limit Texas hold'em"),
}
"""The named members: name -> (rules, title)."""


def member(name: str) -> HoldemGame:
    """A named member (``holdem``, ``holdem-mini``, ``nolimit-leduc``)."""
    rules, title = MEMBERS[name]
    return HoldemGame(rules, name, title)


def from_text(text: str) -> HoldemGame:
    """The member a ``holdem(...)`` spec or a ``universal_poker(...)`` string names; a named
    member keeps its name."""
    rules = parse(text)
    for name, (named, title) in MEMBERS.items():
        if named == rules:
            return HoldemGame(rules, name, title)
    if push_fold.is_push_fold(rules):
        stack = (rules.stacks or (0, 0))[0]
        named_stack = stack // rules.big_blind
        if stack % rules.big_blind == 0 and named_stack in push_fold.STACKS_BB:
            return push_fold.PushFoldGame(rules, push_fold.name(named_stack))
        return push_fold.PushFoldGame(rules)
    return HoldemGame(rules)


def push_or_fold(stack_bb: int) -> HoldemGame:
    """Push or fold at `stack_bb` big blinds."""
    return push_fold.PushFoldGame(push_fold.rules(stack_bb), push_fold.name(stack_bb))


__all__ = ["HOLDEM_MINI", "HULHE", "HUNL", "MEMBERS", "NO_LIMIT_LEDUC", "HoldemGame", "HoldemRules",
           "HoldemState", "from_text", "member", "push_or_fold"]

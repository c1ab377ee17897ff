"""Hold'em in words, for the lobby and the table: the rules in two lines, the notes a newcomer
needs, what the rounds and the seats are called (poker players name the blinds and the button),
all from a member's `HoldemRules`."""

from __future__ import annotations

from solver.games.holdem.names import RANK_NAMES
from solver.games.holdem.rules import HoldemRules
from solver.games.view_values import Seat

FOUR_STREETS = ("Preflop", "Flop", "Turn", "River")


def street(d: HoldemRules, round_: int) -> str:
    """What a round is called: Preflop .. River in Texas hold'em's shape, else by number."""
    if d.num_rounds == 4 and d.board_cards == (0, 3, 1, 1):
        return FOUR_STREETS[round_]
    return f"Round {round_ + 1}"


def rules_text(d: HoldemRules) -> str:
    """The rules in two lines, for the lobby."""
    top = RANK_NAMES[d.num_ranks - 1]
    deck = (f"{d.num_cards} cards (Two to {top}"
            + (f" in {d.num_suits} suit{'s' if d.num_suits > 1 else ''})"
               if d.num_suits < 4 else ")"))
    dealt = [str(b) for b in d.board_cards if b]
    board = (" and ".join([", ".join(dealt[:-1]), dealt[-1]] if len(dealt) > 1 else dealt)
             + f" board card{'s' if sum(d.board_cards) > 1 else ''}") if dealt else "no board"
    posted = (f"an ante of {d.blinds[0]} each" if _antes(d)
              else f"blinds {max(d.blinds)} and {min(d.blinds)}")
    dealt_text = (f"{deck}; {d.hole_cards} private card{'s' if d.hole_cards > 1 else ''} "
                  f"each, then {board}; {posted}.\n")
    if d.no_limit:
        stack = _stacks(d)
        if d.push_or_fold:
            return (f"{dealt_text}{stack.capitalize()}; the small blind goes all-in or folds, "
                    f"the big blind calls or folds; the best hand of private and board cards "
                    f"wins.")
        return (f"{dealt_text}No limit: {stack}, raise to any amount up to all-in; the best "
                f"hand of private and board cards wins.")
    caps = (str(d.max_raises[0]) if len(set(d.max_raises)) == 1
            else "/".join(map(str, d.max_raises)))
    return (f"{dealt_text}Fixed bets of {'/'.join(map(str, d.raise_sizes))} by round, at most "
            f"{caps} bets and raises a round; the best hand of private and board cards wins.")


def _stacks(d: HoldemRules) -> str:
    """The stacks in words: ``stacks of 1000 chips (10 big blinds)``."""
    stacks = d.stacks or (0, 0)
    big = d.big_blind
    unit = "antes" if _antes(d) else "big blinds"
    each = [f"{s} chips ({s / big:g} {unit})" for s in stacks]
    return f"stacks of {each[0]}" if stacks[0] == stacks[1] else f"stacks of {' and '.join(each)}"



def _antes(d: HoldemRules) -> bool:
    """Equal blinds are antes, as in Leduc: nobody is the big blind."""
    return d.blinds[0] == d.blinds[1]


def role(d: HoldemRules, seat: int) -> str:
    """The seat by its blind (``"the big blind"``), or by its place where the blinds are equal."""
    small, big = sorted(d.blinds)
    if small == big:
        return ("the first seat", "the second seat")[seat]
    return "the big blind" if d.blinds[seat] == big else "the small blind"


def seat_of(d: HoldemRules, seat: int) -> Seat:
    """A seat as poker players say it: its blind, and when it acts (heads up the small
    blind is the button, first before the flop and second after it)."""
    turns = ["first" if p == seat else "second" for p in d.first_player[:d.num_rounds]]
    if len(set(turns)) == 1:
        order = turns[0]
    elif len(set(turns[1:])) == 1 and street(d, 0) == FOUR_STREETS[0]:
        order = f"{turns[0]} before the flop, {turns[1]} after it"
    else:
        order = ", ".join(f"{t} in round {r + 1}" for r, t in enumerate(turns))
    if len(set(d.blinds)) == 1:
        return Seat(("first", "second")[seat], order)
    name = role(d, seat)
    return Seat(name[4:], order, name + (" (the button)" if "small" in name else ""))


def notes(d: HoldemRules) -> tuple[str, ...]:
    """What a newcomer needs at the table beyond the two lines of rules."""
    small, big = sorted(d.blinds)
    if small == big:
        blinds = f"Both seats put in an ante of {big} before the cards"
    else:
        blinds = (f"The first seat posts the {role(d, 0).removeprefix('the ')} "
                  f"({d.blinds[0]}) and the second the "
                  f"{role(d, 1).removeprefix('the ')} ({d.blinds[1]}) before the cards")
    order = f"{blinds}; {role(d, d.first_player[0])} acts first in the first round"
    if d.num_rounds > 1 and set(d.first_player) == {d.first_player[0]}:
        order = f"{blinds}; {role(d, d.first_player[0])} acts first in every round."
    elif d.num_rounds > 1:
        later = {role(d, p) for p in d.first_player[1:]}
        order += (f" and {later.pop()} in the later ones." if len(later) == 1
                  else ", and the later rounds alternate as the rules say.")
    else:
        order += "."
    notes = [order, *_betting_notes(d)]
    total = d.hole_cards + sum(d.board_cards)
    if total >= 5:
        notes.append("At the showdown the best five of your cards and the board play, "
                     "ranked as in Texas hold'em; equal hands split the pot.")
    else:
        kinds = ["four of a kind"] if total >= 4 and d.num_suits >= 4 else []
        kinds += ["three of a kind"] if total >= 3 and d.num_suits >= 3 else []
        kinds += ["two pair"] if total >= 4 else []
        kinds += ["a pair", "high cards"]
        notes.append(f"At the showdown each player has {total} cards, too few for straights "
                     f"or flushes: from the best, {', '.join(kinds)} (higher ranks first, "
                     f"then the kickers). Equal hands split the pot.")
    return tuple(notes)


def _betting_notes(d: HoldemRules) -> list[str]:
    if d.push_or_fold:
        return [f"Push or fold: {_stacks(d)}, reset every hand. The small blind either goes "
                f"all-in (a raise to its whole stack) or folds; facing the all-in the big blind "
                f"calls or folds, and a called all-in deals the board to the river.",
                "This is a restriction of no-limit hold'em: close to the best play at short "
                "stacks, not at deep ones, where smaller raises and limps matter."]
    if d.no_limit:
        return [f"No limit: {_stacks(d)}, reset every hand. A bet or raise goes to any amount "
                f"from the minimum raise (the {'ante' if _antes(d) else 'big blind'}, or the "
                f"last raise's size on top of the bet) to all-in; with fewer chips you may "
                f"still go all-in.",
                "Facing a bet you may fold, call or raise; otherwise check or bet. A round "
                "ends when a bet is called or both players check; an all-in that is called "
                "deals the rest of the board."]
    sizes = ", ".join(f"{size} in round {r + 1}" for r, size in enumerate(d.raise_sizes))
    caps = (f"{d.max_raises[0]}" if len(set(d.max_raises)) == 1
            else " / ".join(map(str, d.max_raises)) + " (round by round)")
    return [f"Bets and raises have a fixed size: {sizes}. Each round allows at most {caps} bets "
            f"and raises, the blinds not counted (a raise in the first round raises the big "
            f"blind).",
            "Facing a bet you may fold, call or raise; otherwise check or bet. A round ends "
            "when a bet is called or both players check."]

"""Poker hands in words, for the sentence that ends a hand ("a pair of Fours beats Five high").

Which hand wins is the evaluator's business (`solver.cards.evaluator`, the same order as
universal_poker's); this module only names the best hand a player's cards make, and the kicker
that separates two hands of the same name.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from solver.cards.deck import Deck
from solver.cards.evaluator import Category, category, evaluate

RANK_NAMES = ("Two", "Three", "Four", "Five", "Six", "Seven", "Eight", "Nine", "Ten", "Jack",
              "Queen", "King", "Ace")
RANK_PLURALS = ("Twos", "Threes", "Fours", "Fives", "Sixes", "Sevens", "Eights", "Nines",
                "Tens", "Jacks", "Queens", "Kings", "Aces")


@dataclass(frozen=True, slots=True)
class HandName:
    """The best hand of some cards: its words and its ranks in the order they count (the
    paired rank before the kickers, a straight by its top card)."""

    text: str
    ranks: tuple[int, ...]


def name_hand(cards: Sequence[int], deck: Deck) -> HandName:
    """The name of the best hand `cards` (ids of `deck`, 1 to 7 of them) make.

    Five or more cards play their best five, as the evaluator values them; fewer play them all,
    without straights or flushes (universal_poker's rule for short hands)."""
    if len(cards) >= 5:
        best = max(itertools.combinations(cards, 5), key=lambda five: evaluate(five, deck))
        return _name_five(best, deck)
    return _name_by_ranks([deck.rank(c) for c in cards])


def _name_five(cards: Sequence[int], deck: Deck) -> HandName:
    kind = category(evaluate(cards, deck))
    ranks = sorted((deck.rank(c) for c in cards), reverse=True)
    if kind in (Category.STRAIGHT, Category.STRAIGHT_FLUSH):
        top = 3 if ranks == [12, 3, 2, 1, 0] else ranks[0]  # the wheel is five-high
        if kind == Category.STRAIGHT_FLUSH:
            text = "a royal flush" if top == 12 else f"a straight flush, {RANK_NAMES[top]} high"
        else:
            text = f"a straight, {RANK_NAMES[top]} high"
        return HandName(text, (top,))
    if kind == Category.FLUSH:
        return HandName(f"a flush, {RANK_NAMES[ranks[0]]} high", tuple(ranks))
    return _name_by_ranks(ranks)


def _name_by_ranks(ranks: Sequence[int]) -> HandName:
    """Pairs, trips and the like: all a hand of fewer than five cards, or one with no straight
    or flush, can be."""
    counts = Counter(ranks)
    order = tuple(sorted(counts, key=lambda r: (counts[r], r), reverse=True))
    shape = sorted(counts.values(), reverse=True)
    top = order[0]
    if shape[0] == 4:
        text = f"four of a kind, {RANK_PLURALS[top]}"
    elif shape[0] == 3 and len(shape) > 1 and shape[1] >= 2:
        text = f"a full house, {RANK_PLURALS[top]} full of {RANK_PLURALS[order[1]]}"
    elif shape[0] == 3:
        text = f"three of a kind, {RANK_PLURALS[top]}"
    elif shape[0] == 2 and len(shape) > 1 and shape[1] == 2:
        text = f"two pair, {RANK_PLURALS[top]} and {RANK_PLURALS[order[1]]}"
    elif shape[0] == 2:
        text = f"a pair of {RANK_PLURALS[top]}"
    else:
        text = f"{RANK_NAMES[top]} high"
    return HandName(text, order)


def kicker(winner: HandName, loser: HandName) -> str:
    """``" (Four kicker against Three)"`` when the two hands have the same name, else ``""``."""
    if winner.text != loser.text:
        return ""
    for mine, theirs in zip(winner.ranks, loser.ranks, strict=False):
        if mine != theirs:
            return f" on the kicker, {RANK_NAMES[mine]} against {RANK_NAMES[theirs]}"
    return ""

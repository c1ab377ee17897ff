"""Cards for hold'em-style games: ids and names, hand values, suit isomorphism, hand strength.

No game logic lives here; game modules and solver kernels build on these pieces, most of which
are numba functions so that a kernel can call them once per hand:

* `solver.cards.deck`: card ids ``rank * num_suits + suit`` (OpenSpiel's), names like ``As``.
* `solver.cards.evaluator`: hand values of 1 to 7 cards, higher is better (`rank7`, `evaluate`).
* `solver.cards.isomorphism`: canonical indices of deals up to suits (`HandIndexer`).
* `solver.cards.strength`: exact E[HS] and E[HS²] of every hand class (`ehs_tables`, `ehs`).
"""

from solver.cards.deck import STANDARD, Deck
from solver.cards.evaluator import Category, category, evaluate, rank7, rank_cards, rank_hands
from solver.cards.isomorphism import HandIndexer, index_hand, unindex_hand
from solver.cards.strength import HOLDEM, Streets, StrengthTables, ehs, ehs_tables

__all__ = [
    "HOLDEM", "STANDARD", "Category", "Deck", "HandIndexer", "Streets", "StrengthTables",
    "category", "ehs", "ehs_tables", "evaluate", "index_hand", "rank7", "rank_cards",
    "rank_hands", "unindex_hand",
]

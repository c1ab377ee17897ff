"""Cards for hold'em-style games: ids and names, hand values, suit isomorphism, hand strength.

No game logic lives here; the game modules and solver kernels build on these pieces, most of
which are numba functions so that kernels can call them per hand.
"""

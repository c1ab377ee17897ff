"""What a node of a compiled tree is: the one definition both tree layouts and their kernels read.

`solver.engine.tree` and `solver.engine.history_tree` store one of these per node in their ``kind``
array; `solver.engine.kernels` and `solver.algorithms.mccfr` branch on them.  Every kind other than
`CHANCE_NODE` and `DECISION_NODE` is a terminal: the full-width kernels hand `TERMINAL_NODE` to
`solver.engine.kernels.terminal_values` and a card game's `FOLD_NODE` and `SHOWDOWN_NODE` to
`solver.engine.kernels.card_terminal_values`, so a new kind of terminal is a new constant here and a
new branch there.
"""

from __future__ import annotations

TERMINAL_NODE = 0
"""A terminal whose payoffs are stored: the public tree's chance-weighted payoff matrix, the
history tree's payoff of player 0."""
CHANCE_NODE = 1
"""A public chance event (Leduc's board card); private deals are folded into the payoffs."""
DECISION_NODE = 2
"""A node where one player (the tree's ``actor``/``player``) chooses an action."""
FOLD_NODE = 3
"""A card game's fold: one payoff for every deal, so the value of a hand is that payoff times
the opponent's reach over the hands that share no card with it (public tree only)."""
SHOWDOWN_NODE = 4
"""A card game's showdown: the stronger hand takes the stake, evaluated against the opponent's
hands in order of strength with card removal (public tree only)."""

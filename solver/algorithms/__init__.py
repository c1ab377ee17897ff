"""The algorithms: what turns a compiled game into a strategy, and what measures one exactly.

* the CFR family on the public tree (`cfr`), and the same updates streamed over a tree whose
  every node holds every private state (`streaming_cfr`); Monte Carlo CFR on the history tree
  (`mccfr`); fixed-strategy iteration CFR on an abstraction's graph (`fsicfr`); the
  sequence-form LP (`lp`); regret matching on a matrix game (`regret_matching`);
* exact evaluation: `exploitability`, `action_values`, and the slow, obviously correct
  referees of the tests (`reference`); tabular policies (`policy`);
* `solve`: any of them driven to a stopping rule, with its convergence trace.

Re-solving a subgame at play time has a package of its own (`solver.resolving`).

Nothing here names a game: what suits a game (the fastest schedule, a payoff matrix) is
declared by the game.
"""

"""The engine: what a game becomes to be solved fast, whatever the game.

* `solver.engine.tree`: the public tree as arrays (`TreeArrays`, `PublicTree`, `pack_tree`);
* `solver.engine.compile`: `compile_game(game)`, a `Game` walked (or compiled by itself) into
  that tree, cached on disk;
* `solver.engine.history_tree`: every history as arrays, for the sampling kernels;
* `solver.engine.node_kinds`: what a node is;
* `solver.engine.kernels`: the numba passes over a tree (reach, CFR update, evaluation, best
  response, regret matching);
* `solver.engine.progress`: the progress bars of long work and the build-status file.

The engine knows the interface of a game (`solver.games.base`) and no game: a caller looks a
name up in the registry (`solver.games.get_game`) and hands the engine the `Game`.
"""

"""Jobs that solve, measure and store: what the CLI's commands run.

* `store_solve`: the one way a solve of any kind goes into the strategy store;
* `build`: the quick games and a game's own build command; `background`: the lobby's long games
  built one after the other, each in a process of its own, and `build_status` what the app
  reads of that build; `run_plan`: what a run needs in memory and its phases, checked before it
  allocates (``--dry-run`` prints it);
* `dudo_match`, `hulhe`: the two long builds, on Dask (`dask`: the one client helper, which
  `solver.resolving.measure` uses too);
* `experiments`: what an abstraction costs, measured exactly (recall-cost, bucket-cost);
* `export`: a stored strategy as JSON or in OpenSpiel's terms; `sizes`: how big a game is.

Names of games are resolved here (and in the CLI and the app), with `solver.games.get_game`;
below this layer everything takes a `Game` or a compiled tree.
"""

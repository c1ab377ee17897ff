"""Re-solving: a player's strategy below a public state solved again at play time, with what is
known at that moment (DeepStack's continual re-solving, Libratus's safe re-solving), from the
algorithm to the hold'em bot that plays by it, how it is stored and how it is measured.

Over any compiled tree (no game named):

* `resolve`: a subgame re-solved, unsafely or safely (CFR-D's gadget, max-margin);
* `subtree`: a subtree of a compiled tree as a tree of its own; `continual`: every subgame of
  a whole tree re-solved in turn, each handing its ranges to the next, assembled into one
  strategy.

The limit hold'em bot:

* `subgame`: the rest of a hand below a public state, compiled at play time in the engine's
  layout; `turn_subgame`, `turn_kernel`, `turn_resolve`: the turn's subgame in a dense layout,
  its numba passes, and its re-solve within a second;
* `solved`: one re-solve and what it hands the next; `resolving_bot`: the bot that plays its
  blueprint early in the hand and re-solves from a chosen round on;
* `kind`: the descriptor kind ``resolving`` that the app plays; `store`: a store's latest
  blueprint saved again as the re-solving bot.

The no-limit bot: `no_limit_bot`, which plays a translated blueprint until the last round and
re-solves that round against whatever size was bet (the same descriptor kind, over a
translated blueprint); `kept`: what both bots share (their re-solves by public state, a
range's rows, the first re-solve's alternatives against a blueprint).

Measuring it:

* `measure`: in heads-up limit hold'em itself, a duplicate match and LBR on Dask and the time
  of each decision (``python -m solver.resolving.measure``);
* `measure_exactly`: on small members, exactly: every subgame re-solved as the bot would and
  the whole profile's exploitability (``python -m solver.resolving.measure_exactly``);
  `measure_no_limit`: the same in no-limit betting, a blueprint of a bet abstraction played
  by translation alone, by re-solving with every size in the subgame, or by the no-limit bot
  (``python -m solver.resolving.measure_no_limit``).
"""

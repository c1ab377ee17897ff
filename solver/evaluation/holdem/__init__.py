"""Measuring a limit hold'em bot in the real game, where exact best responses are out of reach.

* `solver.evaluation.holdem.policy`: `TabularPolicy`, an exact strategy of a small member played
  through the game's keys as a `solver.games.holdem.policy.HoldemPolicy` (what a bot of any
  member offers: its action probabilities for a whole range of hole cards at once), and the
  exact evaluation of two such policies;
* `solver.evaluation.holdem.baselines`: always-call, always-raise, uniform and an equity-threshold
bot;
* `solver.evaluation.holdem.duplicate`: duplicate matches (each deal played twice, the seats
swapped)
  and self-play, in milli-big-blinds per hand with 95% intervals;
* `solver.evaluation.holdem.luck`: the luck of the cards and of known strategies' choices in a
  played hand, taken out of its result (both of the above report it: the same mean, a narrower
  interval);
* `solver.evaluation.holdem.lbr`: Local Best Response, a lower bound on a policy's exploitability;
* `solver.evaluation.holdem.line_frequencies` / `flop_values`: how a bot's range acts along a
  line of betting, and what each action at a flop decision earns in the real game against the
  bot's own play after it (its regret there).

The re-solving bot is measured with these by `solver.resolving.measure` (and exactly, on small
members, by `solver.resolving.measure_exactly`).
"""

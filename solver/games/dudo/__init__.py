"""Dudo (Liar's Dice) for two players, from one die each to a whole match.

* `solver.games.dudo.rules`: the rules of a round (`DudoRules`: the dice, the faces, calzo),
  the bids in order, the rolls with their probabilities, what a call pays and why;
* `solver.games.dudo.game`: `DudoGame` and its states, one round as a `Game`;
* `solver.games.dudo.tree`: a round's public tree laid out directly as arrays (the engine's
  format), millions of information sets in seconds;
* `solver.games.dudo.match`: `DudoMatchGame`, a whole match from five dice each as one game;
* `solver.games.dudo.view`: how a player sees a round and a match (`DudoView`,
  `DudoMatchView`), which only the app uses.
"""

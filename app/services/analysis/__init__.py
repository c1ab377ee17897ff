"""What a played hand is worth to a player, once it is over: replayed, judged by the coach, its
luck taken out, and the statistics of a match's results. Imports the bots, never the play.

===============  ============================================================================
``trace``        a hand's actions replayed once into the states around each of them
``coach``        what each of the human's decisions cost, and the result without the luck
``openings``     the luck of a hand's opening, learnt over the match's earlier hands
``analyse``      a finished hand's analysis, computed once (at once or in the background)
``results``      a match's statistics from its running totals, and the one verdict
===============  ============================================================================
"""

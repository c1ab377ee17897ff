"""Playing: the games on offer, matches and their hands against a bot, who may open them, and
what the human may see. Imports the bots and the analysis, never the players' room.

==============  =============================================================================
``catalog``     the games, their solved strategies and convergence traces (read only)
``opponents``   whom a match is played against: the equilibrium or an exploitable opponent
``explorer``    the strategy at a spot named by a board and a betting line
``matches``     creating, listing, exporting a match, and reading its results
``hands``       dealing, acting, looking at and resuming hands, each action exactly once
``views``       what the human may see of a hand, and its replay
``tokens``      who may open a match: a bearer token, a browser, an account
``series``      a match's running series, sampled for its chart
``forfeits``    unfinished hands settled as forfeits, so none can be abandoned
==============  =============================================================================
"""

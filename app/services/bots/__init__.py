"""The bots: the solved strategies they read from the store, what they play, what a position
is worth to them, and how strong they are. The lowest room of the services: it imports none
of the others.

===================  ========================================================================
``strategy_source``  the strategy store, read so that its faults never take the app down
``bot``              what the bot plays at a position: probabilities over the legal actions
``reply_values``     an exploitable opponent's stored solve read as a value function
``valuers``          each solve's value function, built once per process
``strength``         what the pages and the API say of a bot's strength
``warm``             warming the strategies in the background, at start and after a build
===================  ========================================================================
"""

"""The players: accounts and their passwords, personal API keys, how often a password may be
tried, and the profiles and leaderboards read from the running totals. The top room of the
services: it may import the others.

==============  =============================================================================
``accounts``    signing up, in and out; a new password; the boards; closing an account
``passwords``   what a new password must be (NIST SP 800-63B)
``throttle``    how often a password may be tried, and by whom
``api_keys``    personal API keys: made, listed and revoked, shown once
``profiles``    a player's profile and the leaderboards
==============  =============================================================================
"""

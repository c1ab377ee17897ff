"""Algorithms over compiled trees: the CFR family, best response, and (issue 20) safe subgame
re-solving."""

"""Measuring hold'em bots (issue 20's additions; `solver.holdem_eval` until the restructure
moves it here)."""

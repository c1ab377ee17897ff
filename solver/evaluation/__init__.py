"""Measuring strategies: a stored solve read back onto its compiled tree (`stored`), and, where
exact best response is out of reach, the hold'em bots in the real game (`holdem`: duplicate
matches, baselines, local best response)."""

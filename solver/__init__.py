"""Offline solver: games, the CFR family, exact evaluation, the sequence-form LP and a CLI."""

__version__ = "0.1.0"

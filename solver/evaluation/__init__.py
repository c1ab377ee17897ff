"""Evaluation where exact best response is out of reach, and the exact checks of what is
measured there on members small enough."""

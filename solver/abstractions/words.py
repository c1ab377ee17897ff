"""An abstraction in words, for the people who play against a strategy solved in it: each kind
says what its parameters make (`Describer`), and `solver.abstractions.describe` reads a stored
descriptor with it, without building the abstraction (which may mean big tables)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class AbstractionText:
    """What a bot's abstract game keeps and forgets, and what was measured of it."""

    what: str
    """What the bot's abstract game keeps and forgets, as the end of "It plays …", with the
    technical names a curious reader may look up."""
    measured: str
    """How exploitable a strategy of it was measured to be in the real game, or that it was
    not (the real game too big to check exactly)."""
    plain: str = ""
    """What the abstract game forgets in a few everyday words, for a newcomer (``hands
    grouped by how strong they are (8 a round) rather than told apart card by card``)."""

    @property
    def summary(self) -> str:
        """`plain`, or `what` where the kind has no plain words."""
        return self.plain or self.what


Describer = Callable[[str], AbstractionText]
"""Says in words what the parameters after ``kind=`` in a descriptor make."""

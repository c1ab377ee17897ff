"""A hand's actions replayed once into the states around each of them.

A request replays the stored actions of its hand once; the moves it adds (the human's action,
chance, the bot) extend the same trace, and the view is drawn from it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from app.db.hand_store import Recorded
from solver.games import Game, State


@dataclass(frozen=True, slots=True)
class Step:
    """One action with the states around it."""

    recorded: Recorded
    before: State
    after: State


@dataclass(slots=True)
class Trace:
    game: Game
    steps: list[Step] = field(default_factory=list)

    @classmethod
    def replay(cls, game: Game, actions: Sequence[Recorded]) -> Trace:
        trace = cls(game)
        for action in actions:
            trace.append(action)
        return trace

    @property
    def state(self) -> State:
        return self.steps[-1].after if self.steps else self.game.initial_state()

    @property
    def seq(self) -> int:
        """The number of recorded actions: the version of the hand's view."""
        return len(self.steps)

    def append(self, recorded: Recorded) -> State:
        before = self.state
        after = before.apply_action(recorded.action)
        self.steps.append(Step(recorded, before, after))
        return after

    def recorded_since(self, seq: int) -> list[Recorded]:
        return [step.recorded for step in self.steps[seq:]]

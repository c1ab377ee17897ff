"""Tabular policies: what every solver returns and every evaluator, exporter and store reads.

A `Policy` maps an information-set key to ``{action id: probability}`` over the legal actions
there, the same shape as OpenSpiel's tabular policies, so converting is a renaming.
`infosets` walks a game once and lists every information set with its legal actions and labels:
the solvers index their arrays by it and the store records the labels from it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass

from solver.games.base import Game, State

Policy = Mapping[str, Mapping[int, float]]


@dataclass(frozen=True, slots=True)
class Infoset:
    """One information set: who acts, what is legal, and how the game calls it."""

    key: str
    player: int
    actions: tuple[int, ...]
    labels: tuple[str, ...]


def iter_states(game: Game) -> Iterator[State]:
    """Every state of `game`, depth first, chance nodes and terminals included."""
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        yield state
        if not state.is_terminal():
            stack.extend(state.apply_action(a) for a in reversed(state.legal_actions()))


def infosets(game: Game) -> dict[str, Infoset]:
    """All information sets of `game`, in depth-first order of first visit (walked once per
    game name and process)."""
    found = _walked.get(game.name)
    if found is None:
        found = _walked[game.name] = _infosets(game)
    return dict(found)


_walked: dict[str, tuple[tuple[str, Infoset], ...]] = {}


def _infosets(game: Game) -> tuple[tuple[str, Infoset], ...]:
    found: dict[str, Infoset] = {}
    for state in iter_states(game):
        if state.is_terminal() or state.is_chance():
            continue
        key = state.information_state_key()
        if key not in found:
            actions = state.legal_actions()
            found[key] = Infoset(
                key,
                state.current_player(),
                actions,
                tuple(state.action_label(a) for a in actions),
            )
    return tuple(found.items())


def uniform_policy(game: Game) -> dict[str, dict[int, float]]:
    return {
        key: {a: 1.0 / len(info.actions) for a in info.actions}
        for key, info in infosets(game).items()
    }

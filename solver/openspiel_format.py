"""Export our strategies in OpenSpiel's terms, without importing OpenSpiel.

OpenSpiel names an information set by ``State.information_state_string()`` and an action by its
integer id; a tabular policy is a map from the one to probabilities over the other.  The strings
are reproduced here from our own states (the tests check them against pyspiel at every history),
so the export works where the optional ``open-spiel`` dependency is not installed.

Mapping per game (OpenSpiel defaults):

* ``kuhn`` -> ``kuhn_poker``: identical ids; string ``"<card id><p/b history>"`` (``"1pb"``).
* ``leduc`` -> ``leduc_poker``: identical ids; string
  ``"[Observer: p][Private: c][Round r][Player: p][Pot: n][Money: a b]([Public: b])"``
  ``"[Round1: ids][Round2: ids]"`` with action ids space-separated and 100 chips each.
* ``dudo`` -> ``liars_dice``: its wild face is its highest (6) and sits last in each quantity,
  so our face 1 is its 6 and our face r its r - 1: bid and "Liar" ids coincide with ours, only
  the roll outcome ids move (our face 1, outcome 0, is its outcome 5).  String
  ``"<its face> <q-f> <q-f> ..."`` with bids in its labelling.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from solver.games import Game, State, get_game
from solver.games.dudo import DudoState
from solver.games.kuhn import KuhnState
from solver.games.leduc import LeducState

OPENSPIEL_NAMES: dict[str, str] = {
    "kuhn": "kuhn_poker",
    "leduc": "leduc_poker",
    "dudo": "liars_dice",
}
"""Our game name -> the OpenSpiel game (default parameters) it equals."""

_LEDUC_MONEY = 100
"""OpenSpiel's leduc_poker starting stack; its strings show what is left of it."""
_LEDUC_IDS = {"f": "0", "c": "1", "r": "2"}


def _resolve(game: Game | str) -> Game:
    g = get_game(game) if isinstance(game, str) else game
    if g.name not in OPENSPIEL_NAMES:
        raise ValueError(
            f"{g.name!r} has no OpenSpiel counterpart; exportable: {', '.join(OPENSPIEL_NAMES)}"
        )
    return g


def dudo_face_to_openspiel(face: int) -> int:
    """Our die face -> liars_dice's face (its wild 6 is our wild 1)."""
    return 6 if face == 1 else face - 1


def openspiel_action(state: State, action: int) -> int:
    """OpenSpiel's id for our `action` at `state`, chance outcomes included."""
    if isinstance(state, DudoState) and state.is_chance():
        # Our outcome is face - 1; OpenSpiel's is its face - 1.
        return dudo_face_to_openspiel(action + 1) - 1
    return action


def information_state_string(state: State, player: int | None = None) -> str:
    """What OpenSpiel's ``information_state_string(player)`` returns at the matching state."""
    p = state.current_player() if player is None else player
    if p not in (0, 1):
        raise ValueError("information_state_string needs a player at chance or terminal states")
    if isinstance(state, KuhnState):
        return f"{state.cards[p]}{state.bets}"
    if isinstance(state, LeducState):
        return _leduc_string(state, p)
    if isinstance(state, DudoState):
        if state.calzo:
            raise ValueError("OpenSpiel's liars_dice has no calzo")
        moves = "".join(f" {b // 6 + 1}-{b % 6 + 1}" for b in state.moves())
        return f"{dudo_face_to_openspiel(state.history[p] + 1)}{moves}"
    raise ValueError(f"no OpenSpiel format for {type(state).__name__}")


def _leduc_string(s: LeducState, p: int) -> str:
    round2 = len(s.cards) == 3
    a, b = s.stakes
    parts = [
        f"[Observer: {p}][Private: {s.cards[p]}][Round {2 if round2 else 1}]",
        f"[Player: {s.current_player()}][Pot: {a + b}]",
        f"[Money: {_LEDUC_MONEY - a} {_LEDUC_MONEY - b}]",
    ]
    if round2:
        parts.append(f"[Public: {s.cards[2]}]")
    r1 = " ".join(_LEDUC_IDS[c] for c in s.round1)
    r2 = " ".join(_LEDUC_IDS[c] for c in s.round2)
    parts.append(f"[Round1: {r1}][Round2: {r2}]")
    return "".join(parts)


def decision_states(game: Game) -> Iterator[State]:
    """One state per information set of the player to move, in depth-first order."""
    seen: set[str] = set()
    stack = [game.initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance():
            key = state.information_state_key()
            if key not in seen:
                seen.add(key)
                yield state
        stack.extend(state.apply_action(a) for a in reversed(state.legal_actions()))


def openspiel_policy(
    game: Game | str,
    policy: Mapping[str, Mapping[int, float]],
    *,
    uniform_if_missing: bool = False,
) -> dict[str, dict[str, float]]:
    """Our policy (info key -> {action: prob}) as OpenSpiel's (info string -> {str(id): prob}).

    Every legal action is listed (0.0 where our policy omits it), as OpenSpiel's tabular
    policies expect.  An information set missing from `policy` raises `KeyError` unless
    `uniform_if_missing`; an action that is not legal there raises `ValueError`.
    """
    g = _resolve(game)
    out: dict[str, dict[str, float]] = {}
    for state in decision_states(g):
        key = state.information_state_key()
        legal = state.legal_actions()
        probs = policy.get(key)
        if probs is None:
            if not uniform_if_missing:
                raise KeyError(f"policy has no entry for information set {key!r}")
            probs = {a: 1.0 / len(legal) for a in legal}
        stray = set(probs) - set(legal)
        if stray:
            raise ValueError(f"actions {sorted(stray)} are not legal at {key!r}; legal: {legal}")
        out[information_state_string(state)] = {
            str(openspiel_action(state, a)): float(probs.get(a, 0.0)) for a in legal
        }
    return out

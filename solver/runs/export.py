"""Export a stored strategy (``python -m solver export``): as JSON, or in OpenSpiel's terms,
without importing OpenSpiel.

OpenSpiel names an information set by ``State.information_state_string()`` and an action by its
integer id; a tabular policy is a map from the one to probabilities over the other.  Each game
that has an OpenSpiel twin says how its states and actions are named there (`Game.openspiel`,
checked against pyspiel at every history in the tests), so the export works where the optional
``open-spiel`` dependency is not installed.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from solver.evaluation.stored import stored_strategy_array
from solver.games import Game, OpenSpielMapping, State, game_names, get_game
from strategies import StoreError, StrategyStore

FORMATS = ("json", "openspiel")
"""``json``: information sets to {label: probability}; ``openspiel``: OpenSpiel's
information_state_string to {action id: probability}, for the games OpenSpiel has."""


def openspiel_names() -> dict[str, str]:
    """Our game name -> the OpenSpiel game string it equals, for every game that has one."""
    names = {}
    for name in game_names():
        mapping = get_game(name).openspiel
        if mapping is not None:
            names[name] = mapping.game_string
    return names


def mapping_of(game: Game | str) -> tuple[Game, OpenSpielMapping]:
    g = get_game(game) if isinstance(game, str) else game
    if g.openspiel is None:
        raise ValueError(f"{g.name!r} has no OpenSpiel counterpart; exportable: "
                         f"{', '.join(openspiel_names())}")
    return g, g.openspiel


def openspiel_action(game: Game | str, state: State, action: int) -> int:
    """OpenSpiel's id for our `action` at `state`, chance outcomes included."""
    return mapping_of(game)[1].action_id(state, action)


def information_state_string(game: Game | str, state: State, player: int | None = None) -> str:
    """What OpenSpiel's ``information_state_string(player)`` returns at the matching state."""
    p = state.current_player() if player is None else player
    if p not in (0, 1):
        raise ValueError("information_state_string needs a player at chance or terminal states")
    return mapping_of(game)[1].information_state_string(state, p)


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
    `uniform_if_missing`; an action that is not legal there raises `ValueError`, and so do two
    of ours that OpenSpiel sees as one but that play differently.
    """
    g, mapping = mapping_of(game)
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
        player = state.current_player()
        string = mapping.information_state_string(state, player)
        row = {str(mapping.action_id(state, a)): float(probs.get(a, 0.0)) for a in legal}
        if string in out and out[string] != row:
            raise ValueError(
                f"OpenSpiel's information state {string!r} holds several of ours that play "
                f"differently ({key!r} among them): its game forgets what ours remembers "
                f"(universal_poker shows the board as one set, not round by round), so this "
                f"strategy has no exact counterpart there")
        out[string] = row
    return out


def stored_payload(store: StrategyStore, game: Game, fmt: str, opponent: str = "") -> object:
    """The latest stored strategy of `game` (its equilibrium, or with `opponent` that
    opponent's) in the format `fmt` (one of `FORMATS`), ready for ``json.dump``.  An abstract
    solve's keys are not the game's information sets: its rows are exported as stored, in JSON
    only (the real tree of a game solved so is usually far too big to compile anyway)."""
    info = store.latest_solve(game.name, opponent)
    solve_id = None
    if opponent:
        if info is None:
            stored = sorted(o.opponent for o in store.opponents(game.name))
            raise StoreError(f"no opponent {opponent!r} of {game.name!r} in {store.path}; "
                             f"stored: {', '.join(stored) or 'none'}")
        solve_id = info.id
    if info is not None and info.abstraction:
        if fmt != "json":
            raise ValueError(f"the stored {game.name} solve is abstract ({info.abstraction}): "
                             f"only --format json exports it")
        rows = store.strategy(game.name, solve_id)
        return {key: dict(zip(row.labels, row.probabilities, strict=True))
                for key, row in rows.items()}
    tree, flat = stored_strategy_array(store, game, solve_id)
    offsets = tree.infoset_regret_offset
    if fmt == "json":
        return {
            key: dict(zip(tree.infoset_labels[i], map(float, flat[offsets[i]:offsets[i + 1]]),
                          strict=True))
            for i, key in enumerate(tree.infoset_keys)
        }
    policy = {key: {a: float(flat[offsets[i] + k]) for k, a in enumerate(tree.infoset_actions[i])}
              for i, key in enumerate(tree.infoset_keys)}
    return openspiel_policy(game, policy)

"""Our kuhn, leduc and dudo against pyspiel's kuhn_poker, leduc_poker and liars_dice.

Both trees are walked in lockstep over every history, so any difference in rules, chance, payoffs
or information-state strings shows up at the first history where it occurs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pyspiel
import pytest

from solver.games import State, get_game
from solver.runs.export import (
    decision_states,
    information_state_string,
    openspiel_action,
    openspiel_names,
    openspiel_policy,
)

GAMES = ("kuhn", "leduc", "dudo")
OPENSPIEL_NAMES = openspiel_names()
HISTORIES = {"kuhn": 58, "leduc": 9_457, "dudo": 294_883}
INFOSETS = {"kuhn": 12, "leduc": 936, "dudo": 24_576}


def lockstep(name: str) -> Iterator[tuple[State, Any]]:
    """Every (our state, pyspiel state) pair, depth first; children follow our action order."""
    stack: list[tuple[State, Any]] = [
        (
            get_game(name).initial_state(),
            pyspiel.load_game(OPENSPIEL_NAMES[name]).new_initial_state(),
        )
    ]
    while stack:
        ours, theirs = stack.pop()
        yield ours, theirs
        stack.extend((ours.apply_action(a), theirs.child(openspiel_action(name, ours, a)))
                     for a in ours.legal_actions())


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.slow
def test_trees_match_openspiel_at_every_history(name: str) -> None:
    count = 0
    for ours, theirs in lockstep(name):
        count += 1
        # OpenSpiel's terminal player id is -4, ours -2: compare the kinds of node.
        assert ours.is_terminal() == theirs.is_terminal(), ours.history
        assert ours.is_chance() == theirs.is_chance_node(), ours.history
        if not ours.is_terminal():
            assert ours.current_player() == theirs.current_player(), ours.history
        mapped = sorted(openspiel_action(name, ours, a) for a in ours.legal_actions())
        assert mapped == theirs.legal_actions(), ours.history
        if ours.is_terminal():
            assert list(ours.returns()) == theirs.returns(), ours.history  # whole chips / +-1
        elif ours.is_chance():
            outcomes = {openspiel_action(name, ours, a): p for a, p in ours.chance_outcomes()}
            assert outcomes == pytest.approx(dict(theirs.chance_outcomes())), ours.history
    assert count == HISTORIES[name]


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.slow
def test_information_state_strings_match_openspiel(name: str) -> None:
    ours_to_theirs: dict[str, str] = {}
    for ours, theirs in lockstep(name):
        if ours.is_terminal() or ours.is_chance():
            continue
        p = ours.current_player()
        string = information_state_string(name, ours)
        assert string == theirs.information_state_string(p), ours.history
        if name != "dudo":  # the opponent's view too (kept out of the 300k-history walk)
            q = 1 - p
            assert information_state_string(name, ours, q) == theirs.information_state_string(q)
        assert ours_to_theirs.setdefault(ours.information_state_key(), string) == string
    # One OpenSpiel infoset per one of ours: a bijection.
    assert len(ours_to_theirs) == INFOSETS[name]
    assert len(set(ours_to_theirs.values())) == INFOSETS[name]


def uniform(name: str) -> dict[str, dict[int, float]]:
    return {
        s.information_state_key(): {a: 1.0 / len(s.legal_actions()) for a in s.legal_actions()}
        for s in decision_states(get_game(name))
    }


def as_pyspiel(exported: dict[str, dict[str, float]]) -> dict[str, list[tuple[int, float]]]:
    return {k: [(int(a), p) for a, p in v.items()] for k, v in exported.items()}


@pytest.mark.parametrize("name", ["kuhn", "leduc"])  # Dudo's two best responses take ~10 s
def test_exported_uniform_policy_is_openspiels_uniform_policy(name: str) -> None:
    exported = openspiel_policy(name, uniform(name))
    assert len(exported) == INFOSETS[name]
    assert all(sum(v.values()) == pytest.approx(1.0) for v in exported.values())
    game = pyspiel.load_game(OPENSPIEL_NAMES[name])
    # pyspiel fails on a policy that misses an infoset or names an illegal action.
    assert pyspiel.exploitability(game, as_pyspiel(exported)) == pytest.approx(
        pyspiel.exploitability(game, pyspiel.UniformRandomPolicy(game))
    )


@pytest.mark.slow
def test_exported_dudo_policy_names_exactly_openspiels_infosets() -> None:
    exported = openspiel_policy("dudo", uniform("dudo"))
    theirs = {
        t.information_state_string()
        for ours, t in lockstep("dudo")
        if not (ours.is_chance() or ours.is_terminal())
    }
    assert set(exported) == theirs


def test_exported_kuhn_equilibrium_is_unexploitable() -> None:
    """Kuhn's equilibrium family at alpha = 1/6, written in our keys, checked by OpenSpiel."""
    a = 1.0 / 6.0
    bet = {"J|": a, "Q|": 0.0, "K|": 3 * a, "J|p": 1 / 3, "Q|p": 0.0, "K|p": 1.0}
    call = {"J|pb": 0.0, "Q|pb": a + 1 / 3, "K|pb": 1.0, "J|b": 0.0, "Q|b": 1 / 3, "K|b": 1.0}
    policy = {k: {0: 1.0 - q, 1: q} for k, q in (bet | call).items()}
    exported = openspiel_policy("kuhn", policy)
    assert exported["0"] == {"0": 1.0 - a, "1": a}
    game = pyspiel.load_game("kuhn_poker")
    assert pyspiel.exploitability(game, as_pyspiel(exported)) == pytest.approx(0.0, abs=1e-12)


def test_dudo_rolls_map_to_openspiel_faces() -> None:
    root = get_game("dudo").initial_state()
    # Our outcome o is face o + 1; liars_dice's outcome is its face - 1 with our 1 as its 6.
    assert [openspiel_action("dudo", root, o) for o in range(6)] == [5, 0, 1, 2, 3, 4]
    state = root.apply_action(0).apply_action(2)  # our dice: 1 and 3
    assert information_state_string("dudo", state) == "6"
    assert information_state_string("dudo", state, 1) == "2"
    state = state.apply_action(5).apply_action(7)  # 1x1, 2x3
    assert information_state_string("dudo", state) == "6 1-6 2-2"
    assert openspiel_action("dudo", state, 12) == 12  # dudo is "Liar"


def test_missing_and_stray_entries_are_reported() -> None:
    policy = uniform("kuhn")
    del policy["Q|pb"]
    with pytest.raises(KeyError, match="Q\\|pb"):
        openspiel_policy("kuhn", policy)
    exported = openspiel_policy("kuhn", policy, uniform_if_missing=True)
    assert exported["1pb"] == {"0": 0.5, "1": 0.5}
    policy["Q|pb"] = {0: 0.5, 1: 0.25, 2: 0.25}
    with pytest.raises(ValueError, match="not legal"):
        openspiel_policy("kuhn", policy)


def test_omitted_actions_are_exported_as_zero() -> None:
    policy = uniform("kuhn")
    policy["K|"] = {1: 1.0}
    assert openspiel_policy(get_game("kuhn"), policy)["2"] == {"0": 0.0, "1": 1.0}


@pytest.mark.parametrize("name", ["rps", "dudo-calzo"])
def test_games_without_an_openspiel_twin_are_refused(name: str) -> None:
    with pytest.raises(ValueError, match="no OpenSpiel counterpart"):
        openspiel_policy(name, {})

"""The bot's private information never shows before the hand ends.

Every mid-hand response (start, each action, a GET, with and without a hint) is checked against
the true state rebuilt from the database: no string in it may name the bot's card or die (its
private key or view) or an information set of the bot, and no number may appear outside the
few fields known to be public. The checker is first shown to catch leaks, so that it can fail.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from sqlalchemy import select

from app.db.models import Hand
from solver.games import get_game, get_view, legal_labels, play
from tests.app.conftest import GAMES, AppHandle, new_match

API = "/api/v1"

# The only places a number may appear in a hand view: these are public.
PUBLIC_NUMBERS = {"seq", "seat", "number", "human_seat", "bot_seat", "pot", "contributions",
                  "round", "rounds", "board_slots", "bot_pieces_hidden", "pieces_held"}
# What is the human's own business (the human's pieces, legal actions and the hint, all
# functions of the human's information set; checked separately against the true state).
OWN_LABELS = {"legal_actions", "hint", "action_groups", "private_pieces",
              "openspiel_information_state"}
TOKEN = re.compile(r"[^\s,:;()\[\]{}\"'|]+")


def _walk(value: Any, path: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _walk(item, path + (key,))
    elif isinstance(value, list):
        for item in value:
            yield from _walk(item, path)
    else:
        yield path, value


def leaks(body: dict[str, Any], secrets: set[str], infosets: set[str]) -> list[str]:
    """What in `body` could reveal the bot's hidden information (empty: nothing)."""
    found = []
    text = json.dumps(body, ensure_ascii=False)
    found += [f"infoset {k!r}" for k in infosets if k and k in text]
    for path, value in _walk(body):
        if any(part in OWN_LABELS for part in path):
            continue
        if isinstance(value, bool) or value is None:
            continue
        if isinstance(value, int | float):
            if not path or path[-1] not in PUBLIC_NUMBERS:
                found.append(f"number at {'.'.join(path)}: {value}")
            continue
        assert isinstance(value, str)
        if value in secrets:
            found.append(f"string at {'.'.join(path)}: {value!r}")
        found += [f"token {t!r} at {'.'.join(path)}" for t in TOKEN.findall(value)
                  if t in secrets]
    return found


def hidden_info(api: AppHandle, game: str, hand_id: str) -> tuple[set[str], set[str], Any]:
    """The bot's secrets in the true state: private key and view (unless the human's are the
    same: then showing them reveals nothing), and the infoset keys of its decisions so far."""
    with api.app.state.sessionmaker() as session:
        hand = session.scalars(select(Hand).where(Hand.public_id == hand_id)).one()
        ids = [a.action for a in hand.actions]
        human, bot = hand.human_seat, 1 - hand.human_seat
    g = get_game(game)
    state = g.initial_state()
    infosets = set()
    for action in ids:
        if state.current_player() == bot:
            infosets.add(state.information_state_key(bot))
        state = state.apply_action(action)
    own = {state.private_key(human), get_view(game).private_view(state, human)}
    secrets = {s for s in (state.private_key(bot), get_view(game).private_view(state, bot))
               if s and s not in own}
    return secrets, infosets, play(g, ids)


def test_the_checker_catches_leaks(api: AppHandle) -> None:
    """Fed a finished hand (which shows the bot's card) or planted leaks, it complains."""
    match_id, headers = new_match(api.client, "kuhn")
    for _ in range(20):  # a hand where the cards differ in a way the checker can see
        view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
        secrets, infosets, _ = hidden_info(api, "kuhn", view["hand_id"])
        assert secrets  # Kuhn cards always differ
        assert leaks(view, secrets, infosets) == []
        while view["status"] == "in_progress":
            view = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                   json={"action": view["legal_actions"][0],
                                         "seq": view["seq"]}).json()
        secrets, infosets, _ = hidden_info(api, "kuhn", view["hand_id"])
        assert leaks(view, secrets, infosets)  # outcome.bot_private_view, revealed labels
        assert any("bot_private_view" in leak for leak in leaks(view, secrets, infosets))
        if infosets:
            break
    assert infosets
    clean = {"hand_id": "ab12", "events": [{"seq": 0, "label": None, "text": "hidden"}]}
    assert leaks(clean, secrets, infosets) == []
    (card,) = {s for s in secrets if len(s) == 1}
    assert leaks({**clean, "debug": f"bot holds {card}"}, secrets, infosets)
    assert leaks({**clean, "history": [0, 2]}, secrets, infosets)
    assert leaks({**clean, "bot_card": 2}, secrets, infosets)
    key = next(iter(infosets))
    assert leaks({**clean, "note": f"from {key}"}, secrets, infosets)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.slow
def test_no_mid_hand_response_reveals_the_bot(api: AppHandle, game: str) -> None:
    match_id, headers = new_match(api.client, game)
    chooser = random.Random(3)
    checked = 0
    for _ in range(12):
        response = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers)
        view = response.json()
        hand_id = view["hand_id"]
        while True:
            secrets, infosets, state = hidden_info(api, game, hand_id)
            bodies = [view]
            if view["status"] == "in_progress":
                bodies.append(api.client.get(f"{API}/hands/{hand_id}", headers=headers).json())
                bodies.append(api.client.get(f"{API}/hands/{hand_id}?hint=true",
                                             headers=headers).json())
                for body in bodies:
                    assert leaks(body, secrets, infosets) == [], body
                    assert body["outcome"] is None
                    assert body["legal_actions"] == legal_labels(state)
                    assert state.current_player() == body["human_seat"]
                    # Private deals to the bot stay hidden.
                    for event in body["events"]:
                        if event["actor"] == "chance" and event["seat"] == body["bot_seat"]:
                            assert event["hidden"] and event["label"] is None
                # The hint is the stored strategy at the human's own information set.
                own_key = state.information_state_key(view["human_seat"])
                stored = api.client.get(f"{API}/games/{game}/strategy",
                                        params={"infoset": own_key}).json()
                assert bodies[2]["hint"] == stored["infosets"][0]["actions"]
                assert bodies[0]["hint"] is None and bodies[1]["hint"] is None
                checked += 1
            else:
                break
            action = chooser.choice(view["legal_actions"])
            view = api.client.post(f"{API}/hands/{hand_id}/actions", headers=headers,
                                   json={"action": action, "seq": view["seq"]}).json()
        assert view["outcome"] is not None
    assert checked >= 12  # at least one mid-hand position per hand


def test_rps_bot_move_hidden_until_the_end(api: AppHandle) -> None:
    """In Rock-Paper-Scissors the bot's move is its secret: seat 1 sees 'hidden', then all."""
    match_id, headers = new_match(api.client, "rps")
    first = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    assert first["events"] == []
    api.client.post(f"{API}/hands/{first['hand_id']}/actions", headers=headers,
                    json={"action": "paper", "seq": first["seq"]})
    second = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    assert second["human_seat"] == 1
    (event,) = second["events"]
    assert event["actor"] == "bot" and event["hidden"] and event["label"] is None
    assert second["public"] == {"pot": None, "contributions": None, "round": None,
                                "rounds": None, "board": [], "board_slots": 0, "bids": None,
                                "last_bid": None, "pieces_held": None, "betting": None,
                                "finished_rounds": [], "your_win_chance": None}
    assert second["bot_pieces_hidden"] == 1
    done = api.client.post(f"{API}/hands/{second['hand_id']}/actions", headers=headers,
                           json={"action": "rock", "seq": second["seq"]}).json()
    assert done["events"][0]["label"] == done["outcome"]["bot_private_view"]
    assert not done["events"][0]["hidden"]


def test_private_deal_of_the_human_is_shown_to_the_human(api: AppHandle) -> None:
    match_id, headers = new_match(api.client, "dudo")
    view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
    mine = [e for e in view["events"] if e["actor"] == "chance" and e["seat"] == 0]
    assert len(mine) == 1 and not mine[0]["hidden"]
    assert view["private_view"] == mine[0]["label"]
    assert view["private_pieces"] == [{"kind": "die", "text": mine[0]["label"],
                                       "face": int(mine[0]["label"]), "rank": None,
                                       "suit": None}]


@pytest.mark.parametrize(("game", "openspiel"), [("kuhn", "kuhn_poker"),
                                                 ("leduc", "leduc_poker"),
                                                 ("dudo", "liars_dice")])
@pytest.mark.slow
def test_hand_views_name_the_openspiel_information_state(api: AppHandle, game: str,
                                                          openspiel: str) -> None:
    """At the human's turn the view carries OpenSpiel's own string for the human's
    information state, checked against pyspiel on the same history."""
    import pyspiel

    from solver.runs.export import openspiel_action

    match_id, headers = new_match(api.client, game)
    for _ in range(4):
        view = api.client.post(f"{API}/matches/{match_id}/hands", headers=headers).json()
        while view["status"] == "in_progress":
            _, _, state = hidden_info(api, game, view["hand_id"])
            ours = get_game(game).initial_state()
            theirs = pyspiel.load_game(openspiel).new_initial_state()
            for action in state.history:
                theirs = theirs.child(openspiel_action(game, ours, action))
                ours = ours.apply_action(action)
            assert view["openspiel_information_state"] == theirs.information_state_string(
                view["human_seat"])
            view = api.client.post(f"{API}/hands/{view['hand_id']}/actions", headers=headers,
                                   json={"action": view["legal_actions"][0],
                                         "seq": view["seq"]}).json()
        assert view["openspiel_information_state"] is None

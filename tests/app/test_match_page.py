"""A whole Dudo match on the pages (a quick build of its bot, `match_store`): the bids laid out
by quantity and face with the 1s in a column of their own, each round apart with the dice each
side had, the bot's decisions as their likeliest few bids, the dice left at the end as the
seats show them, and the explorer's words for a stored round."""

from __future__ import annotations

import contextlib
import itertools
import logging
import math
import re
import sqlite3
import statistics
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from scipy.stats import t as scipy_t

from app.db.models import Match
from app.deps import Backend
from app.web.format import pct
from app.web.routes.table import coach_poll_delay
from strategies import StrategyStore
from strategies.figures import WIN_CHANCES
from tests.app.conftest import AppFactory, AppHandle, new_match
from tests.app.test_pages import (
    HX,
    Node,
    action_form,
    csrf,
    enabled_actions,
    page,
    parse,
    play_form,
    post_action,
    start,
)
from tests.conftest import copy_store

DIE = "⚀⚁⚂⚃⚄⚅"
FACES = (2, 3, 4, 5, 6, 1)


@pytest.fixture
def web(make_app: AppFactory, match_store: Path) -> AppHandle:
    return make_app(store=match_store, seed=4)


def count_dice(text: str) -> int:
    return sum(text.count(d) for d in DIE)


def play(client: TestClient, url: str, moves: int) -> Node:
    """Up to `moves` of my moves: dudo when I may, else the weakest bid open to me."""
    doc = page(client, url)
    for _ in range(moves):
        form = action_form(doc)
        if form is None:
            break
        legal = enabled_actions(form)
        post_action(client, form, "dudo" if "dudo" in legal else legal[0])
        doc = page(client, url)
    return doc


def test_a_match_by_rounds(web: AppHandle) -> None:
    client = web.client
    url = start(client, "dudo-match")
    doc = page(client, url)
    grid = play_form(doc).first("div", cls="grid-actions")
    assert "cols-6" in grid.classes
    labels = [b.attrs["value"] for b in grid.find_all("button")]
    assert labels == [f"{q}x{f}" for q in range(1, 11) for f in FACES]  # 1s in their column

    doc = play(client, url, 6)
    rounds = doc.by_id("rounds")
    finished = rounds.find_all("details", cls="round")
    assert len(finished) >= 2
    held = [5, 5]
    for number, folded in enumerate(finished, 1):
        summary = folded.first("summary").text
        assert summary.startswith(f"Round {number} · you {held[0]} dice, the bot {held[1]}")
        # "You ⚀⚂ · the bot ⚁⚅ <why>": the explanation names faces as digits, not dice.
        mine, theirs = folded.first("p", cls="round-result").text.split("·", 1)
        assert (count_dice(mine), count_dice(theirs)) == tuple(held)
        loser = 0 if "you lost a die" in summary else 1
        assert ("the bot lost a die" in summary) == (loser == 1)
        held[loser] -= 1
        # Each round's events are its own: two rolls, then the bids and the call.
        events = folded.first("ol", cls="events").find_all("li")
        assert [e.first("span", cls="who").text for e in events][:2] == ["Dealer", "Dealer"]
        assert events[-1].text.endswith("dudo")
    current = rounds.find("section", cls="round")
    if current is not None:
        assert f"you {held[0]} " in current.first("h3").text
        assert doc.by_id("pieces-held").text.startswith(f"Dice in play: you {held[0]} ")
        chips = doc.first("div", cls="bid-history").find_all("span", cls="bid-chip")
        moves = [e for e in current.find_all("li") if e.first("span", cls="who").text != "Dealer"]
        assert len(chips) == len(moves)  # this round's bids only

    doc = play(client, url, 400)
    assert doc.find(id="outcome") is not None
    left = doc.by_id("pieces-held").text
    assert left.startswith("Dice left: ")
    mine_left, bot_left = (int(n) for n in re.findall(r"\d+", left)[:2])
    assert 0 in (mine_left, bot_left)
    for seat, count in (("your-seat", mine_left), ("bot-seat", bot_left)):
        shown = count_dice(doc.by_id(seat).first("div", cls="seat-pieces").text)
        # A seat whose dice are gone shows its last roll, and says so.
        assert (shown == count) != ("in the last round" in doc.by_id(seat).text)
    decisions = doc.by_id("bot-decisions").find_all("div", cls="decision")
    assert decisions
    for decision in decisions:
        listed = decision.find_all("li", cls="prob")
        assert len(listed) <= 5
        chosen = decision.first("span", cls="chosen").text.removeprefix("chose ")
        assert [li for li in listed if "chosen" in li.classes], chosen
        assert decision.first("strong").text.startswith("Round ")
    assert any(d.find("p", cls="more-moves") is not None for d in decisions)


def test_the_explorer_words_a_stored_round(web: AppHandle) -> None:
    doc = page(web.client, "/games/dudo-match/strategy?view=search")
    cards = doc.by_id("infosets").find_all("article", cls="infoset")
    assert cards
    for card in cards:
        key, words = card.attrs["data-key"], card.first("div", cls="history-line").text
        assert "match" not in words
        if key.startswith("1v1:"):
            assert "round of 1 die each" in card.text
        if key.endswith("|"):
            assert words == "The opening bid of a round"


def test_each_round_shows_my_chance_of_winning_the_match(web: AppHandle,
                                                        match_store: Path) -> None:
    """From the table of winning chances stored with the solve (the store alone, wherever it
    lies: the app reads no file beside it), over the API and on the table's page."""
    with StrategyStore.open(match_store) as store:
        solve = store.latest_solve("dudo-match")
        assert solve is not None
        table = store.figures(solve.id)[WIN_CHANCES]
    client = web.client
    match_id, headers = new_match(client, "dudo-match")
    view = client.post(f"/api/v1/matches/{match_id}/hands", headers=headers).json()
    mine = table["5v5"] if view["human_seat"] == 0 else 1 - table["5v5"]  # seat 0 opens
    assert view["public"]["your_win_chance"] == pytest.approx(mine)
    url = start(client, "dudo-match")
    held = " ".join(page(client, url).by_id("pieces-held").text.split())
    chance = held.rsplit("your chance to win from this round: ", 1)[-1]
    assert chance in (pct(table["5v5"]), pct(1 - table["5v5"])), held


def test_a_whole_match_is_judged_round_by_round(web: AppHandle) -> None:
    """A finished match is analysed after the answer (its rounds' recall graphs): every one of
    my bids and challenges valued in match units, the match's result without the dice luck of
    each round, and the results as chances of winning beside the bot's own (in the API: an API
    match is not the browser's to see)."""
    judge_a_whole_match(web.client)


def test_a_store_copied_alone_keeps_the_match_table(make_app: AppFactory, match_store: Path,
                                                    tmp_path: Path) -> None:
    """The store is one file: copied alone into a directory of its own (a backup, a shared
    volume, a deployment), its match is still judged and its results still in chances; the
    table of winning chances lay in a file beside the store, and a copy without it lost every
    match hand's coach and luck-adjusted result without a word."""
    elsewhere = tmp_path / "copy"
    elsewhere.mkdir()
    store = copy_store(match_store, elsewhere / "strategies.sqlite")
    assert [p.name for p in elsewhere.iterdir()] == ["strategies.sqlite"]
    judge_a_whole_match(make_app(store=store, seed=4).client)


def judge_a_whole_match(client: TestClient) -> None:
    match_id, headers = new_match(client, "dudo-match")
    view = client.post(f"/api/v1/matches/{match_id}/hands", headers=headers).json()
    while view["status"] == "in_progress":
        legal = view["legal_actions"]
        view = client.post(f"/api/v1/hands/{view['hand_id']}/actions", headers=headers,
                           json={"action": "dudo" if "dudo" in legal else legal[0],
                                 "seq": view["seq"]}).json()
    assert view["outcome"]["analysis"] == "pending"
    done = client.get(f"/api/v1/hands/{view['hand_id']}", headers=headers).json()["outcome"]
    assert done["analysis"] == "done"
    mine = [e["label"] for e in view["events"] if e["actor"] == "you"]
    assert [d["chosen"] for d in done["coach"]] == mine
    for d in done["coach"]:
        assert d["exact"] and all(-1.0 - 1e-9 <= a["value"] <= 1.0 + 1e-9 for a in d["actions"])
        assert d["value"] == pytest.approx(sum(a["probability"] * a["value"]
                                               for a in d["actions"]))
    assert done["adjusted_payoff"] is not None
    results = client.get(f"/api/v1/matches/{match_id}", headers=headers).json()
    assert results["adjusted_hands"] == 1 and results["hands_analysing"] == 0
    chances = results["win_chances"]
    assert chances["won"] == (1.0 if view["outcome"]["human_payoff"] > 0 else 0.0)
    assert chances["adjusted"] == pytest.approx((1 + done["adjusted_payoff"]) / 2)
    assert chances["expected"] is not None and 0.0 < chances["expected"] < 1.0


def needed(xs: list[float], expected: float, what: str) -> str:
    """The words for how many more hands `xs` need before their 95% interval (Student's t,
    shown from 5 hands) excludes `expected`, worked out here from the hands themselves: the
    fewest more hands after which, at the same mean and spread, it would."""
    n, mean, sd = len(xs), statistics.fmean(xs), statistics.stdev(xs)

    def excluded(hands: int) -> bool:
        return bool(abs(mean - expected) > scipy_t.ppf(0.975, hands - 1) * sd / math.sqrt(hands))

    if abs(mean - expected) < 1e-12:
        return f"Your {what} give no estimate yet of when their 95% interval would leave the " \
               "expected result."
    if excluded(n):
        return f"The 95% interval of your {what} already excludes the expected result."
    more = 1
    while not excluded(n + more):
        more += 1
    rough = (" (a rough projection: the mean and spread of so few hands can still change a "
             "lot)" if n < 30 else "")
    return (f"The 95% interval of your {what} holds the expected result; if their mean and "
            f"spread stayed as they are, it would leave it after about {more:,} more "
            f"hand{'s' if more != 1 else ''}{rough}.")


def test_the_results_of_whole_matches_in_chances_and_hands_needed(web: AppHandle,
                                                                 match_store: Path) -> None:
    """Whole matches on the pages, until there are five with a win and a loss among them: the
    results say what share I won and, without the dice luck of each round, what share I was
    worth, beside what the bot's own strategy wins from my seats (its table of win chances);
    then how many more matches each interval needs, raw and without the luck side by side.
    Every figure is worked out here from the matches' rows."""
    client = web.client
    url = start(client, "dudo-match")
    for played in range(1, 12):
        doc = play(client, url, 400)
        assert doc.find(id="outcome") is not None
        with web.app.state.sessionmaker() as session:
            match = session.query(Match).filter_by(public_id=url.rsplit("/", 1)[1]).one()
            rows = [(h.human_seat, h.human_payoff, h.adjusted_payoff) for h in match.hands]
        raw = [float(r[1]) for r in rows if r[1] is not None]
        if played >= 5 and len(set(raw)) == 2:
            break
        assert client.post(f"{url}/next", data=csrf(client),
                           follow_redirects=False).status_code == 303
    assert len(raw) == len(rows) >= 5 and set(raw) == {-1.0, 1.0}, raw
    adjusted = [float(r[2]) for r in rows if r[2] is not None]
    assert len(adjusted) == len(raw)  # every match analysed: none is left "being analysed"
    doc = page(client, url)
    assert doc.find(id="analysing") is None
    with StrategyStore.open(match_store) as store:  # the solve's table, kept with it
        solve = store.latest_solve("dudo-match")
        assert solve is not None
        table = store.figures(solve.id)[WIN_CHANCES]
    opener = 2 * table["5v5"] - 1  # seat 0 opens the first round
    expected = statistics.fmean(opener if seat == 0 else -opener for seat, _, _ in rows)

    def chance(x: float) -> str:
        return pct((1 + x) / 2)

    line = doc.by_id("win-chances").text
    wins = sum(x > 0 for x in raw)
    assert line.startswith(f"You won {pct(wins / len(raw))} of your {len(raw)} hands (95% CI ")
    assert f"; without the luck {chance(statistics.fmean(adjusted))} (" in line
    assert line.endswith(f"Playing the bot's own strategy from your seats wins "
                         f"{chance(expected)}, by the bot's solve.")
    words = " ".join(doc.by_id("hands-needed").text.split())
    assert words == (needed(raw, expected, "raw results") + " "
                     + needed(adjusted, expected, "results without the luck"))


def test_a_match_solve_without_its_table_is_an_error_not_a_silent_drop(
        make_app: AppFactory, match_store: Path, tmp_path: Path,
        caplog: pytest.LogCaptureFixture) -> None:
    """A store whose match solve lacks its table of winning chances (an older store upgraded
    without the file that held it): the app says so when it starts and in /healthz, and the
    match answers 503 naming the fix instead of being played without its coach; the other
    games are played as before."""
    store = copy_store(match_store, tmp_path / "strategies.sqlite")
    with contextlib.closing(sqlite3.connect(store)) as db, db:
        db.execute("DELETE FROM figures WHERE name = ?", (WIN_CHANCES,))
    with caplog.at_level(logging.ERROR, logger="app"):
        web = make_app(store=store)
    said = [r.getMessage() for r in caplog.records if "table of winning chances" in
            r.getMessage()]
    assert len(said) == 1 and "python -m solver match" in said[0]
    health = web.client.get("/healthz")
    assert health.status_code == 200
    body = health.json()
    assert "dudo-match" not in body["games"] and "dudo" in body["games"]
    assert "table of winning chances" in body["incomplete"]["dudo-match"]
    refused = web.client.post("/api/v1/matches", json={"game": "dudo-match"})
    assert refused.status_code == 503
    assert "python -m solver match" in refused.json()["detail"]
    assert str(tmp_path) not in refused.text
    match_id, headers = new_match(web.client, "dudo")
    assert web.client.post(f"/api/v1/matches/{match_id}/hands",
                           headers=headers).status_code == 201


def test_the_coach_is_asked_for_soon_then_less_often(web: AppHandle,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """A finished hand waiting for its analysis asks for it again a fifth of a second later,
    then at growing intervals up to two seconds (not every two seconds from the start): the
    figures show soon after they are ready, and a slow analysis is not asked for many times a
    second."""
    monkeypatch.setattr(Backend, "analyse", lambda self, match_id: None)  # it stays pending
    client = web.client
    url = start(client, "dudo-match")
    doc = play(client, url, 200)
    assert action_form(doc) is None  # the match is over
    delays = []
    for poll in range(10):
        shown = parse(client.get(f"{url}?poll={poll}", headers=HX).text)
        coach = shown.by_id("coach")
        assert coach.attrs["data-analysis"] == "pending"
        assert coach.attrs["hx-get"] == f"{url}?poll={poll + 1}"
        found = re.fullmatch(r"load delay:(\d+)ms", coach.attrs["hx-trigger"])
        assert found is not None, coach.attrs
        delays.append(int(found.group(1)))
    assert doc.by_id("coach").attrs["hx-trigger"] == f"load delay:{delays[0]}ms"
    assert delays[0] <= 250 and delays == sorted(delays) and delays[-1] == 2000
    assert delays == [coach_poll_delay(n) for n in range(10)]
    # Analyses that take a tenth of a second to two seconds show on average within 0.4 s of
    # being ready (a fixed 2 s poll: 0.95 s, and 1.9 s for the quickest); a slow one is asked
    # for at most 10 times in its first 10 s.
    asks = list(itertools.accumulate(coach_poll_delay(n) / 1000 for n in range(40)))
    waits = [next(a for a in asks if a >= t) - t for t in (i / 100 for i in range(10, 201))]
    assert statistics.fmean(waits) < 0.4 and max(waits[:10]) <= 0.1
    assert sum(1 for a in asks if a <= 10) <= 10
    assert client.get(f"{url}?poll=-1").status_code == 422

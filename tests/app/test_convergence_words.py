"""A solve whose trace draws no curve on the strategy page's log-log chart says why in words,
from what the store holds, instead of an empty chart."""

from __future__ import annotations

import math
import sqlite3
from pathlib import Path

import pytest

from app.schemas import TracePointOut
from app.web.routes.strategy import missing_curve
from tests.app.conftest import AppFactory
from tests.app.test_pages import page
from tests.conftest import copy_store


def point(iteration: int, exploitability: float) -> TracePointOut:
    return TracePointOut(iteration=iteration, seconds=0.0, exploitability=exploitability,
                         value=0.0)


def test_a_trace_with_a_curve_needs_no_words() -> None:
    assert missing_curve([point(1, 0.5), point(10, 0.1)]) is None
    assert missing_curve([point(1, 0.5), point(10, 0.0)]) is None  # one point to draw


def test_why_a_trace_draws_no_curve() -> None:
    assert "no convergence trace" in str(missing_curve([]))
    exact = str(missing_curve([point(1, 0.0)]))
    assert "exactly at iteration 1," in exact and "the one point stored" in exact
    assert "all 3 points stored" in str(missing_curve([point(n, 0.0) for n in (2, 4, 8)]))
    assert "exactly at iteration 2," in str(missing_curve([point(n, 0.0) for n in (4, 2)]))
    one = str(missing_curve([point(40, math.inf)]))
    assert "one point, at iteration 40, and no exploitability for it" in one
    many = str(missing_curve([point(1_000, math.inf), point(2_000, math.nan)]))
    assert "2 points, up to iteration 2,000, and no exploitability for any of them" in many
    assert "no point of this solve's trace" in str(missing_curve([point(0, 0.5)]))


def latest_solve(store: Path, game: str) -> int:
    with sqlite3.connect(store) as db:
        row = db.execute("SELECT id FROM solves WHERE game = ? AND opponent = '' "
                         "ORDER BY created DESC, id DESC LIMIT 1", (game,)).fetchone()
    return int(row[0])


@pytest.mark.slow
def test_the_strategy_page_says_why_instead_of_an_empty_chart(make_app: AppFactory,
                                                              store_path: Path,
                                                              tmp_path: Path) -> None:
    unmeasured = copy_store(store_path, tmp_path / "unmeasured.sqlite")
    untraced = copy_store(store_path, tmp_path / "untraced.sqlite")
    with sqlite3.connect(unmeasured) as db:  # as a solve too big to measure stores its trace
        db.execute("UPDATE trace SET exploitability = 9e999 WHERE solve_id = ?",
                   (latest_solve(unmeasured, "holdem-mini"),))
    with sqlite3.connect(untraced) as db:
        db.execute("DELETE FROM trace WHERE solve_id = ?", (latest_solve(untraced, "leduc"),))
    cases = [(store_path, "rps", "reached the equilibrium exactly at iteration 1,"),
             (unmeasured, "holdem-mini", "and no exploitability for any of them"),
             (untraced, "leduc", "holds no convergence trace for this solve")]
    for store, game, words in cases:
        client = make_app(store=store, db=tmp_path / f"{game}.sqlite").client
        doc = page(client, f"/games/{game}/strategy")
        assert words in doc.by_id("convergence-missing").text
        assert doc.find("svg") is None and "No convergence trace" not in doc.text
    doc = page(make_app(store=store_path, db=tmp_path / "kuhn.sqlite").client,
               "/games/kuhn/strategy")
    assert doc.find("svg", cls="convergence-chart") is not None
    assert doc.find(id="convergence-missing") is None

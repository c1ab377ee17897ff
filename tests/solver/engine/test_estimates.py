"""A build's estimates from what it measured (`solver.engine.estimates`), on fake clocks: the
pace of the phases that finished scales the plan of those to come, a phase's bar counts the
more the further it has come, ranges where the pace is not known, and a phase that outlasts its
plan says so instead of counting down to nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from solver.engine import estimates, progress
from solver.engine.estimates import UNMEASURED, Span, estimate, pace, under_way
from solver.engine.progress import STATUS_ENV, Phase, read_status, write_status

NOW = 1_000_000.0
HULHE = [["hand-strength tables", 60.0, "working out how strong every hand is", False],
         ["hand buckets", 150.0, "grouping hands that play alike", False],
         ["starting the workers", 15.0, "starting helpers", False],
         ["solving", 3000.0, "learning", True],
         ["self-play", 60.0, "measuring", False],
         ["storing", 10.0, "saving", False]]


def status(phase: int, in_phase: float, **more: object) -> dict[str, object]:
    """The hold'em build of the newcomer's report, in phase `phase` for `in_phase` seconds."""
    return {"current": "holdem", "pending": [], "started": NOW - in_phase - 400,
            "phases": HULHE, "phase": phase, "phase_started": NOW - in_phase,
            "updated": NOW, **more}


def test_before_anything_is_measured_the_plan_is_a_wide_range() -> None:
    left = estimate(status(0, 0.0), NOW)["left"]
    scaled = 60 + 150 + 15 + 60 + 10
    assert left.mid == pytest.approx(scaled + 3000)
    assert left.low == pytest.approx(scaled * UNMEASURED[0] + 3000)
    assert left.high == pytest.approx(scaled * UNMEASURED[1] + 3000)  # the fixed solve as is


def test_a_slow_machine_scales_the_phases_still_to_come() -> None:
    """The newcomer's "hand buckets (about 2 min)" took 11.5 min. Once the hand-strength
    tables took five times their plan, the buckets are planned at that pace, and the range
    holds what they took."""
    measured = [[60.0, 300.0]]  # the tables: 5 times their plan
    report = estimate(status(1, 0.0, measured=measured), NOW)
    assert report["pace"].mid == pytest.approx(5.0)
    buckets = under_way(150.0, False, 0.0, report["pace"])
    assert buckets.mid == pytest.approx(750.0)
    assert buckets.low <= 11.5 * 60 <= float(buckets.high or 0)
    # The fixed-length solve is not scaled; the rest is, at five times its plan.
    assert report["left"].mid == pytest.approx(5 * (150 + 15 + 60 + 10) + 3000)
    # Planned at the plan's own pace, the old estimate was 2.5 minutes.
    assert estimate(status(1, 0.0), NOW)["left"].mid == pytest.approx(150 + 15 + 60 + 10
                                                                       + 3000)


def test_the_pace_is_measured_over_long_phases_and_its_range_covers_each() -> None:
    assert pace([]) == estimates.Pace(UNMEASURED[0], 1.0, UNMEASURED[1])
    assert pace([[1.0, 30.0]]) == pace([])  # a 1-second phase says nothing
    measured = pace([[100.0, 200.0], [300.0, 300.0]])
    assert measured.mid == pytest.approx(500 / 400)
    assert measured.low == pytest.approx(min(1.25 / estimates.SPREAD, 1.0))
    assert measured.high == pytest.approx(max(1.25 * estimates.SPREAD, 2.0))


def test_a_phase_past_its_plan_says_so_instead_of_nothing_left() -> None:
    """No bar, and longer than even the slow end of its plan: only what certainly remains
    (the later phases' low ends) is known."""
    at = pace([[60.0, 60.0]])
    report = estimate(status(1, 1000.0, measured=[[60.0, 60.0]]), NOW)
    assert report["left"].mid is None and report["left"].high is None
    later = (15 + 60 + 10) * at.low + 3000
    assert report["left"].low == pytest.approx(later)
    assert estimates.words(report["left"]).startswith("at least")
    assert report["fraction"] is None  # how far is not known either
    # Past its likely length but within its range: half of what the range allows is left.
    within = under_way(150.0, False, 200.0, at)
    assert within.mid == pytest.approx((150 * at.high - 200) / 2)


def test_a_bar_counts_the_more_the_further_it_has_come() -> None:
    """The Dudo match said 14 min at its start and 44 min four minutes later, its bar's early
    rate taken as it was: early on the plan weighs most and the range spans both; late, the
    bar's own reckoning does."""
    at = pace([])
    early = under_way(760.0, False, 240.0, at, bar_fraction=0.05, bar_left=2640.0)
    assert early.mid == pytest.approx(0.95 * (0.05 * 2880 + 0.95 * 760))  # 15 min, not 44
    assert early.low == pytest.approx(0.95 * 760 * at.low)
    assert early.high == pytest.approx(0.95 * 760 * at.high)  # beyond the bar's 2,880 s
    late = under_way(760.0, False, 1600.0, at, bar_fraction=0.8, bar_left=400.0)
    assert late.mid == pytest.approx(0.2 * (0.8 * 2000 + 0.2 * 760))
    assert 300 < float(late.mid or 0) < 400 and late.low < 400 < float(late.high or 0)
    # A bar that agrees with the plan is taken as it is.
    agreed = under_way(1000.0, False, 500.0, pace([[100.0, 100.0]]), bar_fraction=0.5,
                       bar_left=500.0)
    assert agreed.mid == pytest.approx(500.0)


def test_the_whole_build_adds_the_waiting_games_at_this_pace() -> None:
    measured = [[100.0, 200.0]]
    report = estimate({**status(5, 0.0, measured=measured), "pending": ["dudo-match", "old"],
                       "estimates": {"dudo-match": [900.0, 0.0], "old": 60.0}}, NOW)
    at = report["pace"]
    assert at.mid == pytest.approx(2.0)
    own = report["left"]
    assert report["build_left"].mid == pytest.approx(float(own.mid or 0) + 960 * at.mid)
    assert report["build_left"].low == pytest.approx(own.low + 960 * at.low)
    assert estimates.waiting([600.0, 3000.0], at) == Span(600 * at.low + 3000,
                                                          600 * at.mid + 3000,
                                                          600 * at.high + 3000)


def test_words_say_a_range_where_it_is_wide() -> None:
    assert estimates.words(Span(600, 620, 650)) == "about 10 min"
    assert estimates.words(Span(600, 900, 1800)) == "10 min to 30 min"
    assert estimates.words(Span(300, None, None)) == "at least 5 min"


def test_each_phase_that_ends_is_measured_for_the_next(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """`phase` adds the phase it ends to ``measured`` (not a fixed-length one), on the
    status file's clock."""
    path = tmp_path / "status.json"
    write_status(path, {"current": "holdem", "measured": [[40.0, 50.0]]})
    monkeypatch.setenv(STATUS_ENV, str(path))
    clock = [NOW]
    monkeypatch.setattr("solver.engine.progress.time.time", lambda: clock[0])
    progress.declare_phases([Phase("tables", 60.0, "rating hands"),
                             Phase("solving", 100.0, "learning", fixed=True),
                             Phase("storing", 10.0, "saving")])
    progress.phase("tables")
    clock[0] += 240.0
    progress.phase("solving")
    clock[0] += 100.0
    progress.phase("storing")
    written = read_status(path)
    assert written is not None
    assert written["measured"] == [[40.0, 50.0], [60.0, 240.0]]
    assert written["phases"][0] == ["tables", 60.0, "rating hands", False]
    assert (written["phase"], written["phase_started"]) == (2, NOW + 340.0)

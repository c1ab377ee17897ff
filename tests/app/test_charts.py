"""Tests of the server-side SVG charts (app/web/charts.py)."""

from __future__ import annotations

import itertools
import math
import xml.etree.ElementTree as ET

import pytest

from app.web import charts
from app.web.charts import (
    PLOT_BOTTOM,
    PLOT_LEFT,
    PLOT_RIGHT,
    PLOT_TOP,
    Scale,
    convergence_chart,
    convergence_scales,
    fmt_number,
    linear_ticks,
    log_ticks,
    results_chart,
    results_scales,
)

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)  # raises on malformed XML
    assert root.tag == f"{SVG}svg"
    return root


def points_of(element: ET.Element) -> list[tuple[float, float]]:
    pairs = element.attrib["points"].split()
    return [(float(x), float(y)) for x, y in (p.split(",") for p in pairs)]


def one(root: ET.Element, tag: str, cls: str) -> ET.Element:
    found = [e for e in root.iter(f"{SVG}{tag}") if e.attrib.get("class") == cls]
    assert len(found) == 1, f"expected one <{tag} class={cls}>, found {len(found)}"
    return found[0]


# ---- scales ----------------------------------------------------------------------------------


def test_linear_scale_maps_ends_and_middle() -> None:
    s = Scale(-2.0, 6.0, 100.0, 300.0)
    assert s(-2.0) == 100.0
    assert s(6.0) == 300.0
    assert s(2.0) == pytest.approx(200.0)
    inverted = Scale(0.0, 10.0, 250.0, 50.0)  # y grows upwards
    assert inverted(0.0) == 250.0
    assert inverted(10.0) == 50.0
    assert inverted(2.5) == pytest.approx(200.0)


def test_log_scale_is_linear_in_log10() -> None:
    s = Scale(1.0, 1000.0, 0.0, 300.0, log=True)
    assert s(1.0) == pytest.approx(0.0)
    assert s(10.0) == pytest.approx(100.0)
    assert s(100.0) == pytest.approx(200.0)
    assert s(1000.0) == pytest.approx(300.0)
    # Not linear in the value: 500 is much closer to 1000 than half way.
    assert s(500.0) == pytest.approx(300.0 * math.log10(500) / 3)
    with pytest.raises(ValueError, match="log scale"):
        s(0.0)
    with pytest.raises(ValueError, match="positive domain"):
        Scale(0.0, 10.0, 0, 1, log=True)
    with pytest.raises(ValueError, match="lo < hi"):
        Scale(5.0, 5.0, 0, 1)


def test_ticks_are_round_and_inside() -> None:
    assert linear_ticks(0, 10, 5) == [0, 2, 4, 6, 8, 10]
    assert linear_ticks(-1.3, 2.2, 5) == [-1.0, 0.0, 1.0, 2.0]
    assert linear_ticks(-1.3, 1.2, 5) == [-1.0, -0.5, 0.0, 0.5, 1.0]
    assert log_ticks(1, 10_000) == [1, 10, 100, 1000, 10_000]
    assert log_ticks(1e-3, 1e-2) == pytest.approx([1e-3, 2e-3, 5e-3, 1e-2])
    many = log_ticks(1e-12, 1)
    assert len(many) <= 7 and all(math.log10(t) % 2 == 0 for t in many)


def test_fmt_number() -> None:
    assert fmt_number(0) == "0"
    assert fmt_number(-0.5) == "-0.5"
    assert fmt_number(10_000) == "10k"
    assert fmt_number(2_000_000) == "2M"
    assert fmt_number(1e-6) == "1e-6"


# ---- results chart ---------------------------------------------------------------------------


CUMULATIVE = [1.0, -1.0, 1.0, 3.0, 2.0]
EXPECTED = [-0.05, -0.1, -0.15, -0.2, -0.25]
BAND = [(e - 1.96 * math.sqrt(i + 1), e + 1.96 * math.sqrt(i + 1))
        for i, e in enumerate(EXPECTED)]


def test_results_chart_is_well_formed_and_labelled() -> None:
    svg = results_chart(CUMULATIVE, EXPECTED, BAND)
    root = parse(svg)
    assert root.attrib["role"] == "img"
    assert "After 5 hands" in root.attrib["aria-label"]
    assert root.find(f"{SVG}title") is not None
    texts = {t.text for t in root.iter(f"{SVG}text")}
    assert {"you", "expected", "95% band", "hand", "winnings"} <= texts


def test_results_points_map_to_the_right_coordinates() -> None:
    root = parse(results_chart(CUMULATIVE, EXPECTED, BAND))
    geo = results_scales(CUMULATIVE, EXPECTED, BAND)
    actual = points_of(one(root, "polyline", "c-actual"))
    expected = points_of(one(root, "polyline", "c-expected"))
    assert len(actual) == len(expected) == len(CUMULATIVE) + 1  # plus the origin
    # Hand 0 is the origin at the left edge of the plot.
    assert actual[0] == pytest.approx((PLOT_LEFT, geo.y(0.0)), abs=0.01)
    assert actual[-1][0] == pytest.approx(PLOT_RIGHT, abs=0.01)
    for i, value in enumerate(CUMULATIVE, start=1):
        assert actual[i] == pytest.approx((geo.x(i), geo.y(value)), abs=0.01)
    for i, value in enumerate(EXPECTED, start=1):
        assert expected[i] == pytest.approx((geo.x(i), geo.y(value)), abs=0.01)
    # Higher winnings are drawn higher up (smaller y), and everything stays inside the plot.
    assert actual[4][1] < actual[2][1]
    for x, y in actual + expected:
        assert PLOT_LEFT - 0.01 <= x <= PLOT_RIGHT + 0.01
        assert PLOT_TOP - 0.01 <= y <= PLOT_BOTTOM + 0.01


def test_results_band_is_present_and_encloses_the_expectation() -> None:
    root = parse(results_chart(CUMULATIVE, EXPECTED, BAND))
    geo = results_scales(CUMULATIVE, EXPECTED, BAND)
    band = one(root, "path", "c-band")
    d = band.attrib["d"]
    assert d.startswith("M") and d.endswith("Z")
    coords = [tuple(map(float, p.split(","))) for p in d[1:-1].replace("L", "").split()]
    # The origin, the upper edge for hands 1..n, then the lower edge back from hand n to 1.
    assert len(coords) == 1 + 2 * len(BAND)
    uppers = coords[1:1 + len(BAND)]
    lowers = coords[1 + len(BAND):][::-1]
    for i, ((lo, hi), up, low) in enumerate(zip(BAND, uppers, lowers, strict=True), start=1):
        assert up == pytest.approx((geo.x(i), geo.y(hi)), abs=0.01)
        assert low == pytest.approx((geo.x(i), geo.y(lo)), abs=0.01)
        assert up[1] < geo.y(EXPECTED[i - 1]) < low[1]


def test_results_chart_without_band_or_hands() -> None:
    root = parse(results_chart(CUMULATIVE, EXPECTED))
    assert not [e for e in root.iter(f"{SVG}path") if e.attrib.get("class") == "c-band"]
    empty = parse(results_chart([], []))
    assert not list(empty.iter(f"{SVG}polyline"))
    assert any("Play a hand" in (t.text or "") for t in empty.iter(f"{SVG}text"))


def test_results_chart_single_flat_series() -> None:
    # All zero: the y range must still be non-empty.
    root = parse(results_chart([0.0], [0.0], [(0.0, 0.0)]))
    (x0, y0), (x1, y1) = points_of(one(root, "polyline", "c-actual"))
    assert (x0, x1) == pytest.approx((PLOT_LEFT, PLOT_RIGHT))
    assert y0 == pytest.approx(y1)


def test_results_chart_rejects_bad_input() -> None:
    with pytest.raises(ValueError, match="equal length"):
        results_chart([1.0, 2.0], [0.0])
    with pytest.raises(ValueError, match="non-finite"):
        results_chart([math.nan], [0.0])


def test_titles_are_escaped() -> None:
    root = parse(results_chart([1.0], [0.0], title="You <vs> bot & co"))
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == "You <vs> bot & co"


# ---- convergence chart -----------------------------------------------------------------------


ITERATIONS = [1, 10, 100, 1000, 10_000]
EXPLOITABILITY = [0.5, 0.08, 0.01, 1e-3, 1.2e-4]


def test_convergence_chart_is_log_log() -> None:
    root = parse(convergence_chart(ITERATIONS, EXPLOITABILITY))
    geo = convergence_scales(list(zip(ITERATIONS, EXPLOITABILITY, strict=True)))
    assert geo.x.log and geo.y.log
    curve = points_of(one(root, "polyline", "c-curve"))
    assert len(curve) == len(ITERATIONS)
    for (x, y), it, ex in zip(curve, ITERATIONS, EXPLOITABILITY, strict=True):
        assert (x, y) == pytest.approx((geo.x(it), geo.y(ex)), abs=0.01)
    # Each decade of iterations is the same horizontal distance on a log axis.
    steps = [b[0] - a[0] for a, b in itertools.pairwise(curve)]
    assert max(steps) - min(steps) < 0.05
    # Falling exploitability goes down the chart (larger y).
    assert all(b[1] > a[1] for a, b in itertools.pairwise(curve))
    ticks = {t.text for t in root.iter(f"{SVG}text") if t.attrib.get("class") == "c-tick"}
    assert {"1", "10", "100", "1k", "10k"} <= ticks
    assert {"1e-4", "0.001", "0.01", "0.1", "1"} <= ticks


def test_convergence_chart_drops_non_positive_points() -> None:
    svg = convergence_chart([0, 10, 100], [0.3, 0.0, 0.02])
    root = parse(svg)
    # Only (100, 0.02) is plottable: a single dot, and a note about the two dropped points.
    assert not list(root.iter(f"{SVG}polyline"))
    assert len(list(root.iter(f"{SVG}circle"))) == 1
    assert "2 points at 0 not shown" in svg


def test_convergence_chart_without_trace() -> None:
    root = parse(convergence_chart([], []))
    assert "No convergence trace" in ET.tostring(root, encoding="unicode")
    with pytest.raises(ValueError, match="as many"):
        convergence_chart([1, 2], [0.1])


def test_plot_area_constants_are_consistent() -> None:
    assert PLOT_LEFT < PLOT_RIGHT <= charts.WIDTH
    assert PLOT_TOP < PLOT_BOTTOM <= charts.HEIGHT


def test_results_chart_without_expectation() -> None:
    # A game without a known value: only the player's line, no expectation in the legend.
    root = parse(results_chart([1.0, 0.0], None))
    assert len(points_of(one(root, "polyline", "c-actual"))) == 3
    assert not [e for e in root.iter(f"{SVG}polyline") if e.attrib.get("class") == "c-expected"]
    assert "expected" not in {t.text for t in root.iter(f"{SVG}text")}


def test_the_legend_keeps_clear_of_the_title_and_inside_the_chart() -> None:
    """With all four lines (you, no luck, expected, 95% band) the legend once ran into a long
    title: it has a line of its own under the title, above the plot."""
    title = "Your cumulative winnings, a long title to be sure"
    root = parse(results_chart([1.0, -1.0, 2.0], [0.1, 0.2, 0.3],
                               [(-1.0, 1.0), (-2.0, 2.0), (-3.0, 3.0)],
                               adjusted=[0.5, 0.4, 0.6], title=title))
    heading = one(root, "text", "c-title")
    assert heading.text == title
    title_baseline = float(heading.attrib["y"])
    legend = next(g for g in root.iter(f"{SVG}g") if g.attrib.get("class") == "c-legend")
    labels = [t.text for t in legend.iter(f"{SVG}text")]
    assert labels == ["you", "no luck", "expected", "95% band"]
    for mark in legend:
        top = float(mark.attrib.get("y", mark.attrib.get("y1", "0")))
        if mark.tag == f"{SVG}text":
            top -= charts.FONT  # the labels' font size: the text rises above its baseline
        bottom = float(mark.attrib.get("y", mark.attrib.get("y2", "0"))) + float(
            mark.attrib.get("height", "0"))
        assert top > title_baseline + 4, ET.tostring(mark, encoding="unicode")
        assert bottom < PLOT_TOP, ET.tostring(mark, encoding="unicode")
        x = float(mark.attrib.get("x", mark.attrib.get("x1", "0")))
        assert 0 <= x < charts.WIDTH
    texts = list(legend.iter(f"{SVG}text"))
    ends = [float(t.attrib["x"]) + charts.CHAR_WIDTH * len(t.text or "") for t in texts]
    assert max(ends) <= PLOT_RIGHT

"""The page's number formats."""

from __future__ import annotations

import pytest

from app.web.format import duration, duration_span, fmt_signed, fmt_value, format_text
from app.web.templating import templates


@pytest.mark.parametrize(("x", "digits", "text"), [
    (1000.0, 0, "+1000"), (-500.0, 0, "−500"), (0.056, 3, "+0.056"), (-1.0, 3, "−1"),
    (2.50, 2, "+2.5"), (0.0004, 3, "0"), (None, 3, "—"),
])
def test_signed_numbers_keep_their_whole_part(x: float | None, digits: int, text: str) -> None:
    assert fmt_signed(x, digits) == text


@pytest.mark.parametrize(("x", "text"), [
    (0.0564, "+0.056"), (-9.5, "−9.5"), (60.813, "+60.81"), (-247.125, "−247.1"),
    (-2703.704, "−2704"), (18_000.2, "+18000"), (None, "—"),
])
def test_a_tables_values_keep_four_figures_at_most_above_ten(x: float | None, text: str) -> None:
    assert fmt_value(x) == text


@pytest.mark.parametrize(("template", "args", "text"), [
    ("%.3f", (-0.0,), "0.000"), ("%.3f", (-0.0004,), "0.000"), ("%.2f", (-0.05,), "-0.05"),
    ("%.3f … %.3f", (-0.0002, -1.5), "0.000 … -1.500"), ("%g", (-0.0,), "0"),
    ("%.1f", (-10.04,), "-10.0"), ("%.0f", (-0.4,), "0"),
])
def test_the_pages_format_filter_prints_no_negative_zero(template: str, args: tuple[float, ...],
                                                         text: str) -> None:
    assert format_text(template, *args) == text
    assert templates.env.from_string("{{ t|format(*a) }}").render(t=template, a=args) == text


@pytest.mark.parametrize(("seconds", "text"), [
    (0.2, "1 s"), (45.4, "45 s"), (89, "89 s"), (90, "2 min"), (1270, "22 min"),
    (3600, "1 h"), (4810, "1 h 21 min"),
])
def test_build_times_read_as_people_say_them(seconds: float, text: str) -> None:
    assert duration(seconds) == text


@pytest.mark.parametrize(("low", "likely", "high", "text"), [
    (1200, 1250, 1300, "about 21 min"), (1235, 1270, 1480, "about 22 min"),
    (600, 900, 1800, "10–30 min"), (40, 60, 180, "40 s–3 min"),
    (1800, 3000, 5800, "30 min–1 h 37 min"), (300, None, None, "at least 5 min"),
    (0, None, None, "longer than planned"), (None, None, None, ""),
])
def test_estimates_read_as_a_range_where_they_are_uncertain(
        low: float | None, likely: float | None, high: float | None, text: str) -> None:
    assert duration_span(low, likely, high) == text

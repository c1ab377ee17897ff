"""Server-side SVG charts for the web pages: no chart library, no JavaScript.

Two charts are drawn:

* :func:`results_chart` — a player's cumulative winnings hand by hand against the cumulative
  expectation for the seats they played, with a 95% band around the expectation;
* :func:`convergence_chart` — a solve's exploitability against iterations, log-log.

Both return one ``<svg>`` element as a string, sized by its ``viewBox`` so that it scales with
its container. Every number is placed through a :class:`Scale`, which the tests use to check
that a data point lands on the pixel it should.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html import escape

WIDTH = 380
HEIGHT = 280
"""The ``viewBox``. A page draws a chart at most this many CSS pixels wide (``.chart`` in
``static/app.css``): its text is then the page's size, on a phone about nine tenths of it."""
FONT = 14
"""The ticks', labels' and legend's size in the ``viewBox``'s units (the pages' small text)."""
TITLE_FONT = 15
CHAR_WIDTH = 0.58 * FONT
"""A generous width of one character of the labels, to lay them out."""
MARGIN_LEFT = 66
MARGIN_RIGHT = 16
MARGIN_TOP = 58
"""Room for two lines above the plot: the title, then the legend on a line of its own (beside
the title the legend of four lines ran into it)."""
MARGIN_BOTTOM = 48
TITLE_Y = 22
LEGEND_Y = 44

PLOT_LEFT = MARGIN_LEFT
PLOT_RIGHT = WIDTH - MARGIN_RIGHT
PLOT_TOP = MARGIN_TOP
PLOT_BOTTOM = HEIGHT - MARGIN_BOTTOM


# --------------------------------------------------------------------------------------------
# Scales and ticks
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Scale:
    """Maps the data interval ``[lo, hi]`` onto the pixel interval ``[start, end]``.

    With ``log=True`` the mapping is linear in ``log10`` of the value (``lo`` and ``hi`` must
    then be positive). ``start`` may be greater than ``end`` (a y axis grows upwards).
    """

    lo: float
    hi: float
    start: float
    end: float
    log: bool = False

    def __post_init__(self) -> None:
        if self.log and (self.lo <= 0 or self.hi <= 0):
            raise ValueError(f"a log scale needs a positive domain, got [{self.lo}, {self.hi}]")
        if not (math.isfinite(self.lo) and math.isfinite(self.hi)) or self.hi <= self.lo:
            raise ValueError(f"a scale needs a finite domain with lo < hi, got [{self.lo}, "
                             f"{self.hi}]")

    def _t(self, value: float) -> float:
        if self.log:
            return math.log10(value)
        return value

    def __call__(self, value: float) -> float:
        """The pixel coordinate of ``value``."""
        if self.log and value <= 0:
            raise ValueError(f"{value} cannot be placed on a log scale")
        a, b = self._t(self.lo), self._t(self.hi)
        return self.start + (self._t(value) - a) / (b - a) * (self.end - self.start)

    def ticks(self, count: int = 5) -> list[float]:
        """Round values inside the domain to label the axis with."""
        return log_ticks(self.lo, self.hi) if self.log else linear_ticks(self.lo, self.hi, count)


def nice_step(span: float, count: int) -> float:
    """A step of 1, 2 or 5 times a power of ten that cuts ``span`` into about ``count`` parts."""
    if span <= 0 or not math.isfinite(span):
        return 1.0
    raw = span / max(count, 1)
    power = 10.0 ** math.floor(math.log10(raw))
    for factor in (1.0, 2.0, 5.0, 10.0):
        if raw <= factor * power * (1 + 1e-9):
            return factor * power
    return 10.0 * power  # pragma: no cover - unreachable: the loop ends at 10


def linear_ticks(lo: float, hi: float, count: int = 5) -> list[float]:
    step = nice_step(hi - lo, count)
    first = math.ceil(lo / step - 1e-9)
    last = math.floor(hi / step + 1e-9)
    ticks = [round(i * step, 12) for i in range(first, last + 1)]
    return [0.0 if t == 0 else t for t in ticks]  # no "-0"


def log_ticks(lo: float, hi: float) -> list[float]:
    """Powers of ten inside ``[lo, hi]``; with 1, 2, 5 multiples when it spans < 2 decades,
    and every other power when it spans more than 8."""
    e_lo, e_hi = math.floor(math.log10(lo) + 1e-9), math.ceil(math.log10(hi) - 1e-9)
    tol = 1e-9
    if e_hi - e_lo < 2:
        ticks = [m * 10.0**e for e in range(e_lo, e_hi + 1) for m in (1, 2, 5)]
    else:
        stride = 2 if e_hi - e_lo > 8 else 1
        ticks = [10.0**e for e in range(e_lo, e_hi + 1) if e % stride == 0]
    return [t for t in ticks if lo * (1 - tol) <= t <= hi * (1 + tol)]


def padded_range(values: Sequence[float], pad: float = 0.08) -> tuple[float, float]:
    """``(lo, hi)`` covering ``values`` with some air, never empty, snapped to nice ticks."""
    lo, hi = min(values), max(values)
    if hi - lo < 1e-12:
        lo, hi = lo - 1.0, hi + 1.0
    air = (hi - lo) * pad
    lo, hi = lo - air, hi + air
    step = nice_step(hi - lo, 5)
    return math.floor(lo / step) * step, math.ceil(hi / step) * step


def log_range(values: Sequence[float]) -> tuple[float, float]:
    """A positive ``(lo, hi)`` covering ``values``, widened to whole decades (or 1-2-5 steps)."""
    lo, hi = min(values), max(values)
    e_lo, e_hi = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    if e_hi == e_lo:
        e_hi += 1
    return 10.0**e_lo, 10.0**e_hi


# --------------------------------------------------------------------------------------------
# Formatting
# --------------------------------------------------------------------------------------------


def fmt_number(value: float) -> str:
    """Compact label: ``0``, ``12``, ``-2.5``, ``0.05``, ``1e-06``, ``1k``, ``10M``."""
    if value == 0:
        return "0"
    a = abs(value)
    if a >= 1e6 and float(value / 1e6).is_integer():
        return f"{value / 1e6:g}M"
    if a >= 1e3 and float(value / 1e3).is_integer():
        return f"{value / 1e3:g}k"
    if a < 1e-3 or a >= 1e7:
        return f"{value:.0e}".replace("e-0", "e-").replace("e+0", "e")
    return f"{value:.6g}"


def _xy(x: float, y: float) -> str:
    return f"{x:.2f},{y:.2f}"


def _points(xs: Sequence[float], ys: Sequence[float], sx: Scale, sy: Scale) -> str:
    return " ".join(_xy(sx(x), sy(y)) for x, y in zip(xs, ys, strict=True))


def _text(x: float, y: float, body: str, cls: str, anchor: str = "middle", **attrs: str) -> str:
    extra = "".join(f' {k.replace("_", "-")}="{escape(v)}"' for k, v in attrs.items())
    return (f'<text x="{x:.2f}" y="{y:.2f}" class="{cls}" text-anchor="{anchor}"{extra}>'
            f"{escape(body)}</text>")


SVG_CSS = (
    ".c-bg{fill:var(--chart-bg,#fff)}"
    ".c-grid{stroke:var(--chart-grid,#e3e7ee);stroke-width:1}"
    ".c-zero{stroke:var(--chart-axis,#8a94a6);stroke-width:1}"
    ".c-axis{stroke:var(--chart-axis,#8a94a6);stroke-width:1}"
    f".c-tick{{font:{FONT}px system-ui,sans-serif;fill:var(--chart-text,#4a5466)}}"
    f".c-label{{font:{FONT}px system-ui,sans-serif;fill:var(--chart-text,#4a5466)}}"
    f".c-title{{font:600 {TITLE_FONT}px system-ui,sans-serif;fill:var(--chart-title,#1d2433)}}"
    f".c-empty{{font:{FONT}px system-ui,sans-serif;fill:var(--chart-text,#4a5466)}}"
    ".c-band{fill:var(--chart-band,#7aa7ff);fill-opacity:.22;stroke:none}"
    ".c-expected{fill:none;stroke:var(--chart-expected,#5b6b86);stroke-width:2;"
    "stroke-dasharray:6 4}"
    ".c-actual{fill:none;stroke:var(--chart-actual,#e2573b);stroke-width:2.5;"
    "stroke-linejoin:round}"
    ".c-adjusted{fill:none;stroke:var(--chart-adjusted,#1f8a5b);stroke-width:2.5;"
    "stroke-linejoin:round}"
    ".c-dot{fill:var(--chart-actual,#e2573b)}"
    ".c-dot-adjusted{fill:var(--chart-adjusted,#1f8a5b)}"
    ".c-curve{fill:none;stroke:var(--chart-curve,#2f6fdf);stroke-width:2.5;"
    "stroke-linejoin:round}"
)
"""The charts' style sheet, inside each SVG so that a chart also stands alone. The pages'
Content-Security-Policy allows exactly this inline style by its hash (``app.core.security``)."""

_STYLE = f"<style>{SVG_CSS}</style>"


def _open_svg(label: str, title: str, description: str, chart_class: str) -> list[str]:
    return [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" '
        f'class="chart {chart_class}" role="img" aria-label="{escape(label)}" '
        f'preserveAspectRatio="xMidYMid meet">',
        f"<title>{escape(title)}</title>",
        f"<desc>{escape(description)}</desc>",
        _STYLE,
        f'<rect class="c-bg" x="0" y="0" width="{WIDTH}" height="{HEIGHT}" rx="8"/>',
    ]


def _axes(sx: Scale, sy: Scale, x_label: str, y_label: str, x_ticks: Sequence[float],
          y_ticks: Sequence[float]) -> list[str]:
    out = ['<g class="c-grid-lines">']
    for t in y_ticks:
        y = sy(t)
        out.append(f'<line class="c-grid" x1="{PLOT_LEFT}" x2="{PLOT_RIGHT}" '
                   f'y1="{y:.2f}" y2="{y:.2f}"/>')
    for t in x_ticks:
        x = sx(t)
        out.append(f'<line class="c-grid" x1="{x:.2f}" x2="{x:.2f}" '
                   f'y1="{PLOT_TOP}" y2="{PLOT_BOTTOM}"/>')
    out.append("</g>")
    out.append(f'<line class="c-axis" x1="{PLOT_LEFT}" x2="{PLOT_LEFT}" y1="{PLOT_TOP}" '
               f'y2="{PLOT_BOTTOM}"/>')
    out.append(f'<line class="c-axis" x1="{PLOT_LEFT}" x2="{PLOT_RIGHT}" y1="{PLOT_BOTTOM}" '
               f'y2="{PLOT_BOTTOM}"/>')
    out.append('<g class="c-ticks">')
    out.extend(_text(PLOT_LEFT - 6, sy(t) + FONT * 0.35, fmt_number(t), "c-tick", "end")
               for t in y_ticks)
    out.extend(_text(sx(t), PLOT_BOTTOM + FONT + 5, fmt_number(t), "c-tick") for t in x_ticks)
    out.append("</g>")
    out.append(_text((PLOT_LEFT + PLOT_RIGHT) / 2, HEIGHT - 8, x_label, "c-label"))
    cy = (PLOT_TOP + PLOT_BOTTOM) / 2
    out.append(_text(FONT, cy, y_label, "c-label", transform=f"rotate(-90 {FONT} {cy:.2f})"))
    return out


def _legend(entries: Sequence[tuple[str, str]], dots: Mapping[str, str] | None = None
            ) -> list[str]:
    """Swatches on the line under the title, left-aligned, wrapping to the right edge;
    ``entries`` are (css class, text). ``dots`` maps an entry's class to the class of the
    points drawn on its line, shown on its swatch too (the swatch is what the chart draws)."""
    out = ['<g class="c-legend">']
    x, y = 12.0, float(LEGEND_Y)
    for cls, label in entries:
        width = CHAR_WIDTH * len(label) + 34
        if x > 12 and x + width > PLOT_RIGHT:
            x, y = 12.0, y + FONT + 3
        middle = y - FONT * 0.3
        if cls == "c-band":
            out.append(f'<rect class="c-band" x="{x:.2f}" y="{middle - 5:.2f}" width="20" '
                       'height="10"/>')
        else:
            out.append(f'<line class="{cls}" x1="{x:.2f}" x2="{x + 20:.2f}" y1="{middle:.2f}" '
                       f'y2="{middle:.2f}"/>')
        if dots and cls in dots:
            out.append(f'<circle class="{dots[cls]}" cx="{x + 10:.2f}" cy="{middle:.2f}" '
                       'r="4"/>')
        out.append(_text(x + 25, y, label, "c-label", "start"))
        x += width
    out.append("</g>")
    return out


def _empty(parts: list[str], message: str) -> str:
    parts.append(f'<rect class="c-grid" x="{PLOT_LEFT}" y="{PLOT_TOP}" '
                 f'width="{PLOT_RIGHT - PLOT_LEFT}" height="{PLOT_BOTTOM - PLOT_TOP}" '
                 f'fill="none" stroke-dasharray="4 4"/>')
    lines = textwrap.wrap(message, int((PLOT_RIGHT - PLOT_LEFT - 20) // CHAR_WIDTH))
    first = (PLOT_TOP + PLOT_BOTTOM) / 2 - (len(lines) - 1) * (FONT + 4) / 2
    parts.extend(_text((PLOT_LEFT + PLOT_RIGHT) / 2, first + i * (FONT + 4), line, "c-empty")
                 for i, line in enumerate(lines))
    parts.append("</svg>")
    return "".join(parts)


# --------------------------------------------------------------------------------------------
# The charts
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResultsGeometry:
    """The scales a results chart was drawn with (for tests and for callers placing marks)."""

    x: Scale
    y: Scale


def results_scales(cumulative: Sequence[float], expected: Sequence[float] | None = None,
                   band: Sequence[tuple[float, float]] | None = None,
                   hands: Sequence[int] | None = None) -> ResultsGeometry:
    """The scales :func:`results_chart` uses for these series (hand 0 at the origin)."""
    n = hands[-1] if hands else len(cumulative)
    values = [0.0, *cumulative, *(expected or ())]
    if band:
        values += [v for pair in band for v in pair]
    y_lo, y_hi = padded_range(values)
    return ResultsGeometry(
        x=Scale(0.0, float(max(n, 1)), PLOT_LEFT, PLOT_RIGHT),
        y=Scale(y_lo, y_hi, PLOT_BOTTOM, PLOT_TOP),
    )


def results_chart(cumulative: Sequence[float], expected: Sequence[float] | None,
                  band: Sequence[tuple[float, float]] | None = None, *,
                  hands: Sequence[int] | None = None,
                  adjusted: Sequence[float] | None = None,
                  title: str = "Cumulative winnings") -> str:
    """Cumulative winnings against the expectation, as an SVG string.

    ``cumulative[i]`` and ``expected[i]`` are the player's total and the expected total after
    hand ``hands[i]`` (default: hand ``i + 1``; a long match passes a sample of its hands);
    ``band[i]`` is the ``(low, high)`` 95% band after that hand, drawn around the expectation.
    ``adjusted[i]`` is the sum of the luck-adjusted results after that hand, drawn as a line
    of its own. Every series starts from 0 at hand 0. Without ``expected`` (no known game value)
    only the player's lines are drawn.
    """
    n = len(cumulative)
    xs = [0, *(hands if hands is not None else range(1, n + 1))]
    if len(xs) != n + 1:
        raise ValueError(f"results_chart: {len(xs) - 1} hand numbers for {n} points")
    if adjusted is not None and len(adjusted) != n:
        raise ValueError(f"results_chart: {len(adjusted)} adjusted points for {n} points")
    if (expected is not None and len(expected) != n) or (band is not None and len(band) != n):
        raise ValueError(
            f"results_chart needs series of equal length: {n} cumulative, "
            f"{len(expected) if expected is not None else 'no'} expected, "
            f"{len(band) if band is not None else 'no'} band values")
    for name, series in (("cumulative", cumulative), ("expected", expected or ()),
                         ("adjusted", adjusted or ()),
                         ("band", [v for pair in band or () for v in pair])):
        if any(not math.isfinite(v) for v in series):
            raise ValueError(f"results_chart: non-finite value in the {name} series")
    if not n:
        summary = "No hands played yet."
    else:
        summary = (f"After {xs[-1]} hand{'s' if xs[-1] != 1 else ''}: "
                   f"{fmt_number(cumulative[-1])} won")
        summary += (f", {fmt_number(round(expected[-1], 3))} expected." if expected
                    else ".")
    parts = _open_svg(f"{title}. {summary}", title, summary, "results-chart")
    parts.append(_text(12, TITLE_Y, title, "c-title", "start"))
    if n == 0:
        geo = results_scales([])
        parts += _axes(geo.x, geo.y, "hand", "winnings", [], geo.y.ticks())
        return _empty(parts, "Play a hand to start the chart")

    geo = results_scales(cumulative, [*(expected or ()), *(adjusted or ())] or None, band,
                         xs[1:])
    sx, sy = geo.x, geo.y
    x_ticks = [t for t in linear_ticks(0, xs[-1], 6) if float(t).is_integer()]
    parts += _axes(sx, sy, "hand", "winnings", x_ticks, sy.ticks())
    if sy.lo < 0 < sy.hi:
        parts.append(f'<line class="c-zero" x1="{PLOT_LEFT}" x2="{PLOT_RIGHT}" '
                     f'y1="{sy(0):.2f}" y2="{sy(0):.2f}"/>')
    if band is not None:
        upper = [_xy(sx(0), sy(0))] + [_xy(sx(xs[i + 1]), sy(hi))
                                       for i, (_, hi) in enumerate(band)]
        lower = [_xy(sx(xs[i + 1]), sy(lo)) for i, (lo, _) in enumerate(band)]
        outline = upper + lower[::-1]
        parts.append(f'<path class="c-band" d="M{" L".join(outline)} Z"/>')
    if expected is not None:
        parts.append(f'<polyline class="c-expected" '
                     f'points="{_points(xs, [0.0, *expected], sx, sy)}"/>')
    if adjusted is not None:
        parts.append(f'<polyline class="c-adjusted" '
                     f'points="{_points(xs, [0.0, *adjusted], sx, sy)}"/>')
    parts.append(f'<polyline class="c-actual" points="{_points(xs, [0.0, *cumulative], sx, sy)}"'
                 "/>")
    parts.append(f'<circle class="c-dot" cx="{sx(xs[-1]):.2f}" cy="{sy(cumulative[-1]):.2f}" '
                 'r="4"/>')
    legend = [("c-actual", "you")]
    if adjusted is not None:
        legend.append(("c-adjusted", "no luck"))
    if expected is not None:
        legend.append(("c-expected", "expected"))
    if band is not None:
        legend.append(("c-band", "95% band"))
    parts += _legend(legend)
    parts.append("</svg>")
    return "".join(parts)


@dataclass(frozen=True, slots=True)
class ConvergenceGeometry:
    x: Scale
    y: Scale


def convergence_points(iterations: Sequence[float],
                       exploitability: Sequence[float]) -> list[tuple[float, float]]:
    """The points a log-log chart can show: both coordinates positive and finite."""
    if len(iterations) != len(exploitability):
        raise ValueError(f"convergence_chart needs as many iterations ({len(iterations)}) as "
                         f"exploitability values ({len(exploitability)})")
    return [(float(i), float(e)) for i, e in zip(iterations, exploitability, strict=True)
            if i > 0 and e > 0 and math.isfinite(i) and math.isfinite(e)]


def convergence_scales(points: Sequence[tuple[float, float]]) -> ConvergenceGeometry:
    x_lo, x_hi = log_range([p[0] for p in points])
    y_lo, y_hi = log_range([p[1] for p in points])
    return ConvergenceGeometry(
        x=Scale(x_lo, x_hi, PLOT_LEFT, PLOT_RIGHT, log=True),
        y=Scale(y_lo, y_hi, PLOT_BOTTOM, PLOT_TOP, log=True),
    )


def convergence_chart(iterations: Sequence[float], exploitability: Sequence[float], *,
                      title: str = "Convergence") -> str:
    """Exploitability against iterations on log-log axes, as an SVG string.

    Points with a zero or negative coordinate cannot sit on a log axis and are left out (the
    chart says how many).
    """
    points = convergence_points(iterations, exploitability)
    dropped = len(iterations) - len(points)
    if points:
        summary = (f"Exploitability from {fmt_number(points[0][1])} at iteration "
                   f"{fmt_number(points[0][0])} to {fmt_number(points[-1][1])} at iteration "
                   f"{fmt_number(points[-1][0])}.")
    else:
        summary = "No convergence trace stored for this solve."
    parts = _open_svg(f"{title}. {summary}", title, summary, "convergence-chart")
    parts.append(_text(12, TITLE_Y, title, "c-title", "start"))
    if not points:
        dummy = Scale(1, 10, PLOT_LEFT, PLOT_RIGHT, log=True)
        parts += _axes(dummy, Scale(1, 10, PLOT_BOTTOM, PLOT_TOP, log=True), "iterations",
                       "exploitability", [], [])
        return _empty(parts, "No convergence trace")
    geo = convergence_scales(points)
    parts += _axes(geo.x, geo.y, "iterations (log)", "exploitability (log)", geo.x.ticks(),
                   geo.y.ticks())
    xs, ys = [p[0] for p in points], [p[1] for p in points]
    if len(points) == 1:
        parts.append(f'<circle class="c-dot" cx="{geo.x(xs[0]):.2f}" cy="{geo.y(ys[0]):.2f}" '
                     'r="4"/>')
    else:
        parts.append(f'<polyline class="c-curve" points="{_points(xs, ys, geo.x, geo.y)}"/>')
    if dropped:
        parts.append(_text(PLOT_RIGHT, PLOT_TOP + FONT + 2,
                           f"{dropped} point{'s' if dropped != 1 else ''} at 0 not shown",
                           "c-tick", "end"))
    parts.append("</svg>")
    return "".join(parts)

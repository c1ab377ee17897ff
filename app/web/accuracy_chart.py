"""The coach's accuracy day by day, as a server-side SVG chart built from `app.web.charts`' scales,
axes and style (so the pages' Content-Security-Policy admits it as it admits the others)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from app.web.charts import (
    PLOT_BOTTOM,
    PLOT_LEFT,
    PLOT_RIGHT,
    PLOT_TOP,
    TITLE_Y,
    Scale,
    _axes,
    _empty,
    _legend,
    _open_svg,
    _points,
    _text,
    linear_ticks,
)


def accuracy_chart(days: Sequence[date], accuracy: Sequence[float | None], *,
                   title: str = "Your accuracy by day") -> str:
    """The share of accurate decisions on each day played (days without a judged decision
    are left out), against the days since the first one, as an SVG string."""
    if len(days) != len(accuracy):
        raise ValueError(f"accuracy_chart: {len(days)} days for {len(accuracy)} values")
    points = [(d, 100 * a) for d, a in zip(days, accuracy, strict=True) if a is not None]
    if points:
        first, last = points[0], points[-1]
        summary = (f"{len(points)} day{'s' if len(points) != 1 else ''} from {first[0]}: "
                   f"{first[1]:.0f}% then, {last[1]:.0f}% on {last[0]}.")
    else:
        summary = "No judged decisions yet."
    parts = _open_svg(f"{title}. {summary}", title, summary, "accuracy-chart")
    parts.append(_text(12, TITLE_Y, title, "c-title", "start"))
    y = Scale(0.0, 100.0, PLOT_BOTTOM, PLOT_TOP)
    if not points:
        x = Scale(0.0, 1.0, PLOT_LEFT, PLOT_RIGHT)
        parts += _axes(x, y, "days", "accurate decisions (%)", [], y.ticks())
        return _empty(parts, "Play hands the coach can judge to start the chart")
    start = points[0][0]
    xs = [float((d - start).days) for d, _ in points]
    x = Scale(0.0, max(1.0, xs[-1]), PLOT_LEFT, PLOT_RIGHT)
    ticks = [t for t in linear_ticks(0.0, x.hi, 6) if float(t).is_integer()]
    parts += _axes(x, y, f"days since {start}", "accurate decisions (%)", ticks, y.ticks())
    ys = [a for _, a in points]
    if len(points) > 1:
        parts.append(f'<polyline class="c-adjusted" points="{_points(xs, ys, x, y)}"/>')
    parts += [f'<circle class="c-dot-adjusted" cx="{x(px):.2f}" cy="{y(py):.2f}" r="4"/>'
              for px, py in zip(xs, ys, strict=True)]
    parts += _legend([("c-adjusted", "accuracy")], dots={"c-adjusted": "c-dot-adjusted"})
    parts.append("</svg>")
    return "".join(parts)

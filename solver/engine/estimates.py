"""How long a build still takes, from what it has measured so far.

A build's plan (`solver.runs.run_plan`) gives each phase a cost measured on a two-core machine. The
machine a build runs on may be faster, slower or busy with other work, so once a build has
started its estimates come from what it measured:

* **this machine's pace** (`Pace`): how long the build's finished phases took against their
  plan (1 is the plan's machine), over every game of the background build so far; before any
  phase has finished, the plan with a wide range (`UNMEASURED`);
* **the phase under way**: what its progress bar has still to do, at a blend of the bar's own
  rate and the phase's plan at that pace, the bar weighing the more the further it has come
  (the range spans both); without a bar, its plan at that pace less the time it has run;
* **phases and games not started yet**: their plan at that pace, as a range.

A phase of a fixed length (a solve run for so many minutes) takes its plan as it is, and does not
count towards the pace. Every function takes the time (`now`) as an argument: the estimates are
the same for the same status, whatever the clock.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

UNMEASURED = (0.5, 4.0)
"""The pace assumed before a phase has finished: from twice as fast as the plan's machine to four
times as slow (a newcomer's loaded two-core machine took 3 to 6 times the plan's time)."""
SPREAD = 1.5
"""How far the pace of the next phase may stray from the pace measured so far, either way: the
plan's costs of different phases are not equally good, and a machine's load changes."""
MIN_SAMPLE_SECONDS = 10.0
"""A phase planned shorter than this says little about the pace (start-up costs dominate it)."""


@dataclass(frozen=True, slots=True)
class Pace:
    """How many seconds this machine takes for a second of the plan: likely (`mid`) and the
    range it is thought to be in."""

    low: float
    mid: float
    high: float

    @property
    def measured(self) -> bool:
        return (self.low, self.mid, self.high) != (UNMEASURED[0], 1.0, UNMEASURED[1])


@dataclass(frozen=True, slots=True)
class Span:
    """Seconds still to go: likely (`mid`) and a range; `mid` and `high` are None where a phase
    has run past anything its plan allowed (only `low`, what is certainly left, is known)."""

    low: float
    mid: float | None
    high: float | None

    def __add__(self, other: Span) -> Span:
        return Span(self.low + other.low,
                    None if self.mid is None or other.mid is None else self.mid + other.mid,
                    None if self.high is None or other.high is None else self.high + other.high)


NOTHING = Span(0.0, 0.0, 0.0)


def pace(samples: Iterable[Sequence[float]]) -> Pace:
    """This machine's pace from (planned, actual) seconds of finished phases."""
    kept = [(float(p), float(a)) for p, a in samples if float(p) >= MIN_SAMPLE_SECONDS]
    if not kept:
        return Pace(UNMEASURED[0], 1.0, UNMEASURED[1])
    mid = sum(a for _, a in kept) / sum(p for p, _ in kept)
    ratios = [a / p for p, a in kept]
    return Pace(min(mid / SPREAD, *ratios), mid, max(mid * SPREAD, *ratios))


def planned(seconds: float, at: Pace, fixed: bool = False) -> Span:
    """A phase (or game) not started yet, planned at `seconds`."""
    if fixed:
        return Span(seconds, seconds, seconds)
    return Span(seconds * at.low, seconds * at.mid, seconds * at.high)


def under_way(seconds: float, fixed: bool, elapsed: float, at: Pace,
              bar_fraction: float | None = None, bar_left: float | None = None) -> Span:
    """What is left of a phase planned at `seconds` that has run `elapsed` seconds. If its bar
    runs, having done `bar_fraction` of its work and reckoning `bar_left` seconds to go at its
    own rate, the rest of the work (1 - `bar_fraction`) takes its share of the phase's whole
    length, that length being the bar's (its elapsed time and `bar_left`) and the plan's at
    this pace, weighed by how far the bar has come; the range spans both."""
    whole = planned(seconds, at, fixed)
    low, mid, high = whole.low, float(whole.mid or 0.0), float(whole.high or 0.0)
    if bar_left is not None and bar_fraction is not None and 0.0 < bar_fraction < 1.0:
        by_rate, rest = elapsed + bar_left, 1.0 - bar_fraction
        mid = bar_fraction * by_rate + rest * mid
        return Span(rest * min(low, by_rate), rest * mid, rest * max(high, by_rate))
    if high <= elapsed:  # past even the slow end of its plan
        return Span(0.0, None, None)
    left_mid = mid - elapsed if mid > elapsed else (high - elapsed) / 2
    return Span(max(0.0, low - elapsed), left_mid, high - elapsed)


def game_plan(entry: Any) -> tuple[float, float]:
    """(seconds that scale with the pace, seconds of a fixed length) of a game's plan as a
    status file keeps it: a pair, or one number (all of it scaled)."""
    if isinstance(entry, (list, tuple)) and len(entry) == 2:
        return float(entry[0]), float(entry[1])
    return float(entry), 0.0


def waiting(entry: Any, at: Pace) -> Span:
    """A game whose build has not started, from its plan."""
    scaled, fixed = game_plan(entry)
    return planned(scaled, at) + planned(fixed, at, fixed=True)


def estimate(status: dict[str, Any], now: float) -> dict[str, Any]:
    """How far the game being built has come and how long it and the whole background build
    still take (`Span`s), from a status file's fields (`solver.engine.progress`)."""
    at = pace(status.get("measured") or [])
    since = max(0.0, now - float(status.get("updated") or now))
    step_left = status.get("remaining_seconds")
    step_left = max(0.0, float(step_left) - since) if step_left is not None else None
    done, total = status.get("done"), status.get("total")
    step_fraction = float(done) / float(total) if total and done is not None else None
    phases = [_phase(p) for p in status.get("phases") or []]
    index = status.get("phase")
    if phases and isinstance(index, int) and 0 <= index < len(phases):
        _, seconds, _, fixed = phases[index]
        in_phase = max(0.0, now - float(status.get("phase_started") or now))
        left = under_way(seconds, fixed, in_phase, at, step_fraction, step_left)
        for _, later, _, later_fixed in phases[index + 1:]:
            left = left + planned(later, at, later_fixed)
    elif phases and index is None:  # declared, not begun
        left = NOTHING
        for _, seconds, _, fixed in phases:
            left = left + planned(seconds, at, fixed)
    elif step_left is not None:
        left = Span(step_left, step_left, step_left)
    elif (entry := (status.get("estimates") or {}).get(status.get("current"))) is not None:
        left = waiting(entry, at)  # its process is starting: the game's plan
    else:
        left = Span(0.0, None, None)
    fraction = step_fraction if not phases else None
    started = status.get("started")
    if left.mid is not None and started is not None:
        elapsed = max(0.0, now - float(started))
        fraction = elapsed / (elapsed + left.mid) if elapsed + left.mid > 0 else None
    build = left
    for game in status.get("pending") or []:
        entry = (status.get("estimates") or {}).get(game)
        build = build + (waiting(entry, at) if entry is not None else Span(0.0, None, None))
    return {"fraction": fraction, "left": left, "build_left": build, "pace": at,
            "phase": index + 1 if isinstance(index, int) else None,
            "phases": len(phases) or None,
            "phase_name": phases[index][0] if phases and isinstance(index, int) else None,
            "phase_words": phases[index][2] if phases and isinstance(index, int) else None}


def _phase(entry: Sequence[Any]) -> tuple[str, float, str, bool]:
    """(name, planned seconds, plain words, fixed length) of a phase as a status file keeps it."""
    name, seconds = str(entry[0]), float(entry[1])
    words = str(entry[2]) if len(entry) > 2 and entry[2] else ""
    return name, seconds, words, bool(entry[3]) if len(entry) > 3 else False


def minutes(seconds: float) -> str:
    """``45 s``, ``12 min``: a time for a log line."""
    return f"{seconds:.0f} s" if seconds < 90 else f"{seconds / 60:.0f} min"


def words(span: Span) -> str:
    """A span for a log line: ``about 12 min``, ``10 to 25 min``, ``at least 3 min``."""
    if span.high is None:
        return f"at least {minutes(span.low)}"
    if span.mid is not None and (span.high - span.low <= 60 or span.high <= 1.25 * span.low):
        return f"about {minutes(span.mid)}"
    return f"{minutes(span.low)} to {minutes(span.high)}"

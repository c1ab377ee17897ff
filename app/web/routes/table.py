"""The table of a match: the hand being played, the results, and the forms that play.

Every page works without JavaScript: actions are plain ``<form method="post">`` posts answered
with a 303 redirect to the table (POST/redirect/GET). With htmx loaded the same forms carry
``hx-post``; a request with the ``HX-Request`` header gets the partial it targets instead (the
table, plus the results panel as an out-of-band swap), and the same URLs are pushed to the
history, so a reload shows the same thing.

The action forms carry the hand's ``seq``, so a second click on a page that is out of date (a
double click without JavaScript, a second tab) is refused with the table re-rendered (409)
instead of being played as another action. Looking at the table never changes the hand.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Query, Request
from fastapi.responses import RedirectResponse, Response
from sqlalchemy.orm import Session

from app import services
from app.core.errors import (
    HandBusyError,
    HandFinishedError,
    HandInProgressError,
    IllegalActionError,
    IllegalAmountError,
    StaleHandError,
    UnguardedActionError,
)
from app.deps import Backend, BackendDep, MatchIdPath, OwnerDep
from app.schemas import ACCURACY, GameDescription, HandView, MatchResults
from app.services import OwnerAccess
from app.web import charts
from app.web.csrf import verify_csrf
from app.web.errors import PageRoute, htmx_target, is_htmx
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)

STALE_CLICK = ("That click was for an earlier view of this hand (a double click, or another "
               "tab?), so it was not played. Here is the hand as it is now.")
COACH_FIRST_POLL_MS = 200
"""How soon a finished hand's table asks again for the analysis it waits for: most hands are
analysed within a second."""
COACH_POLL_GROWTH = 1.5
COACH_LAST_POLL_MS = 2000
"""The longest wait between two asks, which a slow analysis settles at."""
MAX_POLLS = 1000


def coach_poll_delay(poll: int) -> int:
    """Milliseconds before the table asks for the analysis again, after `poll` asks (0 the
    first time): growing from a fifth of a second to two seconds, so that the figures show
    soon after they are ready without a slow analysis being asked for five times a second."""
    return min(COACH_LAST_POLL_MS, round(COACH_FIRST_POLL_MS * COACH_POLL_GROWTH ** min(poll, 20)))


@dataclass(frozen=True, slots=True)
class Table:
    game: GameDescription
    hand: HandView | None
    results: MatchResults
    hint: bool
    message: str | None = None
    poll: int = 0
    """How many times the table has asked for a pending analysis already."""


def match_url(match_id: str, hint: bool = False) -> str:
    return f"/matches/{match_id}" + ("?hint=1" if hint else "")


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "on", "yes"}


def _table(session: Session, backend: Backend, match_id: str, access: OwnerAccess, hint: bool,
           hand: HandView | None = None, message: str | None = None) -> Table:
    """The table after `hand` was played (or as it is), with the match's results."""
    results = services.match_results(session, backend.source, match_id, access)
    if results.hands_analysing:
        backend.analyse(match_id)
    if hand is None:
        hand = services.latest_hand_view(session, backend.bot, match_id, access, hint)
    return Table(services.game_description(results.game), hand, results, hint, message)


def results_panel(results: MatchResults) -> dict[str, Any]:
    """The results chart, drawn from the service's numbers (the verdict is the service's)."""
    series = results.series
    expected: list[float] | None = None
    if series and all(p.expected_cumulative is not None for p in series):
        expected = [float(p.expected_cumulative or 0.0) for p in series]
    band = None
    if expected is not None and results.std is not None:
        # Where a player with this spread who plays like the equilibrium lands 95% of the time.
        band = [(e - 1.96 * results.std * math.sqrt(p.number),
                 e + 1.96 * results.std * math.sqrt(p.number))
                for p, e in zip(series, expected, strict=True)]
    adjusted = None
    if series and all(p.adjusted_cumulative is not None for p in series):
        adjusted = [float(p.adjusted_cumulative or 0.0) for p in series]
    svg = charts.results_chart([p.cumulative for p in series], expected, band,
                               hands=[p.number for p in series], adjusted=adjusted,
                               title="Your cumulative winnings")
    return {"svg": svg, "accuracy_definition": ACCURACY, "band": band is not None,
            "band_width": bool(results.std),
            "expected": expected is not None, "adjusted": adjusted is not None}


def render(request: Request, table: Table, status_code: int = 200) -> Response:
    context = {
        "game": table.game,
        "hand": table.hand,
        "results": table.results,
        "panel": results_panel(table.results),
        "hint": table.hint,
        "message": table.message,
        "match_id": table.results.match_id,
        "nav": "play",
        "coach_poll": table.poll + 1,
        "coach_delay": coach_poll_delay(table.poll),
    }
    target = htmx_target(request)
    if target == "table":
        context["oob"] = True
        name = "partials/table_response.html"
    elif target == "results":
        name = "partials/results.html"
    else:
        name = "match.html"
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def _after_post(request: Request, table: Table, match_id: str) -> Response:
    """htmx gets the table; a plain form post is redirected to it (or shown a 409)."""
    if table.message is not None:
        return render(request, table, status_code=409)
    if is_htmx(request):
        return render(request, table)
    return RedirectResponse(match_url(match_id, table.hint), status_code=303)


@router.get("/matches/{match_id}", name="match")
async def match_page(request: Request, match_id: MatchIdPath, backend: BackendDep,
                     access: OwnerDep, hint: Annotated[str | None, Query()] = None,
                     poll: Annotated[int, Query(ge=0, le=MAX_POLLS)] = 0) -> Response:
    """The table; `poll` counts the times a finished hand's table has asked for its pending
    analysis (`coach_poll_delay`)."""

    def work(session: Session) -> Table:
        return replace(_table(session, backend, match_id, access, _flag(hint)), poll=poll)

    return render(request, await backend.run(work))


@router.post("/matches/{match_id}/act", name="act", dependencies=[Depends(verify_csrf)])
async def act(request: Request, match_id: MatchIdPath, backend: BackendDep, access: OwnerDep,
              action: Annotated[str, Form(max_length=32)] = "",
              amount: Annotated[str, Form(max_length=12)] = "",
              hand: Annotated[str, Form(max_length=64)] = "",
              seq: Annotated[str, Form(max_length=12)] = "",
              hint: Annotated[str | None, Form(max_length=8)] = None) -> Response:
    """The human's move (an action label, or a move and the ``amount`` typed for it), then the
    bot's replies. ``seq`` is the version of the hand the page showed: if the hand has moved
    on since, nothing is played (409)."""
    show_hint = _flag(hint)
    expected_seq = int(seq) if seq.strip().isdigit() else None
    sized = int(amount.strip()) if amount.strip().isdigit() else None

    def work(session: Session) -> Table:
        current = services.current_hand(session, match_id, access)
        message = None
        view = None
        if not action:
            message = "Choose an action: press one of the buttons."
        elif amount.strip() and sized is None:
            message = (f"“{amount.strip()}” is not an amount: type a whole number of chips. "
                       "Nothing was played.")
        elif current is None or current[1]:
            message = "This hand is over: press “Next hand” to deal a new one."
        elif hand and hand != current[0]:
            message = ("That button belonged to an earlier hand (a second click, or a stale "
                       "page?). Here is the hand in progress.")
        else:
            try:
                view = services.act(session, backend.source, backend.bot, current[0], access,
                                    action, amount=sized, seq=expected_seq, rng=backend.rng,
                                    hint=show_hint).view
            except (StaleHandError, HandBusyError):
                message = STALE_CLICK
            except UnguardedActionError:
                message = ("This form was incomplete (no hand version), so nothing was "
                           "played. Here is the hand as it is now.")
            except HandFinishedError:
                message = "This hand is over: press “Next hand” to deal a new one."
            except IllegalAmountError as exc:
                message = exc.message[:1].upper() + exc.message[1:] + "."
            except IllegalActionError as exc:
                legal = ", ".join(exc.legal_actions)
                message = exc.message if not legal or legal in exc.message else (
                    f"{exc.message} (legal: {legal})")
        return _table(session, backend, match_id, access, show_hint, view, message)

    return _after_post(request, await backend.run(work), match_id)


@router.post("/matches/{match_id}/next", name="next_hand", dependencies=[Depends(verify_csrf)])
async def next_hand(request: Request, match_id: MatchIdPath, backend: BackendDep,
                    access: OwnerDep, hint: Annotated[str | None, Form(max_length=8)] = None
                    ) -> Response:
    """Deal the next hand (seats alternate), or the first one if dealing it had failed."""
    show_hint = _flag(hint)

    def work(session: Session) -> Table:
        try:
            view = services.start_hand(session, backend.source, backend.bot, match_id, access,
                                       backend.rng, hint=show_hint)
        except HandInProgressError:
            return _table(session, backend, match_id, access, show_hint,
                          message="Finish this hand first: it is still in progress.")
        return _table(session, backend, match_id, access, show_hint, view)

    return _after_post(request, await backend.run(work), match_id)


@router.post("/matches/{match_id}/resume", name="resume_hand",
             dependencies=[Depends(verify_csrf)])
async def resume_hand(request: Request, match_id: MatchIdPath, backend: BackendDep,
                      access: OwnerDep, hint: Annotated[str | None, Form(max_length=8)] = None
                      ) -> Response:
    """Let the bot move in a hand where it could not answer before."""
    show_hint = _flag(hint)

    def work(session: Session) -> Table:
        current = services.current_hand(session, match_id, access)
        view = None
        if current is not None:
            view = services.resume_hand(session, backend.bot, current[0], access, backend.rng,
                                        hint=show_hint)
        return _table(session, backend, match_id, access, show_hint, view)

    return _after_post(request, await backend.run(work), match_id)

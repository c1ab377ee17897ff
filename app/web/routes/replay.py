"""A finished hand, step by step, and a match's hands as a file: CSV records, or the game's
standard hand-history format."""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterator
from functools import partial
from typing import Annotated, Protocol, TypeVar

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response, StreamingResponse
from sqlalchemy.orm import Session

from app import services
from app.core.errors import NotFoundError
from app.deps import Backend, BackendDep, HandIdPath, MatchIdPath, OwnerDep
from app.schemas import GameDescription, HandReplay
from app.web.errors import PageRoute, htmx_target
from app.web.templating import templates

router = APIRouter(route_class=PageRoute)

EXPORT_PAGE = 200
"""Hands read from the database at a time while a download streams."""
CSV_COLUMNS = ("hand", "your_seat", "your_private", "bot_private", "board", "betting",
               "actions", "result", "result_without_luck", "ev_given_up")


@router.get("/matches/{match_id}/hands/{hand_id}", name="replay")
async def replay_page(request: Request, match_id: MatchIdPath, hand_id: HandIdPath,
                      backend: BackendDep, access: OwnerDep,
                      step: Annotated[int | None, Query(ge=0, le=10_000)] = None) -> Response:

    def work(session: Session) -> tuple[HandReplay, GameDescription]:
        replay = services.hand_replay(session, backend.bot, hand_id, access)
        if replay.match_id != match_id:
            raise NotFoundError(f"no hand {hand_id!r} in this match")
        return replay, services.game_description(replay.game)

    replay, game = await backend.run(work)
    backend.analysed(replay)
    first_move = next((s.seq for s in replay.steps if s.actor != "chance"), 0)
    shown = min(step if step is not None else first_move, len(replay.steps) - 1)
    context = {"replay": replay, "game": game, "step": replay.steps[shown], "shown": shown,
               "last": len(replay.steps) - 1, "match_id": match_id, "nav": "play"}
    name = "partials/replay.html" if htmx_target(request) == "replay" else "replay.html"
    return templates.TemplateResponse(request, name, context)


class _Page(Protocol):
    @property
    def next_cursor(self) -> int | None: ...


P = TypeVar("P", bound=_Page)


async def _pages(backend: Backend, fetch: Callable[..., P]
                 ) -> tuple[P, Iterator[P]]:
    """The first page of an export, read now (so that a wrong match or browser is an error
    page, not a broken stream), and an iterator over it and the pages after it, each read when
    the download reaches it."""
    first = await backend.run(partial(fetch, before=None))

    def pages() -> Iterator[P]:
        current: P | None = first
        while current is not None:
            yield current
            current = (backend.run_here(partial(fetch, before=current.next_cursor))
                       if current.next_cursor is not None else None)

    return first, pages()


@router.get("/matches/{match_id}/export.csv", name="export_csv")
async def export_csv(match_id: MatchIdPath, backend: BackendDep, access: OwnerDep) -> Response:
    """Every finished hand of the match, one row each, oldest last (as the history lists
    them), read a page at a time."""
    _, pages = await _pages(backend, lambda session, before: services.export_hands(
        session, match_id, access, limit=EXPORT_PAGE, before=before))

    def rows() -> Iterator[str]:
        buffer = io.StringIO()
        writer = csv.writer(buffer)
        writer.writerow(CSV_COLUMNS)
        for page in pages:
            for hand in page.hands:
                writer.writerow([
                    hand.number, hand.human_seat, hand.human_private, hand.bot_private,
                    " ".join(hand.board), hand.betting or "",
                    " ".join(f"{a.actor}:{a.label}" for a in hand.actions), hand.human_payoff,
                    "" if hand.adjusted_payoff is None else f"{hand.adjusted_payoff:.6f}",
                    "" if hand.ev_lost is None else f"{hand.ev_lost:.6f}"])
            yield buffer.getvalue()
            buffer.seek(0)
            buffer.truncate()

    headers = {"Content-Disposition": f'attachment; filename="match-{match_id}.csv"'}
    return StreamingResponse(rows(), media_type="text/csv; charset=utf-8", headers=headers)


@router.get("/matches/{match_id}/hand-histories", name="export_hand_histories")
async def export_hand_histories(match_id: MatchIdPath, backend: BackendDep,
                                access: OwnerDep) -> Response:
    """Every finished hand of the match in the game's standard hand-history format, newest
    first, read a page at a time; a game without one is an error page."""
    first, pages = await _pages(backend, lambda session, before: services.export_hand_histories(
        session, match_id, access, limit=EXPORT_PAGE, before=before))
    headers = {"Content-Disposition": f'attachment; filename="match-{match_id}.{first.format}"'}
    return StreamingResponse((page.text for page in pages),
                             media_type="text/plain; charset=utf-8", headers=headers)

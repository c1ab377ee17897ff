"""The strategy explorer: every information set of the stored equilibrium, a page at a time,
filtered by the private card or die and by the start of the public history (paged by the
store's database, not by copying a solve)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Query, Request
from fastapi.responses import Response

from app import services
from app.api.errors import status_of
from app.core.errors import InvalidRequestError, NoSuchSpotError, NotFoundError
from app.deps import GamePath, SourceDep
from app.schemas import InfosetEntry, TracePointOut
from app.services.bots.strategy_source import StrategySource
from app.web import charts
from app.web.errors import PageRoute, htmx_target
from app.web.format import label_parts
from app.web.templating import templates
from solver.games import get_game, get_view
from strategies import split_key

router = APIRouter(route_class=PageRoute)

PAGE_SIZE = 48
"""Information sets per page of the explorer."""


def private_options(game: str) -> list[str]:
    """The private keys a player can be dealt (``J Q K``, ``Js .. Kh``, ``1 .. 6``), read off
    the game's first deal; empty for a game without private cards."""
    state = get_game(game).initial_state()
    if not state.is_chance():
        return []
    return [state.apply_action(a).private_key(0) for a, _ in state.chance_outcomes()]


def infoset_row(game: str, entry: InfosetEntry) -> dict[str, Any]:
    private, history = split_key(entry.key)
    return {"key": entry.key, "private": label_parts(game, private) if private else [],
            "history_text": get_view(game).describe_history(history), "player": entry.player,
            "actions": entry.actions}


def missing_curve(trace: Sequence[TracePointOut]) -> str | None:
    """Why a solve's convergence trace draws no curve on log-log axes, from what the store
    holds of it; None when it draws one."""
    if charts.convergence_points([p.iteration for p in trace],
                                 [p.exploitability for p in trace]):
        return None
    if not trace:
        return ("The store holds no convergence trace for this solve, only its final "
                "strategy: there is no curve to draw.")
    if all(p.exploitability == 0 for p in trace):
        first = min(p.iteration for p in trace)
        stored = ("the one point stored" if len(trace) == 1
                  else f"all {len(trace):,} points stored")
        return (f"No curve to draw: the solver reached the equilibrium exactly at iteration "
                f"{first:,}, and its exploitability is 0 at {stored} (a logarithmic scale "
                "has no place for 0).")
    if not any(math.isfinite(p.exploitability) for p in trace):
        held = (f"one point, at iteration {trace[0].iteration:,}, and no exploitability for it"
                if len(trace) == 1 else
                f"{len(trace):,} points, up to iteration {max(p.iteration for p in trace):,}, "
                "and no exploitability for any of them")
        return (f"No curve to draw: the store's trace of this solve holds {held}: the "
                "solver did not compute the exploitability as it solved.")
    return ("No curve to draw: no point of this solve's trace has both an iteration and an "
            "exploitability above 0, which a logarithmic scale needs.")


def explorer_url(game: str, card: str, history: str, page: int) -> str:
    params = {"view": "search", **{k: v for k, v in (("card", card), ("history", history))
                                   if v}}
    if page > 1:
        params["page"] = str(page)
    query = urlencode(params)
    return f"/games/{game}/strategy" + (f"?{query}" if query else "")


@router.get("/games/{game}/strategy", name="strategy")
def strategy_page(request: Request, game: GamePath, source: SourceDep,
                  card: Annotated[str, Query(max_length=8)] = "",
                  history: Annotated[str, Query(max_length=200)] = "",
                  page: Annotated[str, Query(max_length=12)] = "1",
                  view: Annotated[str, Query(max_length=8)] = "",
                  node: Annotated[int, Query(ge=0, le=10**9)] = 0,
                  offset: Annotated[int, Query(ge=0, le=10**9)] = 0,
                  board: Annotated[str, Query(max_length=40)] = "",
                  line: Annotated[str, Query(max_length=60)] = "") -> Response:
    """The equilibrium as a tree to walk (a public node with the whole range of the player to
    move), or every information set filtered by card/die and history (the search view)."""
    card, history = card.strip(), history.strip()
    number = int(page) if page.strip().isdigit() else 1
    services.ready_solve(source, game)  # 404 or 409 saying why there is nothing to show
    detail = services.game_detail(source, game)
    searching = view == "search" or bool(card or history)
    tree = None
    spot: dict[str, Any] | None = None
    if not searching:
        try:
            tree = services.tree_node(source, game, node, offset=offset)
        except NotFoundError:
            if node != 0:
                raise
            # A solve of an abstraction has no public tree to walk: two-card hands are shown
            # by board and betting line instead, anything else by key.
            searching = get_view(game).hand_classes is None
            if not searching:
                spot = spot_context(source, game, board, line)
    if tree is not None and htmx_target(request) == "tree":
        return templates.TemplateResponse(request, "partials/tree.html",
                                          {"game": detail, "tree": tree})
    if spot is not None and htmx_target(request) == "spot":
        return templates.TemplateResponse(request, "partials/spot.html",
                                          {"game": detail, **spot},
                                          status_code=spot["spot_status"])
    options = private_options(game)
    if card and card not in options:
        raise NotFoundError(f"no {'die' if detail.pieces == 'dice' else 'card'} {card!r} in "
                            f"{detail.title}; choose one of {', '.join(options) or 'none'}")
    total = services.strategy(source, game, private=card or None, history=history,
                              limit=0).total
    pages = max(1, math.ceil(total / PAGE_SIZE))
    number = min(max(1, number), pages)
    entries = services.strategy(source, game, private=card or None, history=history,
                                offset=(number - 1) * PAGE_SIZE, limit=PAGE_SIZE).infosets
    trace = services.convergence(source, game).points
    missing = missing_curve(trace)
    pager = [
        ("« First", explorer_url(game, card, history, 1) if number > 1 else None, None),
        ("‹ Previous", explorer_url(game, card, history, number - 1) if number > 1 else None,
         "prev"),
        ("Next ›", explorer_url(game, card, history, number + 1) if number < pages else None,
         "next"),
        ("Last »", explorer_url(game, card, history, pages) if number < pages else None, None),
    ]
    context = {
        "game": detail,
        "entries": [infoset_row(game, e) for e in entries],
        "total": total,
        "first": (number - 1) * PAGE_SIZE + 1 if total else 0,
        "last": (number - 1) * PAGE_SIZE + len(entries),
        "page": number,
        "pages": pages,
        "pager": pager,
        "card": card,
        "history": history,
        "filtered": bool(card or history),
        "card_options": [(c, label_parts(game, c)) for c in options],
        "tree": tree,
        **(spot or {"spot": None, "spot_error": None}),
        "searching": searching,
        "convergence_missing": missing,
        "convergence_svg": None if missing else charts.convergence_chart(
            [p.iteration for p in trace], [p.exploitability for p in trace],
            title=f"Convergence of {detail.solve.algorithm if detail.solve else 'the solve'}"),
        "nav": "strategy",
    }
    if htmx_target(request) == "infosets":
        return templates.TemplateResponse(request, "partials/infosets.html", context)
    return templates.TemplateResponse(request, "strategy.html", context,
                                      status_code=spot["spot_status"] if spot else 200)


@router.get("/games/{game}/chart", name="chart")
def chart(request: Request, game: GamePath, source: SourceDep,
          board: Annotated[str, Query(max_length=40)] = "",
          line: Annotated[str, Query(max_length=60)] = "") -> Response:
    """One of the game's charts (`GameView.chart_spots`), the grid of hand classes at its spot,
    drawn small for the lobby's card."""
    spot = services.spot_grid(source, game, board=board, line=line)
    return templates.TemplateResponse(request, "partials/chart.html",
                                      {"game": services.game_description(game), "spot": spot})


def spot_context(source: StrategySource, game: str, board: str, line: str) -> dict[str, Any]:
    """The grid at a board and a line, or the form again with what was wrong (the error's
    status: 422 for a board or line written wrong, 404 for one that names no spot)."""
    found: dict[str, Any] = {"spot": None, "spot_error": None, "spot_status": 200,
                             "board": board, "line": line,
                             "spot_legend": get_view(game).spot_legend}
    try:
        found["spot"] = services.spot_grid(source, game, board=board, line=line)
    except (InvalidRequestError, NoSuchSpotError) as exc:
        found["spot_error"] = str(exc)
        found["spot_status"] = status_of(exc)
    return found

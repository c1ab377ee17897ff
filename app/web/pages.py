"""The HTML pages: lobby, table, results, strategy explorer (Jinja2 + htmx).

Every page works without JavaScript: actions are plain ``<form method="post">`` posts answered
with a 303 redirect to the page (POST/redirect/GET). With htmx loaded the same forms carry
``hx-post``; a request with the ``HX-Request`` header gets the partial it targets instead (the
table, plus the results panel as an out-of-band swap), and the same URLs are pushed to the
history, so a reload shows the same thing.

The pages only render: every game and play decision is made by :mod:`app.services`, whose
errors (404, 403, 409, 503) become friendly HTML here.

Every POST is protected against cross-site request forgery (:mod:`app.web.csrf`): the forms
carry the session's token as a hidden field, htmx sends it as a header. The action forms also
carry the hand's ``seq``, so a second click on a page that is out of date (a double click
without JavaScript, a second tab) is refused with the table re-rendered (409) instead of being
played as another action.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Annotated, Any
from urllib.parse import urlencode

from fastapi import APIRouter, Depends, Form, Path, Query, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app import charts, services
from app.api import errors as api_errors
from app.config import REPO_ROOT
from app.deps import ID_PATTERN, OwnerDep, RngDep, SessionDep, SourceDep
from app.models import Match
from app.schemas import GameDetail, HandView, InfosetEntry, MatchResults
from app.services import (
    HandBusyError,
    HandInProgressError,
    IllegalActionError,
    NotFoundError,
    PermissionDeniedError,
    ServiceError,
    StaleHandError,
    StrategyUnavailableError,
)
from app.web.csrf import CsrfError, csrf_token, verify_csrf
from solver.games import Game, get_game
from solver.games.dudo import BID_LABELS

# --------------------------------------------------------------------------------------------
# Display helpers (formatting only: cards, dice, numbers)
# --------------------------------------------------------------------------------------------

DICE = "⚀⚁⚂⚃⚄⚅"
SUITS = {"s": "♠", "h": "♥", "d": "♦", "c": "♣", "♠": "♠", "♥": "♥", "♦": "♦", "♣": "♣"}
SUIT_NAMES = {"♠": "spades", "♥": "hearts", "♦": "diamonds", "♣": "clubs"}
RANK_NAMES = {"J": "Jack", "Q": "Queen", "K": "King", "A": "Ace", "T": "Ten"}
HISTORY_LEGENDS = {
    "rps": "P1 moves first; P2 answers without seeing P1's move.",
    "kuhn": "History: p = check or fold, b = bet or call.",
    "leduc": "History: c = check or call, r = bet or raise, f = fold; round 1 | board | round 2.",
    "dudo": "History: the bids so far, quantity x face.",
    "dudo-calzo": "History: the bids so far, quantity x face.",
}
HISTORY_EXAMPLES = {
    "rps": "e.g. P2",
    "kuhn": "e.g. pb",
    "leduc": "e.g. rc|Qh",
    "dudo": "e.g. 1x2,1x6",
    "dudo-calzo": "e.g. 1x2,1x6",
}


def is_dice_game(game: str) -> bool:
    return game.startswith("dudo")


def has_cards(game: str) -> bool:
    return game in ("kuhn", "leduc")


def die_glyph(face: int) -> str:
    return DICE[face - 1] if 1 <= face <= 6 else str(face)


def private_token(game: str, text: str) -> dict[str, Any]:
    """How to draw a private view or key: a card (``K``, ``K♠``, ``Ks``), a die (``die 3``,
    ``3``), or a plain chip (a Rock-Paper-Scissors move)."""
    text = (text or "").strip()
    if not text:
        return {"kind": "empty", "name": ""}
    if is_dice_game(game):
        face_text = text.removeprefix("die").strip()
        if face_text.isdigit():
            face = int(face_text)
            return {"kind": "die", "face": face, "glyph": die_glyph(face), "name": f"die {face}"}
    if has_cards(game) and 1 <= len(text) <= 2 and text[0] in "23456789TJQKA":
        rank, suit = text[0], SUITS.get(text[1:], "")
        name = RANK_NAMES.get(rank, rank) + (f" of {SUIT_NAMES[suit]}" if suit else "")
        return {"kind": "card", "rank": rank, "suit": suit, "red": suit in ("♥", "♦"),
                "name": name}
    return {"kind": "text", "name": text}


def private_text(game: str, key: str) -> str:
    """Text for a card/die filter option: ``J♠``, ``⚂ 3``."""
    token = private_token(game, key)
    if token["kind"] == "die":
        return f"{token['glyph']} {token['face']}"
    if token["kind"] == "card":
        return f"{token['rank']}{token['suit']}"
    return key


def bid_parts(label: str) -> dict[str, Any] | None:
    """``"2x5"`` -> quantity 2, face 5, ``⚄``; None for anything that is not a bid."""
    quantity, sep, face = (label or "").partition("x")
    if not sep or not quantity.isdigit() or not face.isdigit():
        return None
    return {"quantity": int(quantity), "face": int(face), "glyph": die_glyph(int(face))}


def private_options(game: Game) -> list[str]:
    """The private keys a player can be dealt (``J Q K``, ``Js .. Kh``, ``1 .. 6``), read off
    the game's first deal; empty for a game without private cards."""
    state = game.initial_state()
    if not state.is_chance():
        return []
    return [state.apply_action(a).private_key(0) for a, _ in state.chance_outcomes()]


def infoset_row(game: str, entry: InfosetEntry) -> dict[str, Any]:
    private, sep, history = entry.key.partition("|")
    if not sep:
        private, history = "", entry.key
    if game == "rps":
        text = "Answering without seeing P1's move" if entry.key == "P2" else "Moving first"
    elif history:
        text = f"History: {history}"
    else:
        text = "Opening move: nothing has happened yet"
    bids = history.split(",") if is_dice_game(game) and history else []
    return {"key": entry.key, "private": private, "history": history, "history_text": text,
            "bids": bids, "player": entry.player, "actions": entry.actions}


def pct(p: float) -> str:
    """``0.3333`` -> ``33.3%``; tiny non-zero values stay visible (``<0.1%``)."""
    if p <= 0:
        return "0%"
    if p < 0.0005:
        return "<0.1%"
    if p > 0.9995 and p < 1:
        return ">99.9%"
    return f"{100 * p:.1f}%".replace(".0%", "%")


def bar_width(p: float) -> int:
    """A probability bar's width in whole percent (a CSS class ``w-N``: the pages have no inline
    styles); a non-zero probability gets at least 1% so that it stays visible."""
    if not p > 0:
        return 0
    return max(1, min(100, round(100 * p)))


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci(x: float | None) -> str:
    """Small numbers as ``3.2×10⁻⁵``; ordinary ones as they are."""
    if x is None:
        return "—"
    if x == 0:
        return "0"
    if 1e-3 <= abs(x) < 1e4:
        return f"{x:.4g}"
    mantissa, exponent = f"{x:.2e}".split("e")
    mantissa = mantissa.rstrip("0").rstrip(".")
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


def fmt_signed(x: float | None, digits: int = 3) -> str:
    """``+0.056``, ``−1``, ``0``, with a real minus sign."""
    if x is None:
        return "—"
    if abs(x) < 0.5 * 10.0**-digits:
        return "0"
    text = f"{abs(x):.{digits}f}".rstrip("0").rstrip(".")
    return ("+" if x > 0 else "−") + text


def seat_name(seat: int) -> str:
    return "first to act" if seat == 0 else "second to act"


TEMPLATES_DIR = REPO_ROOT / "templates"
PAGE_SIZE = 48
"""Information sets per page of the strategy explorer."""

templates = Jinja2Templates(directory=str(TEMPLATES_DIR))
templates.env.globals.update(
    private_token=private_token,
    bid_parts=bid_parts,
    is_dice_game=is_dice_game,
    has_cards=has_cards,
    pct=pct,
    bar_width=bar_width,
    sci=sci,
    fmt_signed=fmt_signed,
    seat_name=seat_name,
    csrf_token=csrf_token,
)

router = APIRouter(include_in_schema=False, default_response_class=HTMLResponse)

CsrfDep = Depends(verify_csrf)
"""On every POST route: 403 page unless the form or htmx sent the session's CSRF token."""

GamePath = Annotated[str, Path(pattern=ID_PATTERN)]
MatchPath = Annotated[str, Path(pattern=ID_PATTERN)]

ERROR_TITLES = {
    400: "Bad request",
    401: "Not signed in",
    403: "Not your match",
    413: "Request too large",
    422: "Bad request",
    404: "Not found",
    409: "Not possible right now",
    503: "Strategy unavailable",
}


# --------------------------------------------------------------------------------------------
# Helpers
# --------------------------------------------------------------------------------------------


def is_htmx(request: Request) -> bool:
    """True for requests made by htmx (they get partials, not whole pages)."""
    return request.headers.get("HX-Request") == "true"


def htmx_target(request: Request) -> str | None:
    return request.headers.get("HX-Target") if is_htmx(request) else None


def error_page(
    request: Request,
    status_code: int,
    message: str,
    *,
    title: str | None = None,
    back_url: str = "/",
    back_text: str = "Back to the games",
) -> HTMLResponse:
    """A friendly HTML error: a whole page, or a flash that replaces the htmx target."""
    context = {
        "status_code": status_code,
        "title": title or ERROR_TITLES.get(status_code, "Something went wrong"),
        "message": message,
        "back_url": back_url,
        "back_text": back_text,
        "target_id": htmx_target(request),
    }
    name = "partials/error_flash.html" if is_htmx(request) else "error.html"
    return templates.TemplateResponse(request, name, context, status_code=status_code)


def is_page_path(request: Request) -> bool:
    """Not the JSON API (nor its health check and schema)."""
    path = request.url.path
    return not (path.startswith("/api/") or path in ("/healthz", "/openapi.json"))


def wants_html(request: Request) -> bool:
    """A browser page request (not the JSON API, not a client asking for JSON)."""
    if not is_page_path(request):
        return False
    return is_htmx(request) or "text/html" in request.headers.get("accept", "")


NO_PAGE = "There is no page at this address. The games are listed on the front page."


async def http_error_page(request: Request, exc: Exception) -> Response:
    """Exception handler for Starlette's ``HTTPException``: friendly HTML for browsers (an
    unknown URL, a wrong method), the API's JSON errors for everybody else."""
    from starlette.exceptions import HTTPException as StarletteHTTPException

    assert isinstance(exc, StarletteHTTPException)
    if not wants_html(request) or exc.status_code < 400:
        return await api_errors.http_error(request, exc)
    messages = {
        400: "The request could not be read (a malformed form?). Reload the page and try "
             "again.",
        404: NO_PAGE,
        405: "This address does not accept that kind of request.",
    }
    message = messages.get(exc.status_code, str(api_errors.preview(str(exc.detail))))
    response = error_page(request, exc.status_code, message)
    if exc.headers:
        response.headers.update(exc.headers)
    return response


async def validation_error_page(request: Request, exc: Exception) -> Response:
    """Invalid input: the API's 422 JSON; on a page's route a friendly page: 404 for an
    address that cannot exist (a malformed id or game name), else 422 naming the field."""
    assert isinstance(exc, RequestValidationError)
    if not is_page_path(request):
        return api_errors.validation_response(exc)
    problems = api_errors.validation_errors(exc)
    if any(p["loc"][:1] == ["path"] for p in problems):
        return error_page(request, 404, NO_PAGE)
    parts = []
    for problem in problems[:3]:
        field = ".".join(str(x) for x in problem["loc"][1:]) or "the request"
        parts.append(f"{field}: {problem['msg']}")
    return error_page(request, 422, "This request was not understood (" + "; ".join(parts) +
                      "). Reload the page and try again.")


async def csrf_error_page(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, CsrfError)
    return error_page(request, 403, exc.message, title="Form expired or forged")


def install_error_pages(app: Any) -> None:
    """Friendly HTML for browsers on unknown URLs, invalid input and forged or expired forms
    (call from ``create_app``); the API keeps its JSON errors."""
    from starlette.exceptions import HTTPException as StarletteHTTPException

    app.add_exception_handler(StarletteHTTPException, http_error_page)
    app.add_exception_handler(RequestValidationError, validation_error_page)
    app.add_exception_handler(CsrfError, csrf_error_page)


class _PageError(Exception):
    """Raised inside a page handler to answer with :func:`error_page`."""

    def __init__(self, response: HTMLResponse) -> None:
        self.response = response


@contextmanager
def _service_errors(request: Request, **page: Any) -> Iterator[None]:
    """Turn the service layer's errors into friendly HTML error pages."""
    try:
        yield
    except PermissionDeniedError as exc:
        message = (f"{exc.message}. Matches are tied to the browser that started them; start "
                   "your own match from the games page.")
        raise _PageError(error_page(request, 403, message, **page)) from exc
    except StrategyUnavailableError as exc:
        message = (f"The bot cannot play this game right now: {exc.message}. Other games may "
                   "still be available.")
        raise _PageError(error_page(request, 503, message, **page)) from exc
    except ServiceError as exc:
        raise _PageError(error_page(request, exc.status_code, exc.message, **page)) from exc


def _redirect(url: str) -> RedirectResponse:
    return RedirectResponse(url, status_code=303)


def match_url(match_id: str, hint: bool = False) -> str:
    return f"/matches/{match_id}" + ("?hint=1" if hint else "")


def _flag(value: str | None) -> bool:
    return (value or "").strip().lower() in {"1", "true", "on", "yes"}


def _owned_match(session: SessionDep, match_id: str, owner: str) -> Match:
    match = services.get_match(session, match_id)
    services.check_owner(match, owner)
    return match


# --------------------------------------------------------------------------------------------
# Lobby
# --------------------------------------------------------------------------------------------


@router.get("/", name="lobby")
def lobby(request: Request, source: SourceDep) -> Response:
    games = services.list_games(source)
    status = source.status()
    rows = []
    for g in games:
        reason = None
        if not g.available:
            reason = (f"No solved strategy is stored for this game yet ({status.error})."
                      if status.error else
                      "No solved strategy is stored for this game yet: run "
                      f"`python -m solver solve {g.name}` (or `python -m solver build`).")
        rows.append({**g.model_dump(), "solve": g.solve, "reason": reason})
    return templates.TemplateResponse(
        request, "lobby.html", {"games": rows, "store_error": status.error, "nav": "lobby"}
    )


# --------------------------------------------------------------------------------------------
# Starting a match
# --------------------------------------------------------------------------------------------


@router.get("/play/{game}", name="play")
def play_page(request: Request, game: GamePath, source: SourceDep, session: SessionDep,
              owner: OwnerDep) -> Response:
    """The game's start page: rules, the value, your matches of this game, a start button."""
    try:
        with _service_errors(request):
            detail = services.game_detail(source, game)
            if not detail.available:
                source.solve(game)  # raises the 503 naming the reason
            mine = [m for m in services.list_matches(session, owner) if m.game == game]
    except _PageError as exc:
        return exc.response
    return templates.TemplateResponse(
        request, "play.html", {"game": detail, "matches": mine[:10], "nav": "lobby"}
    )


@router.post("/play/{game}", name="start_match", dependencies=[CsrfDep])
def start_match(request: Request, game: GamePath, source: SourceDep, session: SessionDep,
                owner: OwnerDep, rng: RngDep) -> Response:
    """Create a match owned by this browser, deal its first hand, go to its table."""
    try:
        with _service_errors(request):
            match, _token = services.create_match(session, source, game, owner)
            services.start_hand(session, source, match, rng)
    except _PageError as exc:
        return exc.response
    return _redirect(match_url(match.public_id))


# --------------------------------------------------------------------------------------------
# The table
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TableContext:
    hand: HandView
    results: MatchResults
    hint: bool
    message: str | None = None


def _table_context(session: SessionDep, source: SourceDep, match: Match, hint: bool,
                   rng: Any, view: HandView | None = None,
                   message: str | None = None) -> TableContext:
    if view is None:
        hand = services.current_hand(session, match)
        if hand is None:
            if match.hands:
                hand = match.hands[-1]
            else:  # a match whose first deal failed (e.g. the store was missing): deal now
                view = services.start_hand(session, source, match, rng, hint=hint)
        if view is None:
            assert hand is not None
            view = services.hand_view(session, source, hand, hint=hint, rng=rng)
    results = services.match_results(session, source, match)
    return TableContext(view, results, hint, message)


def _render_match(request: Request, ctx: TableContext, status_code: int = 200) -> Response:
    game = get_game(ctx.hand.game)
    context = {
        "game": game,
        "hand": ctx.hand,
        "results": ctx.results,
        "panel": results_panel(ctx.results),
        "hint": ctx.hint,
        "message": ctx.message,
        "bid_labels": BID_LABELS,
        "match_id": ctx.hand.match_id,
        "nav": "play",
    }
    target = htmx_target(request)
    if target == "table":
        context["oob"] = True
        return templates.TemplateResponse(request, "partials/table_response.html", context,
                                          status_code=status_code)
    if target == "results":
        return templates.TemplateResponse(request, "partials/results.html", context,
                                          status_code=status_code)
    return templates.TemplateResponse(request, "match.html", context, status_code=status_code)


@router.get("/matches/{match_id}", name="match")
def match_page(request: Request, match_id: MatchPath, session: SessionDep, source: SourceDep,
               owner: OwnerDep, rng: RngDep, hint: Annotated[str | None, Query()] = None
               ) -> Response:
    try:
        with _service_errors(request):
            match = _owned_match(session, match_id, owner)
            ctx = _table_context(session, source, match, _flag(hint), rng)
    except _PageError as exc:
        return exc.response
    return _render_match(request, ctx)


@router.post("/matches/{match_id}/act", name="act", dependencies=[CsrfDep])
def act(request: Request, match_id: MatchPath, session: SessionDep, source: SourceDep,
        owner: OwnerDep, rng: RngDep,
        action: Annotated[str, Form(max_length=32)] = "",
        hand: Annotated[str, Form(max_length=64)] = "",
        seq: Annotated[str, Form(max_length=12)] = "",
        hint: Annotated[str | None, Form(max_length=8)] = None) -> Response:
    """The human's move (an action label), then the bot's replies. ``seq`` is the version of
    the hand the page showed: if the hand has moved on since, nothing is played (409)."""
    show_hint = _flag(hint)
    expected_seq = int(seq) if seq.strip().isdigit() else None
    try:
        with _service_errors(request, back_url=match_url(match_id, show_hint),
                             back_text="Back to the table"):
            match = _owned_match(session, match_id, owner)
            current = services.current_hand(session, match)
            message = None
            view = None
            if not action:
                message = "Choose an action: press one of the buttons."
            elif current is None:
                message = "This hand is over: press “Next hand” to deal a new one."
            elif hand and hand != current.public_id:
                message = ("That button belonged to an earlier hand (a second click, or a "
                           "stale page?). Here is the hand in progress.")
            else:
                try:
                    view = services.act(session, source, current, action, rng, hint=show_hint,
                                        expected_seq=expected_seq)
                except (StaleHandError, HandBusyError):
                    message = ("That click was for an earlier view of this hand (a double "
                               "click, or another tab?), so it was not played. Here is the "
                               "hand as it is now.")
                except IllegalActionError as exc:
                    legal = ", ".join(exc.legal_actions)
                    message = f"{exc.message}" if not legal or legal in exc.message else (
                        f"{exc.message} (legal: {legal})")
            if message is not None:
                ctx = _table_context(session, source, match, show_hint, rng, message=message)
                return _render_match(request, ctx, status_code=409)
            ctx = _table_context(session, source, match, show_hint, rng, view=view)
    except _PageError as exc:
        return exc.response
    if is_htmx(request):
        return _render_match(request, ctx)
    return _redirect(match_url(match_id, show_hint))


@router.post("/matches/{match_id}/next", name="next_hand", dependencies=[CsrfDep])
def next_hand(request: Request, match_id: MatchPath, session: SessionDep, source: SourceDep,
              owner: OwnerDep, rng: RngDep,
              hint: Annotated[str | None, Form(max_length=8)] = None
              ) -> Response:
    """Deal the next hand (seats alternate)."""
    show_hint = _flag(hint)
    try:
        with _service_errors(request, back_url=match_url(match_id, show_hint),
                             back_text="Back to the table"):
            match = _owned_match(session, match_id, owner)
            try:
                view = services.start_hand(session, source, match, rng, hint=show_hint)
            except HandInProgressError:
                ctx = _table_context(
                    session, source, match, show_hint, rng,
                    message="Finish this hand first: it is still in progress.")
                return _render_match(request, ctx, status_code=409)
            ctx = _table_context(session, source, match, show_hint, rng, view=view)
    except _PageError as exc:
        return exc.response
    if is_htmx(request):
        return _render_match(request, ctx)
    return _redirect(match_url(match_id, show_hint))


# --------------------------------------------------------------------------------------------
# Results panel
# --------------------------------------------------------------------------------------------


def results_panel(results: MatchResults) -> dict[str, Any]:
    """What the results panel shows, derived from the service's numbers (no game logic)."""
    n = results.hands_played
    series = results.series
    cumulative = [p.cumulative for p in series]
    expected: list[float] | None = None
    if series and all(p.expected_cumulative is not None for p in series):
        expected = [float(p.expected_cumulative or 0.0) for p in series]
    band = None
    if expected is not None and results.std is not None:
        # Where a player with this spread who plays like the equilibrium lands 95% of the time.
        band = [(e - 1.96 * results.std * math.sqrt(i + 1), e + 1.96 * results.std *
                 math.sqrt(i + 1)) for i, e in enumerate(expected)]
    svg = charts.results_chart(cumulative, expected, band,
                               title="Your cumulative winnings")
    expected_mean = (results.expected_total / n
                     if results.expected_total is not None and n else None)
    verdict = None
    if n >= 2 and results.ci95_low is not None and results.ci95_high is not None:
        if expected_mean is None:
            verdict = None
        elif results.ci95_low <= expected_mean <= results.ci95_high:
            verdict = ("So far your results are consistent with equilibrium play: the expected "
                       f"{fmt_signed(expected_mean, 3)} per hand lies inside your 95% "
                       "interval.")
        elif results.ci95_low > expected_mean:
            verdict = ("You are doing better than the equilibrium expectation, by more than "
                       "luck alone would usually explain (95% interval above it).")
        else:
            verdict = ("You are doing worse than the equilibrium expectation, by more than "
                       "luck alone would usually explain (95% interval below it).")
    elif n:
        verdict = "Play a few more hands for a confidence interval."
    return {"svg": svg, "expected_mean": expected_mean, "verdict": verdict}


# --------------------------------------------------------------------------------------------
# Strategy explorer
# --------------------------------------------------------------------------------------------


def _explorer_page(source: SourceDep, game: str, card: str, history: str, page: int,
                   options: list[str]) -> tuple[int, list[InfosetEntry], int, int]:
    """One page of the information sets whose private part is `card` (any if empty) and whose
    public history starts with `history`, grouped by card. Counts each group through the
    service first, then fetches only the slices the page needs."""
    groups = ([card] if card else options) if options else None
    prefixes = [f"{c}|{history}" for c in groups] if groups is not None else [history]
    totals = [services.strategy(source, game, prefix=p, limit=0).total for p in prefixes]
    total = sum(totals)
    pages = max(1, math.ceil(total / PAGE_SIZE))
    page = min(max(1, page), pages)
    skip, need = (page - 1) * PAGE_SIZE, PAGE_SIZE
    entries: list[InfosetEntry] = []
    for prefix, count in zip(prefixes, totals, strict=True):
        if need <= 0:
            break
        if skip >= count:
            skip -= count
            continue
        chunk = services.strategy(source, game, prefix=prefix, offset=skip, limit=need)
        entries.extend(chunk.infosets)
        need -= len(chunk.infosets)
        skip = 0
    return total, entries, page, pages


def _explorer_url(game: str, card: str, history: str, page: int) -> str:
    params = {k: v for k, v in (("card", card), ("history", history)) if v}
    if page > 1:
        params["page"] = str(page)
    query = urlencode(params)
    return f"/games/{game}/strategy" + (f"?{query}" if query else "")


@router.get("/games/{game}/strategy", name="strategy")
def strategy_page(request: Request, game: GamePath, source: SourceDep,
                  card: Annotated[str, Query(max_length=8)] = "",
                  history: Annotated[str, Query(max_length=200)] = "",
                  page: Annotated[str, Query(max_length=12)] = "1") -> Response:
    """Every information set with its probabilities; filters by card/die and history."""
    card, history = card.strip(), history.strip()
    try:
        number = int(page)
    except ValueError:
        number = 1
    try:
        with _service_errors(request):
            detail: GameDetail = services.game_detail(source, game)
            if not detail.available:
                source.solve(game)  # 503 with the reason
            options = private_options(get_game(game))
            if card and card not in options:
                raise NotFoundError(
                    f"no {'die' if is_dice_game(game) else 'card'} {card!r} in "
                    f"{detail.title}; choose one of {', '.join(options) or 'none'}")
            total, entries, number, pages = _explorer_page(source, game, card, history, number,
                                                           options)
            trace = services.convergence(source, game).points
    except _PageError as exc:
        return exc.response
    pager = [
        ("« First", _explorer_url(game, card, history, 1) if number > 1 else None, None),
        ("‹ Previous", _explorer_url(game, card, history, number - 1) if number > 1 else None,
         "prev"),
        ("Next ›", _explorer_url(game, card, history, number + 1) if number < pages else None,
         "next"),
        ("Last »", _explorer_url(game, card, history, pages) if number < pages else None, None),
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
        "card_options": [(c, private_text(game, c)) for c in options],
        "legend": HISTORY_LEGENDS.get(game, ""),
        "history_example": HISTORY_EXAMPLES.get(game, ""),
        "convergence_svg": charts.convergence_chart(
            [p.iteration for p in trace], [p.exploitability for p in trace],
            title=f"Convergence of {detail.solve.algorithm if detail.solve else 'the solve'}"),
        "nav": "strategy",
    }
    if htmx_target(request) == "infosets":
        return templates.TemplateResponse(request, "partials/infosets.html", context)
    return templates.TemplateResponse(request, "strategy.html", context)



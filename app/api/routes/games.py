"""The games, their solved strategies and convergence traces."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import Response, StreamingResponse

from app import services
from app.api.errors import NOT_FOUND, NOT_READY, UNAVAILABLE
from app.api.params import Digits
from app.deps import GamePath, SourceDep
from app.schemas import (
    Convergence,
    ErrorOut,
    GameDetail,
    GameSummary,
    NodeView,
    SpotGrid,
    StrategyPage,
)
from app.services.play.catalog import RANGE_PAGE
from app.services.play.explorer import BOARD_MAX, LINE_MAX
from solver.games.game_view import SPOT_BOARD_PATTERN, SPOT_LINE_PATTERN

router = APIRouter(prefix="/games", tags=["games"])

MAX_KEY = 200
"""Longest information-set key (or part of one) a filter may name."""
MAX_OFFSET = 1_000_000_000


@router.get("", response_model=list[GameSummary])
def list_games(source: SourceDep) -> list[GameSummary]:
    """Every game with its rules, value and solve (``available``: the bot can play it)."""
    return services.list_games(source)


@router.get("/{game}", response_model=GameDetail, responses=NOT_FOUND)
def game_detail(game: GamePath, source: SourceDep) -> GameDetail:
    return services.game_detail(source, game)


@router.get("/{game}/strategy", response_model=StrategyPage,
            responses=NOT_FOUND | NOT_READY | UNAVAILABLE)
async def strategy(
    game: GamePath,
    source: SourceDep,
    infoset: Annotated[str | None, Query(max_length=MAX_KEY,
                                         description="One information set by key.")] = None,
    prefix: Annotated[str | None, Query(max_length=MAX_KEY,
                                        description="Keys starting with this.")] = None,
    contains: Annotated[str | None, Query(max_length=MAX_KEY,
                                          description="Keys containing this.")] = None,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET), Digits] = 0,
    limit: Annotated[int | None, Query(ge=1, le=100_000), Digits] = None,
) -> Response:
    """The stored equilibrium strategy: all information sets, a filtered page, or one."""
    pieces = await run_in_threadpool(lambda: services.strategy_json(
        source, game, infoset=infoset, prefix=prefix, contains=contains, offset=offset,
        limit=limit))
    return StreamingResponse(pieces, media_type="application/json")  # read in the pool


@router.get("/{game}/tree", response_model=NodeView,
            responses=NOT_FOUND | NOT_READY | UNAVAILABLE)
def tree(
    game: GamePath,
    source: SourceDep,
    node: Annotated[int, Query(ge=0, le=MAX_OFFSET, description="A node's idx (root 0)."),
                    Digits] = 0,
    offset: Annotated[int, Query(ge=0, le=MAX_OFFSET), Digits] = 0,
    limit: Annotated[int, Query(ge=1, le=RANGE_PAGE), Digits] = RANGE_PAGE,
) -> NodeView:
    """The equilibrium's public tree, a node at a time: the path to it, its children (follow
    their ``idx``), and the range of the player to move with each private state's action
    probabilities, values and reach."""
    return services.tree_node(source, game, node, offset=offset, limit=limit)


@router.get("/{game}/grid", response_model=SpotGrid,
            responses=NOT_READY | UNAVAILABLE | {404: {
                "model": ErrorOut,
                "description": "A game without a grid, or a board and betting line that name "
                               "no spot of its betting (a card the deck has not got or given "
                               "twice, more or fewer board cards than the line reaches, an "
                               "illegal bet, a line that ends the hand): the message says "
                               "what is legal."}})
def grid(
    game: GamePath,
    source: SourceDep,
    board: Annotated[str, Query(max_length=BOARD_MAX, pattern=SPOT_BOARD_PATTERN,
                                description="The board's cards, rank then suit, e.g. "
                                "``As Kd 7c`` (none before the flop).")] = "",
    line: Annotated[str, Query(max_length=LINE_MAX, pattern=SPOT_LINE_PATTERN,
                               description="The betting so far: c check or call, r bet or "
                               "raise, f fold, rounds optionally split by | (``rc|cr``).")
                    ] = "",
) -> SpotGrid:
    """The grid of hand classes of the player to act at the spot a board and a betting line
    reach, for a game of two-card hands whose solve has no public tree: the stored strategy,
    and what a bot that re-solves at play time computes there."""
    return services.spot_grid(source, game, board=board, line=line)


@router.get("/{game}/convergence", response_model=Convergence,
            responses=NOT_FOUND | NOT_READY | UNAVAILABLE)
def convergence(game: GamePath, source: SourceDep) -> Convergence:
    """Exploitability and value by iteration of the stored solve."""
    return services.convergence(source, game)

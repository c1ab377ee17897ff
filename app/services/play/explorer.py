"""The explorer's grid at a spot named by a board and a betting line, for a solve that has no
public tree to walk (an abstraction's): every hand class of the player to act, with the stored
strategy's probabilities and, for a bot that computes its strategy at play time (a re-solve),
what it computes there through the very call the bot plays with.

The game deals the positions (`GameView.class_spots`); this module only asks the store and the
bot, so it names no game."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Sequence

from app.core.errors import (
    InvalidRequestError,
    NoSuchSpotError,
    NotFoundError,
    StrategyUnavailableError,
)
from app.schemas import ActionProbability, GridCell, RangeGrid, SpotGrid, SpotMove
from app.services.bots.bot import StoredStrategyBot
from app.services.bots.strategy_source import BUILD_HINT, StrategySource
from app.services.play.catalog import ready_solve
from solver.abstractions import abstraction_for
from solver.abstractions.play_time import ComputedAtPlayTime
from solver.games import ClassSpots, GameView, State, get_game, get_view, legal_labels
from solver.games.game_view import SPOT_BOARD_PATTERN, SPOT_LINE_PATTERN

log = logging.getLogger("app.explorer")

BOARD_MAX, LINE_MAX = 40, 60
"""The longest board and betting line read (a river board and the longest legal line fit)."""
_BOARD = re.compile(SPOT_BOARD_PATTERN)
_LINE = re.compile(SPOT_LINE_PATTERN)


def spot_grid(source: StrategySource, name: str, *, board: str = "", line: str = ""
              ) -> SpotGrid:
    """The grid at the spot `board` and `line` reach: `NotFoundError` for a game without a grid
    of hand classes; `InvalidRequestError` for a board or line not written as
    `SPOT_BOARD_PATTERN` and `SPOT_LINE_PATTERN` say (the API's schema says the same);
    `NoSuchSpotError`, naming what is legal, for one written so that names no spot of the
    game's betting."""
    info = ready_solve(source, name)
    game, view = get_game(name), get_view(name)
    if view.hand_classes is None:
        raise NotFoundError(f"{game.title} has no grid of hand classes to explore")
    if len(board) > BOARD_MAX or not _BOARD.fullmatch(board):
        raise InvalidRequestError(f"a board is at most {BOARD_MAX} characters of cards written "
                                  "rank then suit (like As Kd 7c), apart or together")
    if len(line) > LINE_MAX or not _LINE.fullmatch(line):
        raise InvalidRequestError(f"a betting line is at most {LINE_MAX} characters: c (check "
                                  "or call), r (bet or raise) and f (fold), rounds optionally "
                                  "separated by |")
    try:
        spots = view.class_spots(board, line)
    except ValueError as exc:
        raise NoSuchSpotError(str(exc)) from None
    try:
        abstraction = abstraction_for(game, info.abstraction)
    except ValueError as exc:
        raise StrategyUnavailableError(f"the stored solve of {name!r} cannot be read: "
                                       f"{exc}") from None
    player = spots.player

    def stored(state: State) -> Sequence[float]:
        key = abstraction.strategy_key(state, player)
        row = source.infoset(name, key)
        if row is None:
            log.error("the stored %s strategy has no information set %r", name, key)
            raise StrategyUnavailableError(f"the stored strategy for {name!r} does not cover "
                                           f"this spot: {BUILD_HINT} again")
        by_label = dict(zip(row.labels, row.probabilities, strict=True))
        return [by_label.get(label, 0.0) for label in legal_labels(state)]

    labels = tuple(label for _, label in spots.moves)
    blueprint = _grid(view, spots, labels, [[stored(s) for s in cell.states]
                                            for cell in spots.cells])
    computed, note = None, None
    if isinstance(abstraction, ComputedAtPlayTime):
        states = [s for cell in spots.cells for s in cell.states]
        start = time.process_time()
        flat = StoredStrategyBot(source).computed_policies(game, states, abstraction)
        seconds = time.process_time() - start
        log.info("the %s grid at %r: computed in %.2f s of CPU", name, spots.public, seconds)
        at = 0
        nested: list[list[Sequence[float]]] = []
        for cell in spots.cells:
            nested.append(list(flat[at:at + len(cell.states)]))
            at += len(cell.states)
        computed = _grid(view, spots, labels, nested)
        if computed == blueprint:
            computed = None
            note = ("The bot computes its strategy at play time from a later round on; here "
                    "it plays the stored strategy shown.")
    return SpotGrid(
        game=name, board=spots.board, line=spots.line, public=spots.public,
        description=view.describe_history(spots.public), player=player,
        moves=[SpotMove(letter=letter, label=label, board=spots.board, line=spots.line + letter)
               for letter, label in spots.moves],
        back=(SpotMove(letter="", label="back", board=spots.back[0], line=spots.back[1])
              if spots.back is not None else None),
        blueprint=blueprint, computed=computed, computed_note=note)


def _grid(view: GameView, spots: ClassSpots, labels: tuple[str, ...],
          policies: list[list[Sequence[float]]]) -> RangeGrid:
    """Each cell the plain mean of its hands' probabilities (`policies`, a list per cell):
    every hand the board leaves is equally likely to be dealt, the betting's reach is not
    weighed in."""
    classes = view.hand_classes
    assert classes is not None
    rows: list[list[GridCell]] = [[] for _ in classes.ranks]
    for cell, hands in zip(spots.cells, policies, strict=True):
        mix = [sum(p[a] for p in hands) / len(hands) if hands else 0.0
               for a in range(len(labels))]
        rows[cell.row].append(GridCell(
            label=cell.label, hands=len(hands), share=None,
            actions=[ActionProbability(label=label, probability=p)
                     for label, p in zip(labels, mix, strict=True)]))
    return RangeGrid(ranks=classes.ranks, cells=rows)

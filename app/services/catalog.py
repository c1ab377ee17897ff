"""The games, their solved strategies and convergence traces (read-only)."""

from __future__ import annotations

from app.schemas import (
    ActionProbability,
    Convergence,
    GameDetail,
    GameSummary,
    InfosetEntry,
    SolveSummary,
    StrategyPage,
    TracePointOut,
)
from app.services.errors import NotFoundError, StrategyUnavailableError
from app.services.strategy_source import StrategySource
from solver.games import GAME_NAMES, Game, get_game
from strategies import InfosetStrategy, SolveInfo


def game_or_404(name: str) -> Game:
    """The game called `name`; `NotFoundError` naming the valid games otherwise."""
    if name not in GAME_NAMES:
        raise NotFoundError(f"unknown game {name!r}; valid games: {', '.join(GAME_NAMES)}")
    return get_game(name)


def _solve_summary(info: SolveInfo) -> SolveSummary:
    return SolveSummary(
        solve_id=info.id,
        algorithm=info.algorithm,
        iterations=info.iterations,
        seconds=info.seconds,
        exploitability=info.exploitability,
        value=info.value,
        created=info.created,
    )


def _summary_fields(game: Game, info: SolveInfo | None) -> dict[str, object]:
    return {
        "name": game.name,
        "title": game.title,
        "rules": game.rules.splitlines(),
        "value": info.value if info is not None else None,
        "reference_value": game.reference_value,
        "solve": _solve_summary(info) if info is not None else None,
        "available": info is not None,
    }


def list_games(source: StrategySource) -> list[GameSummary]:
    """Every game, solved or not (``available`` says whether the bot can play it)."""
    out = []
    for name in GAME_NAMES:
        try:
            info = source.latest_solve(name)
        except StrategyUnavailableError:
            info = None
        out.append(GameSummary.model_validate(_summary_fields(get_game(name), info)))
    return out


def game_detail(source: StrategySource, name: str) -> GameDetail:
    """One game; 404 if unknown. Without a stored solve the solve fields are null (no 503)."""
    game = game_or_404(name)
    try:
        info = source.latest_solve(name)
        infosets = len(source.strategy(name)) if info is not None else 0
    except StrategyUnavailableError:
        info, infosets = None, 0
    return GameDetail.model_validate(
        {
            **_summary_fields(game, info),
            "infosets": infosets,
            "solver_version": info.solver_version if info is not None else None,
        }
    )


def _entry(row: InfosetStrategy) -> InfosetEntry:
    return InfosetEntry(
        key=row.key,
        player=row.player,
        actions=[
            ActionProbability(label=label, probability=p)
            for label, p in zip(row.labels, row.probabilities, strict=True)
        ],
    )


def strategy(
    source: StrategySource,
    name: str,
    *,
    infoset: str | None = None,
    prefix: str | None = None,
    contains: str | None = None,
    offset: int = 0,
    limit: int | None = None,
) -> StrategyPage:
    """The stored strategy of a game: one information set (`infoset`, 404 if unknown) or those
    whose key starts with `prefix` and contains `contains`, in the solver's order, paged by
    `offset`/`limit`. 503 if the game has no solve."""
    game_or_404(name)
    info = source.solve(name)
    if infoset is not None:
        row = source.infoset(name, infoset)
        if row is None:
            raise NotFoundError(
                f"no information set {infoset!r} in the {name} strategy; keys look like "
                f"{_example_keys(source, name)}"
            )
        return StrategyPage(game=name, solve_id=info.id, total=1, offset=0, infosets=[_entry(row)])
    rows = [
        row
        for key, row in source.strategy(name).items()
        if (not prefix or key.startswith(prefix)) and (not contains or contains in key)
    ]
    offset = max(0, offset)
    page = rows[offset:] if limit is None else rows[offset : offset + max(0, limit)]
    return StrategyPage(
        game=name,
        solve_id=info.id,
        total=len(rows),
        offset=offset,
        infosets=[_entry(row) for row in page],
    )


def _example_keys(source: StrategySource, name: str) -> str:
    keys = list(source.strategy(name))[:3]
    return ", ".join(repr(k) for k in keys) or "(none stored)"


def convergence(source: StrategySource, name: str) -> Convergence:
    """The convergence trace (exploitability and value by iteration) of the latest solve."""
    game_or_404(name)
    info = source.solve(name)
    return Convergence(
        game=name,
        solve_id=info.id,
        algorithm=info.algorithm,
        points=[
            TracePointOut(
                iteration=p.iteration,
                seconds=p.seconds,
                exploitability=p.exploitability,
                value=p.value,
            )
            for p in source.trace(info.id)
        ],
    )

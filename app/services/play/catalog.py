"""The games, their solved strategies and convergence traces (read-only)."""

from __future__ import annotations

import itertools
import math
import shlex
from collections.abc import Iterator
from typing import cast

from pydantic import TypeAdapter

from app.core.errors import NotFoundError, StrategyUnavailableError
from app.schemas import (
    ActionProbability,
    BuildProgress,
    Convergence,
    GameDescription,
    GameDetail,
    GameSummary,
    GridCell,
    InfosetEntry,
    NodeKind,
    NodeView,
    RangeGrid,
    RangeRow,
    SolveSummary,
    StrategyPage,
    TracePointOut,
    TreeNode,
)
from app.services.bots.strategy_source import StrategySource
from app.services.bots.strength import bot_nature
from app.services.play.opponents import game_opponents
from solver.algorithms.names import describe_algorithm
from solver.games import Game, GameView, game_names, get_game, get_view
from solver.games.view_values import HandClasses
from strategies import InfosetStrategy, PublicNode, SolveInfo, split_key


def known_game(name: str) -> Game:
    """The game called `name`; `NotFoundError` naming the lobby's games otherwise."""
    if name not in game_names():
        listed = [g for g in game_names() if get_game(g).listed]
        raise NotFoundError(f"unknown game {name!r}; the games: {', '.join(listed)}")
    return get_game(name)


def known_view(name: str) -> GameView:
    """How the game called `name` is shown; `NotFoundError` as `known_game` says."""
    known_game(name)
    return get_view(name)


def lobby_games(source: StrategySource) -> list[str]:
    """The games the lobby offers: those it lists, and the variants whose solve is stored."""
    try:
        solved = set(source.store().games())
    except StrategyUnavailableError:
        solved = set()
    return [g for g in game_names() if get_game(g).listed or g in solved]


def offered_game(source: StrategySource, name: str) -> Game:
    """The game called `name` if the lobby offers it; else `NotFoundError` naming the lobby's
    games (a variant the registry knows but nobody built is not offered: its strategy, tree
    and matches are not found, like those of a game that does not exist)."""
    offered = lobby_games(source)
    if name not in offered:
        what = (f"{get_game(name).title} ({name!r}) is not offered here" if name in game_names()
                else f"unknown game {name!r}")
        raise NotFoundError(f"{what}; the games: {', '.join(offered)}")
    return get_game(name)


def ready_solve(source: StrategySource, name: str) -> SolveInfo:
    """The latest solve of a game the lobby offers: `NotFoundError` for a game it does not offer,
    `GameNotReadyError` (with its build's progress) for one not built yet."""
    offered_game(source, name)
    return source.solve(name)


def game_value(source: StrategySource, game: str) -> tuple[float | None, float | None]:
    """Seat 0's value from the stored solve (the published value if the store is unavailable),
    and the half-width of its 95% interval where it is only an estimate."""
    try:
        info = source.latest_solve(game)
    except StrategyUnavailableError:
        info = None
    if info is None:
        return get_game(game).reference_value, None
    return info.value, info.value_ci95


def _solve_summary(info: SolveInfo) -> SolveSummary:
    return SolveSummary(
        solve_id=info.id,
        algorithm=info.algorithm,
        algorithm_words=describe_algorithm(info.algorithm),
        iterations=info.iterations,
        seconds=info.seconds,
        exploitability=info.exploitability if math.isfinite(info.exploitability) else None,
        value=info.value,
        value_ci95=info.value_ci95,
        abstraction=info.abstraction or None,
        created=info.created,
    )


def _description_fields(game: Game) -> dict[str, object]:
    view = get_view(game.name)
    return {
        "name": game.name,
        "title": game.title,
        "rules": view.rules.splitlines(),
        "reference_value": game.reference_value,
        "pieces": view.pieces,
        "simultaneous": game.simultaneous,
        "seats": [{"name": seat.name, "short": seat.short, "order": seat.order,
                   "role": seat.role or None} for seat in view.seats],
        "notes": list(view.notes),
        "openspiel": game.openspiel.game_string if game.openspiel is not None else None,
        "listed": game.listed,
        "build_command": shlex.join(("python", "-m", "solver", *game.build.command)),
        "hand_history_format": view.hand_history_format,
        "result_unit": view.result_unit.name if view.result_unit is not None else None,
        "charts": [{"title": title, "board": board, "line": line}
                   for title, board, line in view.chart_spots],
    }


def game_description(name: str) -> GameDescription:
    """What the game is and how it is shown (no store access); `NotFoundError` if unknown."""
    return GameDescription.model_validate(_description_fields(known_game(name)))


def _summary_fields(game: Game, info: SolveInfo | None) -> dict[str, object]:
    return {
        **_description_fields(game),
        "value": info.value if info is not None else None,
        "value_ci95": info.value_ci95 if info is not None else None,
        "solve": _solve_summary(info) if info is not None else None,
        "bot": bot_nature(info) if info is not None else None,
        "available": info is not None,
    }


def list_games(source: StrategySource) -> list[GameSummary]:
    """Every game, solved or not (``available`` says whether the bot can play it, ``building``
    how far a background build of it has come)."""
    out = []
    building = source.building()
    for name in game_names():
        try:
            info = source.latest_solve(name)
        except StrategyUnavailableError:
            info = None
        report = building.get(name)
        out.append(GameSummary.model_validate({
            **_summary_fields(get_game(name), info),
            "building": BuildProgress.model_validate(report) if report else None,
            "opponents": game_opponents(source, name) if info is not None else []}))
    return out


def game_detail(source: StrategySource, name: str) -> GameDetail:
    """One game; `NotFoundError` if unknown. Without a stored solve the solve fields are null
    (no `StrategyUnavailableError`)."""
    game = known_game(name)
    try:
        info = source.latest_solve(name)
        infosets = source.infoset_page(name, limit=0)[0] if info is not None else 0
    except StrategyUnavailableError:
        info, infosets = None, 0
    return GameDetail.model_validate(
        {
            **_summary_fields(game, info),
            "infosets": infosets,
            "solver_version": info.solver_version if info is not None else None,
            "history_legend": get_view(name).history_legend,
            "history_example": get_view(name).history_example,
            "opponents": game_opponents(source, name) if info is not None else [],
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
    private: str | None = None,
    history: str = "",
    offset: int = 0,
    limit: int | None = None,
) -> StrategyPage:
    """The stored strategy of a game: one information set (`infoset`, `NotFoundError` if
    unknown) or those whose key starts with `prefix` and contains `contains`, whose private
    part is `private` and whose public history starts with `history`, in the solver's order,
    paged by `offset`/`limit` in the store. `NotFoundError` for a game the lobby does not offer,
    `GameNotReadyError` while it is not built."""
    info = ready_solve(source, name)
    if infoset is not None:
        row = source.infoset(name, infoset)
        if row is None:
            raise NotFoundError(
                f"no information set {infoset!r} in the {name} strategy; keys look like "
                f"{_example_keys(source, name)}"
            )
        return StrategyPage(game=name, solve_id=info.id, total=1, offset=0, infosets=[_entry(row)])
    offset = max(0, offset)
    total, page = source.infoset_page(name, prefix=prefix or "", contains=contains or "",
                                      private=private, public_prefix=history, offset=offset,
                                      limit=limit)
    return StrategyPage(
        game=name,
        solve_id=info.id,
        total=total,
        offset=offset,
        infosets=[_entry(row) for row in page],
    )


STREAM_BATCH = 2_000
"""Information sets read and encoded at a time by `strategy_json`."""


def strategy_json(source: StrategySource, name: str, *, infoset: str | None = None,
                  prefix: str | None = None, contains: str | None = None, offset: int = 0,
                  limit: int | None = None, batch: int = STREAM_BATCH) -> Iterator[bytes]:
    """`strategy`'s page as JSON, in pieces of `batch` information sets, each read from the
    store and encoded on its own: the whole strategy of a big game (millions of sets, a
    response of hundreds of megabytes) is never held in memory, nor encoded in one call, which
    held the GIL, and with it every other request of the worker, for seconds. The first piece
    is worked out when the iterator is made, so that its refusal (an unknown game,
    one not built) is raised then."""
    whole = infoset is not None
    head = strategy(source, name, infoset=infoset, prefix=prefix, contains=contains,
                    offset=offset, limit=None if whole else 0)
    return _pieces(source, name, head, whole, prefix, contains, limit, batch)


def _pieces(source: StrategySource, name: str, head: StrategyPage, whole: bool,
            prefix: str | None, contains: str | None, limit: int | None, batch: int
            ) -> Iterator[bytes]:
    if whole:
        yield head.model_dump_json().encode()
        return
    opening = head.model_dump_json()
    yield opening[:-len("]}")].encode()
    wanted = max(0, head.total - head.offset)
    wanted = wanted if limit is None else min(limit, wanted)
    done = 0
    while done < wanted:
        page = strategy(source, name, prefix=prefix, contains=contains,
                        offset=head.offset + done, limit=min(batch, wanted - done))
        if page.solve_id != head.solve_id:
            raise StrategyUnavailableError(f"a new solve of {name!r} was stored while its "
                                           "strategy was being sent; ask again")
        if not page.infosets:
            break
        yield (b"," if done else b"") + _ENTRIES.dump_json(page.infosets)[1:-1]
        done += len(page.infosets)
    yield b"]}"


_ENTRIES: TypeAdapter[list[InfosetEntry]] = TypeAdapter(list[InfosetEntry])


def _example_keys(source: StrategySource, name: str) -> str:
    keys = [row.key for row in source.infoset_page(name, limit=3)[1]]
    return ", ".join(repr(k) for k in keys) or "(none stored)"


def convergence(source: StrategySource, name: str) -> Convergence:
    """The convergence trace (exploitability and value by iteration) of the latest solve."""
    info = ready_solve(source, name)
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


RANGE_PAGE = 200


def tree_node(source: StrategySource, name: str, idx: int = 0, *, offset: int = 0,
              limit: int = RANGE_PAGE) -> NodeView:
    """Public node `idx` of the stored solve's tree (the root by default): the path to it, its
    children and a page of the range of the player to move, with the equilibrium's
    probabilities, values and reach of each private state. `NotFoundError` for an unknown
    node, or a solve that stored no tree."""
    info = ready_solve(source, name)
    view = get_view(name)
    found = source.nodes(name, idx=idx)
    if not found:
        root = source.nodes(name, idx=0)
        raise NotFoundError(f"no node {idx} in the stored tree of {name!r}" if root else
                            f"the stored solve of {name!r} has no public tree to explore")
    node = found[0]
    path = [node]
    while path[0].parent >= 0:
        path.insert(0, source.nodes(name, idx=path[0].parent)[0])
    children = source.nodes(name, parent=idx)
    rows: list[InfosetStrategy] = []
    total = 0
    if node.kind == "decision":
        total, rows = source.infoset_page(name, node=idx, offset=offset, limit=limit)
        everything = rows if total <= len(rows) else source.infoset_page(name, node=idx)[1]
    else:
        everything = []
    hidden = _hidden_moves(node, children, rows[0].labels if rows else ())
    out_path = [_tree_node(path[0])] + [
        _tree_node(n, _hidden_moves(parent, source.nodes(name, parent=parent.idx),
                                    _labels(source, name, parent)))
        for parent, n in itertools.pairwise(path)]
    out_children = ([_tree_node(children[0], hidden, label=move) for move in hidden] if hidden
                    else [_tree_node(n) for n in children])
    reached = sum(r.reach or 0.0 for r in everything)
    value = (sum((r.reach or 0.0) * (r.value or 0.0) for r in everything) / reached
             if reached > 0 and all(r.value is not None or not r.reach for r in everything)
             else None)
    return NodeView(
        game=name, solve_id=info.id, node=out_path[-1], path=out_path, children=out_children,
        description=view.describe_history(node.public),
        range=[RangeRow(key=r.key, private=split_key(r.key)[0], actions=_entry(r).actions,
                        values=list(r.values) if r.values is not None else None,
                        value=r.value, reach=r.reach,
                        share=(r.reach or 0.0) / reached if reached > 0 else None)
               for r in rows],
        total=total, offset=offset, value=value,
        grid=_grid(view.hand_classes, everything) if view.hand_classes is not None else None)


def _grid(classes: HandClasses, rows: list[InfosetStrategy]) -> RangeGrid | None:
    """The range by hand class; None where the private states are not two-card hands."""
    size = len(classes.ranks)
    members: dict[tuple[int, int], list[InfosetStrategy]] = {}
    for row in rows:
        place = classes.cell(split_key(row.key)[0])
        if place is None:
            return None
        members.setdefault(place, []).append(row)
    if not members:
        return None
    labels = rows[0].labels
    reached = sum(r.reach or 0.0 for r in rows)

    def cell(row: int, column: int) -> GridCell:
        here = members.get((row, column), [])
        weights = [h.reach or 0.0 for h in here]
        total = sum(weights)
        if total <= 0:
            weights, total = [1.0] * len(here), float(len(here))
        mix = [sum(w * h.probabilities[a] for w, h in zip(weights, here, strict=True)) / total
               if here else 0.0 for a in range(len(labels))]
        return GridCell(
            label=classes.label(row, column), hands=len(here),
            share=sum(h.reach or 0.0 for h in here) / reached if reached > 0 else None,
            actions=[ActionProbability(label=label, probability=p)
                     for label, p in zip(labels, mix, strict=True)])

    return RangeGrid(ranks=classes.ranks,
                     cells=[[cell(row, column) for column in range(size)] for row in range(size)])


def _labels(source: StrategySource, name: str, node: PublicNode) -> tuple[str, ...]:
    """The moves of the player to act at a decision node."""
    if node.kind != "decision":
        return ()
    rows = source.infoset_page(name, node=node.idx, limit=1)[1]
    return rows[0].labels if rows else ()


def _hidden_moves(node: PublicNode, children: list[PublicNode], moves: tuple[str, ...]
                  ) -> list[str]:
    """The moves of a decision node that the other player cannot tell apart (a secret choice:
    all of them lead to its one child), or none. The tree stores that child under the first
    of them only, so it lists every one."""
    if node.kind == "decision" and len(children) == 1 and len(moves) > 1:
        return list(moves)
    return []


def _tree_node(node: PublicNode, hidden: list[str] | None = None, label: str | None = None
               ) -> TreeNode:
    return TreeNode(idx=node.idx, public=node.public,
                    label=node.label if label is None else label,
                    kind=cast(NodeKind, node.kind), actor=node.actor, hidden_moves=hidden or [])

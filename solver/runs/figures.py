"""The figures a store built before they were kept with each solve lacks, worked out now.

A build stores a solve's style figures with it (`solver.runs.store_solve`); a store written
before that (schema version 6 or older, upgraded in place on opening) has none for its solves,
some of which took hours to build. ``python -m solver figures`` works them out for the latest
solve of each game that lacks them; the background build runs it first
(`solver.runs.background`), so that an upgraded store gets them within minutes of the app's
start, and the app says they are not ready until then (it never computes them itself).
"""

from __future__ import annotations

from collections.abc import Callable

from solver.evaluation.style import add_style
from solver.games import game_names, get_game
from solver.runs.store_solve import StorePath
from strategies import SolveInfo, StoreError, StrategyStore
from strategies.figures import STYLE


def missing_style(store: StrategyStore) -> list[SolveInfo]:
    """The latest solve of each stored game with style statistics that has no style figures."""
    known = set(game_names())
    out = []
    for name in store.games():
        if name not in known or not get_game(name).style_stats:
            continue
        info = store.latest_solve(name)
        if info is not None and STYLE not in store.figures(info.id):
            out.append(info)
    return out


def lacking_style(store_path: StorePath) -> list[str]:
    """The games of the store at `store_path` whose latest solve lacks its style figures
    (none if there is no store to read)."""
    try:
        with StrategyStore.open(store_path or None) as store:
            return [info.game for info in missing_style(store)]
    except StoreError:
        return []


def fill_style(store_path: StorePath, on_stored: Callable[[SolveInfo], None] | None = None
               ) -> list[str]:
    """Work out and store the style figures that `missing_style` finds; the games done."""
    done = []
    with StrategyStore.open(store_path or None) as store:
        for info in missing_style(store):
            if add_style(store, get_game(info.game), info):
                done.append(info.game)
                if on_stored is not None:
                    on_stored(info)
    return done

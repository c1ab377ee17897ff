"""Store the re-solving bot: the latest table solve of a hold'em member (its blueprint, from
``python -m solver hulhe``) saved again as a new solve whose descriptor says that it re-solves
from a round on (`solver.resolving.kind`).  Being the latest solve, it is
what the app plays from then on; the blueprint's row stays in the store. Its style figures, as
the re-solving bot plays, are stored with it (`solver.evaluation.style`).

``python -m solver.resolving.store [--store PATH] [--from-round 4]``
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from dataclasses import replace

import solver
from solver.evaluation.style import add_style
from solver.games import get_game
from solver.resolving.kind import ResolvingSpec, add_resolving_arguments
from strategies import StoreError, StrategyStore


def store_resolving(store_path: str | None, game: str = "holdem",
                    spec: ResolvingSpec | None = None) -> int:
    """The new solve's id (ValueError if the store has no table solve of `game`)."""
    with StrategyStore.open(store_path or None, create=False) as store:
        info = store.latest_solve(game)
        table = store.table_strategy(game)
        if info is None or table is None:
            raise ValueError(f"no table solve of {game!r} in the store: build its blueprint "
                             f"first (python -m solver hulhe)")
        blueprint = info.abstraction
        if blueprint.startswith("resolving="):
            blueprint = ResolvingSpec.parse(blueprint.partition("=")[2]).blueprint
        if not blueprint.startswith(("ehs2=", "hist=", "translated=")):
            raise ValueError(f"the latest solve of {game!r} uses {info.abstraction!r}, not a "
                             f"table blueprint (ehs2=, hist= or translated=)")
        chosen = spec if spec is not None else ResolvingSpec(blueprint=blueprint)
        if chosen.blueprint != blueprint:
            chosen = replace(chosen, blueprint=blueprint)
        saved = store.save_solve(
            game, f"{info.algorithm}+resolving", info.iterations, info.seconds,
            info.exploitability, info.value, [], [], solver.__version__,
            abstraction=chosen.descriptor, value_ci95=info.value_ci95, table=table)
        add_style(store, get_game(game), saved)  # re-solving the river: a minute or two
    return saved.id


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.resolving.store",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", help="the strategy store (default: the default store)")
    parser.add_argument("--game", default="holdem")
    add_resolving_arguments(parser)
    args = parser.parse_args(argv)
    spec = ResolvingSpec.from_arguments(parser, args)
    try:
        solve_id = store_resolving(args.store, args.game, spec)
    except (ValueError, StoreError) as exc:
        parser.error(str(exc))
    print(f"stored solve {solve_id} ({spec.descriptor.split(';blueprint')[0]})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

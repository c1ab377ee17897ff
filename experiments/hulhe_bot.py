"""The stored HULHE bot: store size, load time, lookup time, and a match against always-call.

    .venv/bin/python -m experiments.hulhe_bot --store PATH [--deals 3000]

Load: a fresh `StrategyStore` answering its first `infoset` for the solve (the tables decoded);
lookup: `StrategyStore.infoset` on keys of random real positions (`strategy_key` of the stored
abstraction, computed beforehand, so only the store is timed; the time per key of playing the
random positions and computing their keys is reported apart), each key new to the store's
cache; match: `HulheBot` against always-call, duplicate (`solver.evaluation.holdem.duplicate`).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.bot import HulheBot
from solver.evaluation.holdem.baselines import AlwaysCall
from solver.evaluation.holdem.duplicate import duplicate_match
from solver.games import get_game
from solver.games.holdem.game import HoldemGame
from strategies import StrategyStore


def random_keys(game_name: str, abstraction: object, count: int, seed: int) -> list[str]:
    game = get_game(game_name)
    rng = np.random.default_rng(seed)
    keys: list[str] = []
    while len(keys) < count:
        state = game.initial_state()
        while not state.is_terminal() and len(keys) < count:
            if state.is_chance():
                state = state.apply_action(int(rng.choice(state.legal_actions())))
                continue
            keys.append(abstraction.strategy_key(state, state.current_player()))  # type: ignore[attr-defined]
            legal = state.legal_actions()
            state = state.apply_action(legal[int(rng.integers(len(legal)))])
    return keys


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--store", required=True)
    parser.add_argument("--game", default="holdem")
    parser.add_argument("--deals", type=int, default=3000)
    parser.add_argument("--lookups", type=int, default=2000)
    args = parser.parse_args()
    out: dict[str, object] = {"store_bytes": Path(args.store).stat().st_size}

    with StrategyStore.open(args.store) as store:
        info = store.latest_solve(args.game)
        assert info is not None, f"no solve of {args.game}"
        out["solve"] = {"id": info.id, "iterations": info.iterations,
                        "abstraction": info.abstraction, "seconds": round(info.seconds, 1)}
        abstraction = abstraction_for(get_game(args.game), info.abstraction)
        random_keys(args.game, abstraction, 10, seed=0)  # the bucket tables mapped
        started = time.perf_counter()
        keys = random_keys(args.game, abstraction, args.lookups + 1, seed=1)
        out["walk_and_strategy_key_us"] = round(
            1e6 * (time.perf_counter() - started) / len(keys), 1)
        started = time.perf_counter()
        first = store.infoset(args.game, keys[0])
        out["load_ms"] = round(1000 * (time.perf_counter() - started), 1)
        assert first is not None
        table = store.table_strategy(args.game)
        assert table is not None
        out["infosets"] = table.num_infosets
        unique = list(dict.fromkeys(keys[1:]))
        started = time.perf_counter()
        found = sum(store.infoset(args.game, key) is not None for key in unique)
        out["lookup_us"] = round(1e6 * (time.perf_counter() - started) / len(unique), 1)
        out["lookups"] = len(unique)
        assert found == len(unique), f"{len(unique) - found} keys not found"

    started = time.perf_counter()
    bot = HulheBot.from_store(args.game, args.store)
    out["bot_load_ms"] = round(1000 * (time.perf_counter() - started), 1)
    game = get_game(args.game)
    assert isinstance(game, HoldemGame), f"{args.game} is not a hold'em game"
    result = duplicate_match(game, bot, AlwaysCall(), args.deals, seed=7)
    out["vs_always_call"] = result.as_dict()
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()

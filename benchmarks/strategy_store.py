"""Strategy store lookups at Dudo's size: what one bot decision costs in the store.

    .venv/bin/python -m benchmarks.strategy_store

Saves 24,576 infosets shaped like Dudo's, then times 10,000 random ``infoset()`` lookups (the
first time each, repeated, by solve id, after ``strategy()`` has decoded the whole solve) and a
page of the explorer.
"""

from __future__ import annotations

import random
import tempfile
import time
from pathlib import Path

from strategies import StrategyStore, TracePoint
from tests.strategies.test_store import DUDO_INFOSETS, _dudo_like_strategy


def main() -> None:
    strategy = _dudo_like_strategy(DUDO_INFOSETS)
    keys = [s.key for s in strategy]
    rng = random.Random(1)
    lookups = [rng.choice(keys) for _ in range(10_000)]
    with tempfile.TemporaryDirectory() as folder, \
            StrategyStore.open(Path(folder) / "dudo.sqlite", create=True) as store:

        def mean_us(solve_id: int | None) -> float:
            t0 = time.perf_counter()
            for key in lookups:
                store.infoset("dudo", key, solve_id)
            return (time.perf_counter() - t0) / len(lookups) * 1e6

        t0 = time.perf_counter()
        info = store.save_solve("dudo", "dcfr", 1, 1.0, 1e-4, 0.0, strategy,
                                [TracePoint(1, 1.0, 1e-4, 0.0)], "bench")
        save_ms = (time.perf_counter() - t0) * 1e3
        cold_us = mean_us(None)
        warm_us = mean_us(None)
        by_id_us = mean_us(info.id)
        t0 = time.perf_counter()
        store.infoset_page("dudo", public_prefix="1x1,", offset=960, limit=48)
        page_ms = (time.perf_counter() - t0) * 1e3
        t0 = time.perf_counter()
        store.strategy("dudo")
        decode_ms = (time.perf_counter() - t0) * 1e3
        cached_us = mean_us(None)
    print(f"{DUDO_INFOSETS} infosets: save_solve {save_ms:.0f} ms; infoset() mean over 10,000 "
          f"random lookups: {cold_us:.1f} us first time, {warm_us:.1f} us repeated, "
          f"{by_id_us:.1f} us by solve id, {cached_us:.1f} us after strategy() "
          f"({decode_ms:.0f} ms to decode all); an explorer page {page_ms:.1f} ms")


if __name__ == "__main__":
    main()

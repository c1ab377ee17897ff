"""Build hold'em's E[HS] / E[HS²] tables from scratch and time each street.

    .venv/bin/python -m experiments.strength_tables [--keep] [--json]

By default the tables are built into a temporary cache folder, so the run measures a real build
whatever is cached already, and the folder is removed afterwards; with `--keep` they are built
into the cache that `solver.cards.strength.ehs_tables` reads (``$SOLVER_CACHE`` or
``~/.cache/solved-bots``; an existing copy there is used as is, so delete it to measure).
numba's JIT compilation is done first, on a 20-card game whose kernels have the same types, and
reported apart.  The build uses two threads (`strength.MAX_THREADS`).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

from solver.cards import strength
from solver.cards.deck import Deck


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true", help="build into the real cache")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    temporary = None if args.keep else tempfile.mkdtemp(prefix="strength-tables-")
    if temporary:
        os.environ["SOLVER_CACHE"] = temporary
    print(f"# {os.cpu_count()} CPUs, load {os.getloadavg()[0]:.2f}, cache "
          f"{strength._cache_folder(strength.HOLDEM)}", file=sys.stderr)

    start = time.perf_counter()
    strength.ehs_tables(strength.Streets(Deck(5, 4)), progress=False, use_cache=False)
    jit = time.perf_counter() - start

    streets: dict[str, float] = {}
    run = strength._run

    def timed(*arguments: object, **keywords: object) -> None:
        begin = time.perf_counter()
        run(*arguments, **keywords)  # type: ignore[arg-type]
        streets[str(arguments[2])] = time.perf_counter() - begin

    strength._run = timed
    try:
        start = time.perf_counter()
        start_cpu = time.process_time()
        strength.ehs_tables(progress=not args.json)
        total = time.perf_counter() - start
        cpu = time.process_time() - start_cpu
        folder = strength._cache_folder(strength.HOLDEM)
        sizes = {p.name: p.stat().st_size for p in sorted(folder.glob("*.npy"))}
    finally:
        strength._run = run
        if temporary:
            shutil.rmtree(temporary, ignore_errors=True)

    report = {"jit_seconds": jit, "seconds": total, "cpu_seconds": cpu, "streets": streets,
              "files": sizes, "megabytes": sum(sizes.values()) / 2**20,
              "load_average_end": os.getloadavg()[0]}
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"JIT and warm-up on a 20-card game: {jit:.1f} s")
    for name, seconds in streets.items():
        print(f"  {name:<20} {seconds:7.1f} s")
    print(f"hold'em tables: {total:.1f} s wall, {cpu:.1f} s CPU (two threads), "
          f"{report['megabytes']:.0f} MiB on disk"
          + ("" if temporary is None else " (temporary, removed)"))


if __name__ == "__main__":
    main()

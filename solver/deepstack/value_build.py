"""Build DeepStack's value function: solve random situations in chunks on Dask, then train the
network and measure it on situations it never saw.

    python -m solver.deepstack.value_build --situations 30000 --iterations 500 --out DIR \\
        [--scheduler tcp://HOST:8786] [--hidden 128,128,128]

Each chunk of situations (`--chunk`, drawn from its own seed) is a Dask task, on a local
cluster of the machine's cores or on `--scheduler`'s; a finished chunk is written to `--out`
as it comes back (``chunk-00012.npz``), so a build cut short resumes where it stopped by the
same command, and more situations later only solve the new chunks.  The held-out situations
(`--held-out`, from a seed no training chunk uses) are solved the same way.  The network is
saved as ``net.npz`` (`ValueNet.load`) with its figures in ``net.json``: its mean absolute
error on the held-out situations, in chips per chip in, beside that of always answering the
training targets' mean.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from solver.deepstack.value_net import situations_data, train
from solver.engine.progress import progress_bar
from solver.runs.dask import dask_client

FloatArray = NDArray[np.float64]

__all__ = ["Built", "build", "main"]

HELD_OUT_SEED = 1_000_000
"""The held-out situations' seed; chunk k of the training set is drawn from seed k."""


@dataclass(frozen=True, slots=True)
class Built:
    """What a build measured (also written to ``net.json``)."""

    situations: int
    iterations: int
    hidden: tuple[int, ...]
    held_out: int
    error: float
    """Mean absolute error on the held-out situations, chips per chip in."""
    baseline: float
    """The same error of always answering the training targets' mean."""
    train_seconds: float


def chunk_path(out: Path, k: int) -> Path:
    return out / f"chunk-{k:05d}.npz"


def solve_chunks(out: Path, situations: int, chunk: int, iterations: int, client: Any,
                 report: bool = True) -> tuple[FloatArray, FloatArray]:
    """The training situations, `chunk` a task, those already in `out` read back; all of
    them, in chunk order."""
    from distributed import as_completed  # heavy (a second): only when chunks are solved

    out.mkdir(parents=True, exist_ok=True)
    count = -(-situations // chunk)
    missing = [k for k in range(count) if not chunk_path(out, k).exists()]
    futures = {client.submit(situations_data, min(chunk, situations - k * chunk), k,
                             iterations, key=f"deepstack-chunk-{k}-{time.time_ns()}",
                             pure=False): k for k in missing}
    with progress_bar(total=count, initial=count - len(missing), unit="chunk",
                      desc=f"situations ({chunk} a chunk)", disable=not report,
                      file=sys.stderr, mininterval=1.0) as bar:
        for future in as_completed(list(futures)):
            inputs, targets = future.result()
            np.savez(chunk_path(out, futures[future]), inputs=inputs, targets=targets)
            bar.update(1)
    parts = [np.load(chunk_path(out, k)) for k in range(count)]
    return (np.vstack([p["inputs"] for p in parts])[:situations],
            np.vstack([p["targets"] for p in parts])[:situations])


def build(out: Path, situations: int, iterations: int, hidden: Sequence[int], held_out: int,
          chunk: int = 500, scheduler: str | None = None, workers: int | None = None,
          report: bool = True, on_solving: Callable[[], None] | None = None,
          before_training: Callable[[], None] | None = None) -> Built:
    """Solve, train and measure (see the module doc); `on_solving` is called once the workers
    are up, `before_training` once the situations are solved."""
    with dask_client(scheduler, workers) as client:
        if on_solving is not None:
            on_solving()
        inputs, targets = solve_chunks(out, situations, chunk, iterations, client, report)
        test_path = out / f"held-out-{held_out}.npz"
        if not test_path.exists():
            x, y = client.submit(situations_data, held_out, HELD_OUT_SEED, iterations,
                                 pure=False).result()
            np.savez(test_path, inputs=x, targets=y)
    with np.load(test_path) as test:
        x_test, y_test = test["inputs"], test["targets"]
    if before_training is not None:
        before_training()
    kept = _trained(out, situations, iterations, hidden, held_out)
    if kept is not None:
        return kept
    started = time.perf_counter()
    net = train(inputs, targets, hidden)
    seconds = time.perf_counter() - started
    built = Built(situations, iterations, tuple(hidden), held_out,
                  float(np.abs(net.predict(x_test) - y_test).mean()),
                  float(np.abs(targets.mean(axis=0) - y_test).mean()), round(seconds, 1))
    net.save(out / "net.npz")
    (out / "net.json").write_text(json.dumps(asdict(built), indent=1))
    return built


def _trained(out: Path, situations: int, iterations: int, hidden: Sequence[int],
             held_out: int) -> Built | None:
    """The network already in `out` if it was trained on the same data and layers."""
    facts = out / "net.json"
    if not (facts.exists() and (out / "net.npz").exists()):
        return None
    stored = json.loads(facts.read_text())
    built = Built(**{**stored, "hidden": tuple(stored["hidden"])})
    same = (built.situations, built.iterations, built.hidden, built.held_out) == (
        situations, iterations, tuple(hidden), held_out)
    return built if same else None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--situations", type=int, default=30_000)
    parser.add_argument("--iterations", type=int, default=500,
                        help="CFR+ iterations a situation (default 500)")
    parser.add_argument("--hidden", default="128,128,128", help="units of each hidden layer")
    parser.add_argument("--held-out", type=int, default=2000)
    parser.add_argument("--chunk", type=int, default=500)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    parser.add_argument("--workers", type=int, default=None,
                        help="local worker processes (default: the machine's cores)")
    args = parser.parse_args(argv)
    hidden = tuple(int(h) for h in args.hidden.split(","))
    built = build(args.out, args.situations, args.iterations, hidden, args.held_out,
                  args.chunk, args.scheduler, args.workers)
    print(f"value network {built.hidden}: held-out error {built.error:.4f} chips per chip in "
          f"({built.baseline:.4f} answering the mean), {built.situations} situations of "
          f"{built.iterations} iterations, {built.train_seconds} s of training")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


"""How fast our numba hand evaluator is, on one core, next to the Python evaluators.

    .venv/bin/python -m benchmarks.hand_evaluator [--hands 20000000] [--repeats 5]
        [--json]

Ours (`solver.cards.evaluator`) runs inside numba, single-threaded, over uniform random 7-card
hands made beforehand (their making is not timed):

* ``rank7``: the value of every row, summed (what a kernel that uses the value pays);
* ``rank_hands``: the same, written to a uint16 array (the vectorised call from Python);
* ``enumerate``: all 133,784,560 seven-card hands in nested loops, each card's sums added as it
  is dealt (how a solver enumerates boards); 5 of 7 cards are shared with the previous hand.

The Python libraries are called once per hand, as Python code would: eval7 and phevaluator
(C/Cython behind a Python call) on 200,000 hands, pokerkit (pure Python) on 2,000.  Their
agreement with our ordering is checked on the same hands.  Timings are the best of `--repeats`
runs, in process CPU time (other processes on a shared machine change wall time, not this);
numba's JIT compilation happens before the clock starts.  Needs the `bench` extra.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from importlib import metadata

import numpy as np
from numba import njit
from numpy.typing import NDArray

from solver.cards import evaluator as ev
from solver.cards.deck import STANDARD


@njit(cache=True)
def random_hands(n: int, seed: int) -> NDArray[np.uint8]:
    """`n` rows of 7 distinct card ids, uniformly."""
    np.random.seed(seed)
    out = np.empty((n, 7), dtype=np.uint8)
    for i in range(n):
        used = 0
        k = 0
        while k < 7:
            c = np.random.randint(0, 52)
            if not (used >> c) & 1:
                used |= 1 << c
                out[i, k] = c
                k += 1
    return out


@njit(cache=True)
def sum_rank7(hands: NDArray[np.uint8]) -> int:
    total = 0
    for i in range(hands.shape[0]):
        h = hands[i]
        total += ev.rank7(h[0], h[1], h[2], h[3], h[4], h[5], h[6])
    return total


@njit(cache=True)
def enumerate_all() -> int:
    """Sum of the values of all 7-card hands, keys added incrementally card by card."""
    key, bits = ev.CARD_KEY, ev.CARD_BIT
    total = 0
    for a in range(52):
        ka, ba = key[a], bits[a]
        for b in range(a + 1, 52):
            kb, bb = ka + key[b], ba | bits[b]
            for c in range(b + 1, 52):
                kc, bc = kb + key[c], bb | bits[c]
                for d in range(c + 1, 52):
                    kd, bd = kc + key[d], bc | bits[d]
                    for e in range(d + 1, 52):
                        ke, be = kd + key[e], bd | bits[e]
                        for f in range(e + 1, 52):
                            kf, bf = ke + key[f], be | bits[f]
                            for g in range(f + 1, 52):
                                total += ev.rank_state(kf + key[g], bf | bits[g])
    return total


def best_of(repeats: int, run: Callable[[], object]) -> float:
    """Least process CPU time of `repeats` runs."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def same_order(ours: NDArray[np.integer], theirs: NDArray[np.integer]) -> bool:
    order = np.lexsort((theirs, ours))
    a, b = np.diff(ours[order].astype(np.int64)), np.diff(theirs[order].astype(np.int64))
    return bool((b >= 0).all() and ((a > 0) == (b > 0)).all())


def python_libraries(hands: NDArray[np.uint8], repeats: int) -> dict[str, dict[str, object]]:
    import eval7
    import phevaluator
    from pokerkit import StandardHighHand

    names = [[STANDARD.name(int(c)) for c in hand] for hand in hands]
    ours = ev.rank_hands(hands)
    results: dict[str, dict[str, object]] = {}

    e7 = [[eval7.Card(n) for n in hand] for hand in names]
    values = np.array([eval7.evaluate(h) for h in e7])
    seconds = best_of(repeats, lambda: [eval7.evaluate(h) for h in e7])
    results["eval7"] = {"hands": len(e7), "seconds": seconds, "same_order": same_order(ours,
                                                                                      values)}

    ids = [[int(c) for c in hand] for hand in hands]  # phevaluator's ids: 4 * rank + suit too
    values = -np.array([phevaluator.evaluate_cards(*h) for h in ids])  # lower is better there
    seconds = best_of(repeats, lambda: [phevaluator.evaluate_cards(*h) for h in ids])
    results["phevaluator"] = {"hands": len(ids), "seconds": seconds,
                              "same_order": same_order(ours, values)}

    few = names[:2000]
    pokerkit_hands = [StandardHighHand.from_game("".join(h[:2]), "".join(h[2:])) for h in few]
    order = sorted(range(len(few)), key=lambda i: pokerkit_hands[i])
    ranks = np.zeros(len(few), dtype=np.int64)
    for j in range(1, len(order)):
        stronger = pokerkit_hands[order[j - 1]] < pokerkit_hands[order[j]]
        ranks[order[j]] = ranks[order[j - 1]] + stronger
    seconds = best_of(1, lambda: [StandardHighHand.from_game("".join(h[:2]), "".join(h[2:]))
                                  for h in few])
    results["pokerkit"] = {"hands": len(few), "seconds": seconds,
                           "same_order": same_order(ours[: len(few)], ranks)}
    for entry in results.values():
        entry["hands_per_second"] = entry["hands"] / entry["seconds"]  # type: ignore[operator]
        entry["microseconds_per_hand"] = 1e6 / entry["hands_per_second"]  # type: ignore[operator]
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=20_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    print(f"# {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, load "
          f"{os.getloadavg()[0]:.2f}; numba {metadata.version('numba')}", file=sys.stderr)
    start = time.perf_counter()
    random_hands(10, 0)
    small = random_hands(1000, 1)
    sum_rank7(small)
    ev.rank_hands(small)
    enumerate_all.compile(())
    jit = time.perf_counter() - start
    hands = random_hands(args.hands, 2)

    ours = {
        "rank7": best_of(args.repeats, lambda: sum_rank7(hands)),
        "rank_hands": best_of(args.repeats, lambda: ev.rank_hands(hands)),
        "enumerate": best_of(max(1, args.repeats // 2), enumerate_all),
    }
    counts = {"rank7": args.hands, "rank_hands": args.hands, "enumerate": 133_784_560}
    report = {
        "ours": {name: {"hands": counts[name], "seconds": s,
                        "hands_per_second": counts[name] / s} for name, s in ours.items()},
        "jit_seconds": jit,
        "python": python_libraries(hands[:200_000], args.repeats),
        "load_average_end": os.getloadavg()[0],
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return
    print(f"ours (numba, one core; JIT {jit:.1f} s before the clock):")
    for name, entry in report["ours"].items():  # type: ignore[attr-defined]
        print(f"  {name:<11} {entry['hands']:>12,} hands  {entry['seconds']:7.3f} s  "
              f"{entry['hands_per_second'] / 1e6:8.1f} M hands/s")
    print("Python libraries, one call per hand:")
    for name, entry in report["python"].items():  # type: ignore[attr-defined]
        print(f"  {name:<11} {entry['hands']:>12,} hands  {entry['seconds']:7.3f} s  "
              f"{entry['microseconds_per_hand']:8.2f} µs/hand  "
              f"same order as ours: {'yes' if entry['same_order'] else 'NO'}")


if __name__ == "__main__":
    main()

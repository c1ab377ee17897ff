"""The value function: its zero-sum correction holds whatever the weights; a small build
(situations solved in chunks on Dask, the network trained) beats answering the mean on
situations it never saw, writes its figures, and a larger build later solves only the new
chunks."""

from __future__ import annotations

import itertools
import json
from pathlib import Path

import numpy as np
import pytest

from solver.deepstack.situations import HANDS, sample
from solver.deepstack.value_build import build, chunk_path
from solver.deepstack.value_net import ValueNet, features


def _random_net(seed: int) -> ValueNet:
    rng = np.random.default_rng(seed)
    sizes = [2 * HANDS + 1, 16, 16, 2 * HANDS]
    return ValueNet(tuple(rng.normal(size=(a, b)) for a, b in itertools.pairwise(sizes)),
                    tuple(rng.normal(size=b) for b in sizes[1:]))


def test_the_values_are_zero_sum_over_the_ranges_whatever_the_weights(tmp_path: Path) -> None:
    net = _random_net(3)
    rng = np.random.default_rng(4)
    rows = np.array([features(sample(rng)) for _ in range(50)])
    out = net.predict(rows)
    assert np.abs((rows[:, :2 * HANDS] * out).sum(axis=1)).max() < 1e-12
    situation = sample(rng)
    chips = net.values(situation.chips, situation.ranges)
    assert chips.shape == (2, HANDS)
    assert float((situation.ranges * chips).sum()) == pytest.approx(0.0, abs=1e-9)
    net.save(tmp_path / "net.npz")
    again = ValueNet.load(tmp_path / "net.npz")
    assert np.array_equal(again.predict(rows), out) and again.hidden == (16, 16)


@pytest.mark.slow
def test_a_small_build_learns_and_resumes(tmp_path: Path) -> None:
    built = build(tmp_path, situations=600, iterations=200, hidden=(32, 32), held_out=200,
                  chunk=300, workers=1, report=False)
    assert built.error < 0.7 * built.baseline
    kept = json.loads((tmp_path / "net.json").read_text())
    assert kept["error"] == pytest.approx(built.error) and kept["situations"] == 600
    first = chunk_path(tmp_path, 0).stat().st_mtime_ns
    more = build(tmp_path, situations=900, iterations=200, hidden=(32, 32), held_out=200,
                 chunk=300, workers=1, report=False)
    assert chunk_path(tmp_path, 0).stat().st_mtime_ns == first  # not solved again
    assert chunk_path(tmp_path, 2).exists() and more.situations == 900

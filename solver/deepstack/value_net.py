"""DeepStack's counterfactual value function for no-limit Leduc: both ranges and the pot in,
both players' counterfactual values per hand out, learned from solved situations
(`solver.deepstack.situations`).

The network is scikit-learn's `MLPRegressor` (already a dependency, CPU only, installed from
the lock): a few fully connected layers with rectified linear units, trained on squared error
(DeepStack-Leduc uses PReLU units and a Huber loss; a small network on six hands a player needs
neither).  Play time does not import scikit-learn: `ValueNet` holds the weights as numpy arrays
and evaluates them itself (`ValueNet.values`), with DeepStack's zero-sum correction after the
last layer: whatever the network gets wrong, the two players' values weighted by their ranges
add up to zero, as the true values of a zero-sum game do, the error shared half and half.

Example::

    inputs, targets = situations_data(count=1000, seed=0, iterations=1000)
    net = train(inputs, targets, hidden=(64, 64), seed=0)
    values = net.values(situation.chips, situation.ranges)  # (2, 6), in chips
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from solver.deepstack.situations import HANDS, Situation, sample, solve

FloatArray = NDArray[np.float64]

__all__ = ["ValueNet", "features", "situations_data", "train"]


def features(situation: Situation) -> FloatArray:
    """The network's input: both ranges, then the chips in as a share of the stack."""
    return np.concatenate([situation.ranges.reshape(-1), [situation.pot_feature]])


def situations_data(count: int, seed: int, iterations: int) -> tuple[FloatArray, FloatArray]:
    """`count` situations drawn from `seed` and solved with `iterations` of CFR+: the inputs
    (`features`) and the targets (both players' values per hand, per chip in), a row each."""
    rng = np.random.default_rng(seed)
    drawn = [sample(rng) for _ in range(count)]
    inputs = np.array([features(s) for s in drawn]).reshape(count, 2 * HANDS + 1)
    targets = np.array([solve(s, iterations).reshape(-1) for s in drawn]).reshape(
        count, 2 * HANDS)
    return inputs, targets


@dataclass(frozen=True, slots=True, eq=False)
class ValueNet:
    """A trained value function: the layers' weights and biases (rectified linear units
    between them, none after the last)."""

    weights: tuple[FloatArray, ...]
    biases: tuple[FloatArray, ...]

    @property
    def hidden(self) -> tuple[int, ...]:
        return tuple(int(w.shape[1]) for w in self.weights[:-1])

    def predict(self, inputs: FloatArray) -> FloatArray:
        """The network's outputs for rows of `features`, with the zero-sum correction (rows:
        both players' values per hand, per chip in)."""
        x = np.asarray(inputs, np.float64)
        for w, b in zip(self.weights[:-1], self.biases[:-1], strict=True):
            x = np.maximum(x @ w + b, 0.0)
        out = x @ self.weights[-1] + self.biases[-1]
        ranges = inputs[:, :2 * HANDS]
        error = (ranges * out).sum(axis=1, keepdims=True)
        masses = ranges.reshape(-1, 2, HANDS).sum(axis=2)  # (rows, players)
        shift = np.where(masses > 0, error / (2 * np.where(masses > 0, masses, 1.0)), 0.0)
        corrected: FloatArray = out - np.repeat(shift, HANDS, axis=1)
        return corrected

    def values(self, chips: int, ranges: FloatArray) -> FloatArray:
        """Both players' counterfactual values per hand, in chips, with `chips` in from each
        and these `ranges` (rows: players)."""
        row = features(Situation(chips, np.asarray(ranges, np.float64)))[None, :]
        return self.predict(row).reshape(2, HANDS) * chips

    def save(self, path: Path) -> None:
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        np.savez(path, **arrays)  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: Path) -> ValueNet:
        with np.load(path) as data:
            layers = len([k for k in data.files if k.startswith("w")])
            return cls(tuple(data[f"w{i}"] for i in range(layers)),
                       tuple(data[f"b{i}"] for i in range(layers)))


def train(inputs: FloatArray, targets: FloatArray, hidden: Sequence[int] = (64, 64),
          seed: int = 0, epochs: int = 400) -> ValueNet:
    """A network fitted to the solved situations (`situations_data`) by Adam on squared
    error, a tenth of the rows held back to stop when they stop improving."""
    from sklearn.neural_network import MLPRegressor  # seconds to import: only training needs it

    model = MLPRegressor(hidden_layer_sizes=tuple(hidden), activation="relu", solver="adam",
                         learning_rate_init=1e-3, max_iter=epochs, early_stopping=True,
                         validation_fraction=0.1, n_iter_no_change=20, random_state=seed,
                         tol=1e-6)
    model.fit(inputs, targets)
    return ValueNet(tuple(np.asarray(w, np.float64) for w in model.coefs_),
                    tuple(np.asarray(b, np.float64) for b in model.intercepts_))

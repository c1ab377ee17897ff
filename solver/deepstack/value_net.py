"""DeepStack's counterfactual value function for no-limit Leduc: both ranges and the pot in,
both players' counterfactual values per hand out, learned from solved situations
(`solver.deepstack.situations`).

The network is scikit-learn's `MLPRegressor` (already a dependency, CPU only, installed from
the lock): a few fully connected layers with rectified linear units, trained on squared error
(DeepStack-Leduc uses PReLU units and a Huber loss; a small network on six hands a player needs
neither).  Play time does not import scikit-learn: `ValueNet` holds the weights as numpy arrays
and evaluates them in numba (`solver.resolving.leaves.network_values`, the same code a
depth-limited re-solve runs at its leaves), with DeepStack's zero-sum correction after the
last layer: whatever the network gets wrong, the two players' values weighted by their ranges
add up to zero, as the true values of a zero-sum game do, the error shared half and half.

Example::

    inputs, targets = situations_data(count=1000, seed=0, iterations=1000)
    net = train(inputs, targets, hidden=(64, 64), seed=0)
    values = net.values(situation.chips, situation.ranges)  # (2, 6), in chips
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from solver.deepstack.situations import GAME, HANDS, Situation, sample, solve
from solver.resolving.leaves import network_values
from solver.resolving.subgame import hand_cards

FloatArray = NDArray[np.float64]

__all__ = ["ValueNet", "features", "situations_data", "suit_twins", "train", "with_suits_swapped"]


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
        out: FloatArray = network_values(self.weights, self.biases,
                                         np.ascontiguousarray(inputs, np.float64), HANDS)
        return out

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
            return cls(tuple(np.ascontiguousarray(data[f"w{i}"], np.float64)
                             for i in range(layers)),
                       tuple(np.ascontiguousarray(data[f"b{i}"], np.float64)
                             for i in range(layers)))


def suit_twins() -> NDArray[np.int64]:
    """Per hand, the hand of the same rank in the other suit: before the board card the suits
    do not matter, so a situation and its suits swapped have the same values, swapped."""
    ranks = [GAME.deck.rank(int(h[0])) for h in hand_cards(GAME)]
    return np.array([next(k for k in range(HANDS) if k != h and ranks[k] == ranks[h])
                     for h in range(HANDS)], np.int64)


def with_suits_swapped(inputs: FloatArray, targets: FloatArray) -> tuple[FloatArray, FloatArray]:
    """The rows and the same rows with the suits swapped (twice the data, for nothing)."""
    twins = suit_twins()
    columns = np.concatenate([twins, HANDS + twins])
    swapped_in = np.concatenate([inputs[:, columns], inputs[:, 2 * HANDS:]], axis=1)
    return np.vstack([inputs, swapped_in]), np.vstack([targets, targets[:, columns]])


def train(inputs: FloatArray, targets: FloatArray, hidden: Sequence[int] = (64, 64),
          seed: int = 0, epochs: int = 400) -> ValueNet:
    """A network fitted to the solved situations (`situations_data`) and their suits swapped
    (`with_suits_swapped`) by Adam on squared error, a tenth of the rows held back to stop
    when they stop improving."""
    from sklearn.exceptions import ConvergenceWarning  # with the regressor, for the same reason
    from sklearn.neural_network import MLPRegressor  # seconds to import: only training needs it

    inputs, targets = with_suits_swapped(inputs, targets)

    model = MLPRegressor(hidden_layer_sizes=tuple(hidden), activation="relu", solver="adam",
                         learning_rate_init=1e-3, max_iter=epochs, early_stopping=True,
                         validation_fraction=0.1, n_iter_no_change=20, random_state=seed,
                         tol=1e-6)
    with warnings.catch_warnings():  # out of epochs is fine: early stopping kept the best
        warnings.simplefilter("ignore", ConvergenceWarning)
        model.fit(inputs, targets)
    return ValueNet(tuple(np.ascontiguousarray(w, np.float64) for w in model.coefs_),
                    tuple(np.ascontiguousarray(b, np.float64) for b in model.intercepts_))

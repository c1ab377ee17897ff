"""Random hands for the card tests."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray


def random_hands(n: int, cards: int, seed: int) -> NDArray[np.int64]:
    """`n` uniformly random hands of `cards` distinct 52-card ids, one per row."""
    rng = np.random.default_rng(seed)
    return np.argpartition(rng.random((n, 52), dtype=np.float32), cards - 1, axis=1)[:, :cards]

"""The job that measures hold'em bots against each other (`solver.resolving.measure`): the bot
of one store against another store's, the blueprint alone or re-solving, and LBR against
either side, its chunks pooled as one estimate."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from solver.cli import main
from solver.resolving.kind import ResolvingSpec
from solver.resolving.measure import BotSpec, evaluate
from solver.resolving.measure import main as eval_main

MINI = "holdem-mini"


class _Future:
    def __init__(self, value: object) -> None:
        self.value = value


class InProcess:
    """Dask's `submit` and `gather`, run at once in this process."""

    def submit(self, function: Callable[..., object], *args: object, pure: bool = True
               ) -> _Future:
        return _Future(function(*args))

    def gather(self, futures: list[_Future]) -> list[Any]:
        return [f.value for f in futures]


def _blueprint(path: Path, seed: int) -> str:
    assert main(["hulhe", "--game", MINI, "--buckets", "4", "--epochs", "2",
                 "--epoch-iterations", "2000", "--workers", "0", "--checkpoint", "none",
                 "--self-play-deals", "0", "--seed", str(seed), "--quiet", "--store",
                 str(path)]) == 0
    return str(path)


@pytest.mark.slow
def test_one_stores_bot_against_anothers(tmp_path: Path) -> None:
    first = _blueprint(tmp_path / "a.sqlite", 1)
    second = _blueprint(tmp_path / "b.sqlite", 2)
    alone = BotSpec(MINI, first, None)
    itself = evaluate(alone, 300, 0, InProcess(), chunk=100,
                      against=BotSpec(MINI, first, None))
    # The same strategy in both seats, common random numbers: every deal pair is zero, with
    # the luck taken out too (both games of a pair meet the same stakes and the same odds).
    assert itself["match"] == {"mbb_per_hand": 0.0, "ci95": 0.0, "deals": 300,
                               "adjusted_mbb_per_hand": 0.0, "adjusted_ci95": 0.0}
    assert itself["bot"] == f"the blueprint of {first}"
    report = evaluate(alone, 300, 60, InProcess(), chunk=100, lbr_of=("bot", "against"),
                      against=BotSpec(MINI, second, ResolvingSpec(2, iterations=20)))
    assert report["against"] == f"re-solving from round 2 of {second}"
    assert "from_round" not in report  # the bot measured does not re-solve
    match = report["match"]
    assert isinstance(match, dict) and match["deals"] == 300 and match["ci95"] > 0
    for side in ("lbr_bot", "lbr_against"):
        lbr = report[side]
        assert isinstance(lbr, dict) and lbr["deals"] == 60
        assert lbr["mbb_per_hand"] == pytest.approx((lbr["seat0"] + lbr["seat1"]) / 2)
        for seat in ("seat0", "seat1"):
            where = lbr["where"][seat]
            assert sum(row["share"] for row in where.values()) == pytest.approx(1.0)
            assert sum(row["mbb_per_hand"] for row in where.values()) == pytest.approx(lbr[seat])
    with pytest.raises(ValueError, match="LBR measures bot, resolving, blueprint, against"):
        evaluate(alone, 10, 10, InProcess(), lbr_of=("against",))


def test_the_command_refuses_a_store_without_a_bot(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A usage error naming what is wrong, before any cluster starts."""
    for store, says in ((tmp_path / "none.sqlite", "strategy store not found"),
                        (_exact_store(tmp_path / "exact.sqlite"), "no table solve")):
        with pytest.raises(SystemExit) as stopped:
            eval_main(["--game", MINI, "--store", str(store), "--deals", "1"])
        assert stopped.value.code == 2
        assert says in capsys.readouterr().err


def _exact_store(path: Path) -> Path:
    assert main(["solve", MINI, "--iterations", "5", "--quiet", "--store", str(path)]) == 0
    return path


@pytest.mark.slow
def test_the_command_on_a_local_cluster_saves_lbrs_hands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """On a one-worker Dask cluster: the JSON's two LBR estimates are the means of the saved
    hands, which are not in the JSON; the progress bar goes to stderr."""
    store = _blueprint(tmp_path / "a.sqlite", 3)
    capsys.readouterr()  # the build's summary
    saved = tmp_path / "hands.npz"
    assert eval_main(["--game", MINI, "--store", store, "--no-resolving", "--deals", "0",
                      "--lbr-deals", "8", "--chunk", "3", "--workers", "1",
                      "--save-hands", str(saved)]) == 0
    out, err = capsys.readouterr()
    lbr = json.loads(out)["lbr_bot"]
    assert "hands" not in lbr and "deal pairs" in err
    hands = np.load(saved)
    assert hands["lbr_bot_won"].shape == hands["lbr_bot_adjusted"].shape == (8, 2)
    assert hands["lbr_bot_endings"].shape == (8, 2)
    scale = 1000 / 2  # holdem-mini's big blind is 2 chips
    assert lbr["mbb_per_hand"] == pytest.approx(hands["lbr_bot_won"].mean() * scale)
    assert lbr["adjusted_mbb_per_hand"] == pytest.approx(hands["lbr_bot_adjusted"].mean() * scale)
    assert not np.allclose(hands["lbr_bot_won"], hands["lbr_bot_adjusted"])

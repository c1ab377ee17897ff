"""The ``resolving`` descriptor: written and read back, refused when it cannot be played."""

from __future__ import annotations

import pytest

from solver.abstractions import abstraction_for
from solver.abstractions.holdem.resolving_kind import Resolving, ResolvingSpec
from solver.abstractions.play_time import ComputedAtPlayTime
from solver.games import get_game


def test_the_descriptor_reads_back() -> None:
    spec = ResolvingSpec(3, "resolve", 50, "ehs2=k:8,8,8")
    assert spec.descriptor == "resolving=from:3;mode:resolve;iterations:50;blueprint:ehs2=k:8,8,8"
    assert ResolvingSpec.parse(spec.descriptor.partition("=")[2]) == spec
    abstraction = abstraction_for(get_game("holdem"), spec.descriptor)
    assert isinstance(abstraction, Resolving) and isinstance(abstraction, ComputedAtPlayTime)
    assert abstraction.blueprint.descriptor == "ehs2=k:8,8,8"
    turn = ResolvingSpec(3, "maxmargin", 200, "ehs2=k:8,8,8", turn=10, sample=12)
    assert turn.descriptor == ("resolving=from:3;mode:maxmargin;iterations:200;turn:10;"
                               "sample:12;blueprint:ehs2=k:8,8,8")
    assert ResolvingSpec.parse(turn.descriptor.partition("=")[2]) == turn


@pytest.mark.parametrize(("descriptor", "message"), [
    ("resolving=from:4;mode:bold", "modes are"),
    ("resolving=from:1", "round 2 or later"),
    ("resolving=when:4", "takes from:"),
    ("resolving=iterations:many", "resolving"),
    ("resolving=turn:0", "at least one iteration"),
    ("resolving=turn:5;sample:-1", "samples 0"),
    ("resolving=blueprint:recall=3", "ehs2 table solve"),
])
def test_bad_descriptors_are_refused(descriptor: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        abstraction_for(get_game("holdem"), descriptor)


def test_only_the_holdem_family_re_solves() -> None:
    with pytest.raises(ValueError, match="hold'em family"):
        abstraction_for(get_game("leduc"), "resolving=from:2")

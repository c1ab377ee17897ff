"""The ``resolving`` descriptor: written and read back, refused when it cannot be played."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

from solver.abstractions import abstraction_for, describe
from solver.abstractions.holdem.translated import DEFAULT_HUNL
from solver.abstractions.play_time import ComputedAtPlayTime
from solver.games import get_game
from solver.resolving.kind import (
    Resolving,
    ResolvingSpec,
    add_resolving_arguments,
)
from solver.resolving.no_limit_bot import NoLimitResolvingBot
from strategies.tables import TableStrategy


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
    warm = ResolvingSpec(3, "maxmargin", 200, "ehs2=k:8,8,8", turn=4, warm=0.5)
    assert warm.descriptor == ("resolving=from:3;mode:maxmargin;iterations:200;turn:4;"
                               "sample:0;warm:0.5;blueprint:ehs2=k:8,8,8")
    assert ResolvingSpec.parse(warm.descriptor.partition("=")[2]) == warm


@pytest.mark.parametrize(("descriptor", "message"), [
    ("resolving=from:4;mode:bold", "modes are"),
    ("resolving=from:1", "round 2 or later"),
    ("resolving=when:4", "takes from:"),
    ("resolving=iterations:many", "resolving"),
    ("resolving=turn:0", "at least one iteration"),
    ("resolving=turn:5;sample:-1", "samples 0"),
    ("resolving=turn:5;warm:-1", "warm start is 0"),
    ("resolving=blueprint:recall=3", "table solve \\(ehs2=, hist= or translated=\\)"),
])
def test_bad_descriptors_are_refused(descriptor: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        abstraction_for(get_game("holdem"), descriptor)


def test_only_the_holdem_family_re_solves() -> None:
    with pytest.raises(ValueError, match="hold'em family"):
        abstraction_for(get_game("leduc"), "resolving=from:2")


def test_the_bot_is_said_to_re_solve_with_what_was_measured() -> None:
    river = describe("resolving=from:4;mode:maxmargin;iterations:200;"
                     "blueprint:ehs2=k:128,128,128")
    assert river is not None
    assert "128 a round" in river.what and "from the river on" in river.what
    assert "re-solves the rest of the hand" in river.what
    assert "cannot be computed exactly" in river.measured and "mbb/hand" in river.measured
    turn = describe("resolving=from:3;mode:maxmargin;iterations:200;turn:10;sample:0;"
                    "blueprint:ehs2=k:128,128,128")
    assert turn is not None and "from the turn on" in turn.what
    assert "second round" in turn.measured and "more at some" in turn.measured
    assert "2.3 times" in turn.measured and "safely" in turn.what
    unsafe = describe("resolving=from:4;mode:unsafe;iterations:200;"
                      "blueprint:ehs2=k:128,128,128")
    assert unsafe is not None
    assert "safely" not in unsafe.what and "without a safety gadget" in unsafe.what


def _options() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="resolving", exit_on_error=False)
    add_resolving_arguments(parser)
    return parser


def test_the_command_line_options_make_the_spec() -> None:
    parser = _options()
    assert ResolvingSpec.from_arguments(parser, parser.parse_args([])) == ResolvingSpec()
    args = parser.parse_args(["--from-round", "3", "--mode", "resolve", "--iterations", "50",
                              "--turn-iterations", "4", "--turn-sample", "12",
                              "--turn-warm", "0.5", "--turn-guard"])
    assert ResolvingSpec.from_arguments(parser, args) == ResolvingSpec(
        3, "resolve", 50, turn=4, sample=12, warm=0.5, guard=True)


def test_illegal_options_are_a_usage_error_naming_what_is_legal(
        capsys: pytest.CaptureFixture[str]) -> None:
    parser = _options()
    with pytest.raises(SystemExit) as stopped:
        ResolvingSpec.from_arguments(parser, parser.parse_args(["--mode", "bold"]))
    assert stopped.value.code == 2
    assert "re-solving modes are" in capsys.readouterr().err


def test_the_measures_in_hulhe_follow_the_blueprint() -> None:
    """The HULHE figures belong to the blueprint they were measured over: the default bot
    shows its own, the earlier bot its own, and an unmeasured one none."""
    default = describe(ResolvingSpec().descriptor)
    earlier = describe("resolving=from:4;mode:maxmargin;iterations:200;"
                       "blueprint:ehs2=k:128,128,128")
    other = describe("resolving=from:4;mode:maxmargin;iterations:200;"
                     "blueprint:hist=k:64,64,64")
    assert default is not None and earlier is not None and other is not None
    assert "111 ± 21" in default.measured and "−1.3 ± 19.1" in default.measured
    assert "+1.2 ± 12.7" in default.measured
    assert "18.5 ± 43.6" in earlier.measured and "111 ± 21" not in earlier.measured
    assert "in this game" not in other.measured and "small games" in other.measured


def test_plain_words_first_and_no_empty_measurement() -> None:
    """Each kind says in everyday words what its game forgets (the technical words stay in
    `what`), and a bot whose re-solving was measured nowhere says so instead of an empty
    "Measured:"."""
    river = describe(ResolvingSpec().descriptor)
    assert river is not None
    assert river.plain.startswith("hands grouped by how strong they are (1024 a round)")
    assert "from the river on it works the rest of the hand out again" in river.plain
    for jargon in ("gadget", "E[HS", "bucket", "max-margin", "re-solve"):
        assert jargon not in river.plain
    assert "max-margin's gadget" in river.what  # one tap away, for the curious
    second = describe("resolving=from:2;mode:maxmargin;iterations:10;blueprint:ehs2=k:4")
    assert second is not None and "Measured:" not in second.measured
    assert "was not measured" in second.measured
    recall = describe("recall=1")
    assert recall is not None and recall.plain == (
        "a player remembers its dice but only the last bid")


def test_a_no_limit_blueprint_is_re_solved_on_the_turn_and_river_only() -> None:
    """A translated blueprint's game has ';' of its own (its sizes per round): the descriptor
    reads it whole, as the last field, and the no-limit bot re-solves the last round or the
    last two (the turn in its own layout, with its own iterations)."""
    spec = ResolvingSpec(4, blueprint=f"translated={DEFAULT_HUNL}")
    assert ResolvingSpec.parse(spec.descriptor.partition("=")[2]) == spec
    hunl = get_game("hunl")
    assert abstraction_for(hunl, spec.descriptor).descriptor == spec.descriptor
    turn = abstraction_for(hunl, ResolvingSpec(3, turn=12, blueprint=spec.blueprint).descriptor)
    assert isinstance(turn, Resolving)
    bot = turn.bot(TableStrategy({}, (), ()))
    assert isinstance(bot, NoLimitResolvingBot)
    assert (bot.from_round, bot.turn_iterations) == (2, 12)
    with pytest.raises(ValueError, match="re-solves the last round"):
        abstraction_for(hunl, ResolvingSpec(2, blueprint=spec.blueprint).descriptor)


def test_the_default_no_limit_bots_words_are_what_the_docs_record() -> None:
    """The default build's command stores the river re-solver over the default blueprint; the
    lobby's words about it quote the figures the docs and the README record."""
    command = get_game("hunl").build.command
    spec = ResolvingSpec(int(command[command.index("--resolve-from") + 1]),
                         blueprint=f"translated={DEFAULT_HUNL}")
    words = describe(spec.descriptor)
    assert words is not None and "1,749 ± 287" in words.measured
    assert "29.6 against 35.0" in words.measured  # the small members' exact table, max-margin
    root = Path(__file__).parents[3]
    docs = (root / "docs" / "games" / "no-limit.md").read_text()
    assert "**1,749 ± 287**" in docs and "| 35.0 | **26.1** | 29.6 |" in docs
    assert "1,749 ± 287" in (root / "README.md").read_text()
    turn = describe(ResolvingSpec(3, turn=12, blueprint=spec.blueprint).descriptor)
    assert turn is not None and "14.0 against 35.0" in turn.measured
    assert "| 12 iterations | 12.5 | 14.0 |" in docs

"""Every solve checks what it needs against the machine's memory before it allocates: the
estimates drawn from the games' counts (upper bounds of what a solve really takes), the lobby's
build commands checked as a 24 GB machine would check them, and the exact solve of Dudo with
two dice each refused before it takes anything."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from solver.abstractions.dudo_recall import solve as recall_solve
from solver.algorithms.solve import memory_estimate
from solver.cli import main
from solver.engine import memory
from solver.games import game_names, get_game
from tests.conftest import REPO_ROOT

PEAK_KB = ("int(next(line.split()[1] for line in open('/proc/self/status') "
           "if line.startswith('VmHWM:')))")
"""The process's peak resident memory in KiB, read from the kernel: ``ru_maxrss`` is no good
here, since a process started by a big one (pytest after many tests) inherits its peak."""
MACHINE = "24G"
"""The CI machine's memory: what the refusals below are about."""
def test_memory_sizes_parse_and_refusals_name_the_way_that_fits() -> None:
    assert memory.parse_bytes("24G") == 24 << 30 and memory.parse_bytes("512M") == 512 << 20
    assert memory.parse_bytes("1000") == 1000
    with pytest.raises(ValueError):
        memory.parse_bytes("-3G")
    estimate = memory_estimate(get_game("dudo-2v2"))
    assert estimate.bytes > 200 << 30  # 352 million information sets
    with pytest.raises(memory.NotEnoughMemoryError) as refused:
        memory.check(estimate, available=24 << 30)
    text = str(refused.value)
    assert "solving dudo-2v2 exactly needs about" in text and "24.0 GB is available" in text
    assert "python -m solver recall dudo-2v2 --memory 3" in text
    memory.check(memory_estimate(get_game("kuhn")), available=24 << 30)  # fits


def lobby_commands() -> list[tuple[str, list[str]]]:
    return [(g, list(get_game(g).build.command)) for g in game_names() if get_game(g).listed]


@pytest.mark.parametrize(("game", "command"), lobby_commands(), ids=lambda x: str(x))
def test_every_lobby_game_builds_within_a_24_gb_machine(
        game: str, command: list[str], monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    """Each lobby game's own build command, as a dry run: its memory estimate fits in the
    machine's memory, and it has phases with estimated times for the lobby's progress."""
    monkeypatch.setenv(memory.LIMIT_ENV, MACHINE)
    assert main([*command, "--dry-run", "--json"]) == 0, capsys.readouterr().err
    plan = json.loads(capsys.readouterr().out)
    assert plan["fits"] is True and plan["available_bytes"] == 24 << 30
    assert memory.BASE_BYTES < plan["memory_bytes"] < 16 << 30, plan
    assert plan["phases"] and all(seconds > 0 for _, seconds, _, _ in plan["phases"])
    assert all(words and words != name for name, _, words, _ in plan["phases"])  # plain words
    if game == "dudo-2v2":  # the lobby's two-dice game is the recall solve, not the exact one
        assert command[:2] == ["recall", "dudo-2v2"] and "--memory" in command
    # The same command is refused on a machine with too little memory.
    monkeypatch.setenv(memory.LIMIT_ENV, "100M")
    assert main([*command, "--dry-run"]) == 2


@pytest.mark.slow
def test_the_exact_dudo_2v2_solve_is_refused_before_it_allocates(tmp_path: Path) -> None:
    """What the background build once ran: it grew to 24 GB in 75 s and was killed. Now it
    stops at once, at the interpreter's own size, and says what to run instead."""
    script = textwrap.dedent(f"""
        from solver.cli import main
        code = main(["solve", "dudo-2v2", "--quiet", "--store", {str(tmp_path / 's.sqlite')!r}])
        print("code", code, "maxrss_kb", {PEAK_KB})
    """)
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                          text=True, env={**os.environ, memory.LIMIT_ENV: MACHINE,
                                          "PYTHONPATH": str(REPO_ROOT)}, timeout=300)
    words = done.stdout.splitlines()[-1].split()
    assert words[:2] == ["code", "2"], done.stdout + done.stderr
    assert int(words[3]) < 1 << 20  # under 1 GB: nothing of the game was built
    assert "error: solving dudo-2v2 exactly needs about" in done.stderr
    assert "python -m solver recall dudo-2v2 --memory 3" in done.stderr
    assert not (tmp_path / "s.sqlite").exists()


@pytest.mark.slow
def test_the_estimate_is_above_what_a_solve_takes(tmp_path: Path) -> None:
    """An exact solve and its storing, in a process of its own: its peak resident memory is
    under the estimate (and the estimate not far above it). Dudo, one die of five faces
    against two: 327,680 information sets (673 MiB measured, 875 MiB estimated)."""
    (tmp_path / "five_faces.py").write_text(textwrap.dedent("""
        from solver.games import register_game
        from solver.games.dudo.game import DudoGame
        from solver.games.dudo.view import DudoView

        register_game("dudo-1v2-d5", lambda: DudoGame(dice=(1, 2), faces=5), DudoView)
    """))
    script = textwrap.dedent(f"""
        from solver.algorithms.solve import memory_estimate
        from solver.cli import main
        from solver.games import get_game
        code = main(["solve", "dudo-1v2-d5", "--iterations", "3", "--quiet", "--store",
                     {str(tmp_path / 's.sqlite')!r}])
        print("code", code, "maxrss_kb", {PEAK_KB},
              "estimate", memory_estimate(get_game("dudo-1v2-d5")).bytes)
    """)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(REPO_ROOT)]),
           "SOLVER_GAMES": "five_faces", "SOLVER_CACHE": str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                          text=True, env=env, timeout=600)
    words = done.stdout.splitlines()[-1].split()
    assert words[:2] == ["code", "0"], done.stdout + done.stderr
    peak, estimate = 1024 * int(words[3]), int(words[5])
    assert peak < estimate < 2 * peak, (peak, estimate)


@pytest.mark.parametrize("command", [
    ["solve", "kuhn", "--iterations", "2"],   # sized from its compiled tree
    ["solve", "dudo", "--iterations", "2"],   # sized from its counts, before its tree is built
    ["recall", "dudo", "--memory", "1", "--iterations", "2"],
])
@pytest.mark.slow
def test_a_run_checks_its_memory_once(command: list[str], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    checked: list[str] = []
    real_check = memory.check

    def check(estimate: memory.MemoryEstimate, available: int | None = None) -> None:
        checked.append(estimate.what)
        real_check(estimate, available)

    monkeypatch.setattr(memory, "check", check)
    monkeypatch.setattr(recall_solve, "check", check)
    assert main([*command, "--quiet", "--store", str(tmp_path / "s.sqlite")]) == 0
    assert len(checked) == 1, checked

"""What importing the solver's games and the app loads: the rules of the games need no database
library, and the app's start needs no clustering library (only a build of hold'em's buckets
clusters). Each import runs in a fresh interpreter, so nothing imported by the tests counts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from tests.conftest import REPO_ROOT


def _loaded(module: str, heavy: tuple[str, ...]) -> list[str]:
    """Which of `heavy` importing `module` alone loads."""
    script = (f"import sys\nimport {module}\n"
              f"print(','.join(m for m in {heavy!r} if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", script], cwd=REPO_ROOT, capture_output=True,
                            text=True, check=True, timeout=300)
    return [m for m in result.stdout.strip().split(",") if m]


@pytest.mark.parametrize(("module", "heavy"), [
    ("solver.games", ("sqlalchemy", "alembic", "sklearn")),
    ("app.main", ("sklearn",)),
])
@pytest.mark.slow
def test_an_import_loads_only_what_it_needs(module: str, heavy: tuple[str, ...]) -> None:
    assert _loaded(module, heavy) == []


def test_the_check_sees_a_heavy_import() -> None:
    assert _loaded("strategies", ("sqlalchemy", "sklearn")) == ["sqlalchemy"]

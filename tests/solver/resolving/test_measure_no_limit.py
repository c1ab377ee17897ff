"""Re-solving in no-limit betting, judged exactly on a member whose real tree compiles: the
safe gadgets, re-solving with every size in the subgame, are less exploitable than the
blueprint played by translation alone; re-solving as if the opponent's range were known is
far more exploitable (the no-limit row of Libratus's Table 1, in small)."""

from __future__ import annotations

from functools import cache

import pytest

from solver.resolving.measure_exactly import Row
from solver.resolving.measure_no_limit import blueprint, main, no_limit_table


@cache
def _rows() -> dict[str, Row]:
    made = blueprint(epochs=25)
    return {row.mode: row for row in no_limit_table(made, 1, 300)}


@pytest.mark.slow
def test_safe_resolving_takes_back_part_of_what_translation_loses() -> None:
    rows = _rows()
    own = rows["blueprint in its own game"].exploitability
    translated = rows["translation alone"].exploitability
    assert translated > 3 * own  # the other sizes cost the blueprint most of what it loses
    for mode in ("resolve", "maxmargin"):
        assert rows[mode].exploitability < 0.9 * translated, mode
        assert rows[mode].smallest_margin > -1e-2 * translated, mode  # up to the solves' error
        assert rows[mode].resolves == rows["unsafe"].resolves > 500
    assert rows["unsafe"].exploitability > 3 * translated
    values = {round(row.value, 2) for row in rows.values()}
    assert len(values) == 1, values  # the equilibrium value moves little; the best response a lot


def test_a_limit_member_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["holdem-mini"])
    assert "is not a no-limit member" in capsys.readouterr().err

"""The page's number formats."""

from __future__ import annotations

import pytest

from app.web.format import fmt_signed


@pytest.mark.parametrize(("x", "digits", "text"), [
    (1000.0, 0, "+1000"), (-500.0, 0, "−500"), (0.056, 3, "+0.056"), (-1.0, 3, "−1"),
    (2.50, 2, "+2.5"), (0.0004, 3, "0"), (None, 3, "—"),
])
def test_signed_numbers_keep_their_whole_part(x: float | None, digits: int, text: str) -> None:
    assert fmt_signed(x, digits) == text

"""The API's query parameters as the OpenAPI schema writes them.

A query string carries text, so pydantic reads numbers and booleans from it in its lax mode, and
that reads more than the schema says: ``5.0``, ``5_000``, ``+5`` and padded digits as integers,
``yes``, ``on``, ``1`` and ``T`` as true. An integer here is written in digits, a boolean is
``true`` or ``false``; anything else is a 422 that names the parameter. (The JSON bodies are
read in pydantic's strict mode instead: `app.schemas.hands`.)
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import BeforeValidator

_DIGITS = re.compile(r"[0-9]+")


def _digits(value: Any) -> Any:
    if isinstance(value, str) and not _DIGITS.fullmatch(value):
        raise ValueError("an integer is written in digits (0-9) only")
    return value


def _true_or_false(value: Any) -> Any:
    if isinstance(value, str):
        if value not in ("true", "false"):
            raise ValueError("a boolean is written true or false")
        return value == "true"
    return value


Digits = BeforeValidator(_digits)
"""For an integer query parameter, after its `Query` (before it, FastAPI writes the bounds into
the schema as ``ge``/``le`` instead of ``minimum``/``maximum``):
``Annotated[int, Query(ge=1), Digits]``."""
QueryBool = Annotated[bool, BeforeValidator(_true_or_false)]

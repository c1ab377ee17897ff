"""The pieces every schema module shares: frozen models and UTC timestamps."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


UTCDateTime = Annotated[datetime, AfterValidator(_aware)]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)

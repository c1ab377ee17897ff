"""Players: accounts, API keys, a player's profile and the leaderboards."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from app.schemas.base import Frozen, UTCDateTime
from app.schemas.matches import MatchSummary

KeyKind = Literal["person", "program"]
BoardKind = Literal["people", "programs"]


class AccountOut(Frozen):
    username: str
    on_boards: bool = Field(description="Shown on the leaderboards (a player may opt out).")
    created: UTCDateTime


class ApiKeyOut(Frozen):
    key_id: str
    name: str
    kind: KeyKind = Field(description="Who plays with it: a person, or a program (a bot of "
                          "the player's own); the boards keep the two apart.")
    created: UTCDateTime


class ApiKeyCreated(ApiKeyOut):
    key: str = Field(description="The key itself, shown only this once (the database keeps "
                     "its SHA-256): send it as 'Authorization: Bearer <key>'.")


class Rate(Frozen):
    """A mean result per hand with its 95% interval (Student's t), in chips and in the
    game's unit if it has one."""

    hands: int
    mean: float | None
    ci95_low: float | None
    ci95_high: float | None
    unit: str | None = Field(default=None, description="The game's unit (mbb/hand), if any.")
    mean_in_unit: float | None = None
    ci95_low_in_unit: float | None = None
    ci95_high_in_unit: float | None = None


class AccuracyPoint(Frozen):
    day: date
    hands: int
    decisions: int
    accuracy: float | None = Field(description="Share of the day's decisions that were "
                                   "accurate.")


class StyleFigure(Frozen):
    name: str
    title: str
    meaning: str
    kind: Literal["share", "ratio"]
    count: float
    out_of: float
    value: float | None = Field(description="count / out_of: your figure.")
    equilibrium: float | None = Field(description="The equilibrium's own figure from the seats "
                                      "you played (mixed as you played them).")
    equilibrium_by_seat: list[float | None]
    equilibrium_exact: bool = Field(description="Computed exactly from the stored strategy "
                                    "(else estimated from hands it played against itself).")


class GameRecord(Frozen):
    game: str
    title: str
    kind: KeyKind = Field(description="As a person, or through a program's API key.")
    hands: int
    forfeits: int
    raw: Rate
    adjusted: Rate = Field(description="The luck-adjusted result per hand.")
    accuracy: float | None
    accuracy_series: list[AccuracyPoint]
    style: list[StyleFigure]


class Profile(Frozen):
    account: AccountOut
    matches: list[MatchSummary] = Field(description="Every match of the account, newest "
                                        "first, from every device and key.")
    games: list[GameRecord]
    keys: list[ApiKeyOut]


class BoardEntry(Frozen):
    rank: int
    name: str
    hands: int
    forfeits: int
    adjusted: Rate
    raw: Rate


class Leaderboard(Frozen):
    game: str
    title: str
    kind: BoardKind
    min_hands: int
    thresholds: list[int] = Field(description="The minimum numbers of hands a board can ask.")
    ranked_by: str
    entries: list[BoardEntry]

"""Players: accounts, API keys, a player's profile and the leaderboards."""

from __future__ import annotations

from datetime import date
from typing import Literal

from pydantic import Field

from app.schemas.base import Frozen, UTCDateTime
from app.schemas.matches import MatchSummary

PlayKind = Literal["person", "program", "guest"]
"""How hands were played (`app.db.models.PERSON`, `PROGRAM`, `GUEST`)."""
BoardKind = Literal["people", "programs"]


class AccountOut(Frozen):
    username: str
    on_boards: bool = Field(description="Shown on the leaderboards (a player may opt out).")
    created: UTCDateTime


class ApiKeyOut(Frozen):
    key_id: str
    name: str
    kind: Literal["program"] = Field(
        default="program", description="Always ``program``: whatever is played with a key "
        "counts on the programs' boards (the people's count what is played on the pages "
        "while signed in). Kept for the clients that read it.")
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
    equilibrium_pending: bool = Field(
        default=False, description="The equilibrium's figures of this solve are not worked "
        "out yet (a store built before they were kept with each solve): the app's background "
        "build, or `python -m solver figures`, works them out.")


class GameRecord(Frozen):
    game: str
    opponent: str = Field(default="equilibrium", description="Whom these matches were played "
                          "against (each opponent has its own figures and board).")
    title: str
    kind: PlayKind = Field(description="``person``: played on the pages while signed in "
                           "(the people's boards); ``program``: played over the API, with a "
                           "key or a match token (the programs' boards); ``guest``: played on "
                           "the pages before signing in, then made the account's (on no "
                           "board).")
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
    reference: float | None = Field(
        default=None, description="What the board's reference play (`Leaderboard.reference`) "
        "scores per hand from this player's seats: the skill figure's yardstick.")
    reference_in_unit: float | None = None


class Leaderboard(Frozen):
    game: str
    opponent: str = Field(default="equilibrium", description="The board of the matches "
                          "against this opponent (each has its own).")
    title: str
    kind: BoardKind
    min_hands: int
    thresholds: list[int] = Field(description="The minimum numbers of hands a board can ask.")
    ranked_by: str
    entries: list[BoardEntry]
    reference: str = Field(default="", description="Whose play the skill figure is measured "
                           "against: ``equilibrium play`` (the game's value in each seat), or "
                           "``a best reply`` to an exploitable opponent (what the coach judges "
                           "against there).")
    reference_words: str = Field(default="", description="What that play scores, from the "
                                 "stored solve, in a sentence.")

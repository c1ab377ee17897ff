"""What the service layer returns and the REST API serialises: frozen pydantic models.

The HTML pages render the very same objects, so both front ends show the same facts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field


def _aware(value: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored is UTC."""
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


UTCDateTime = Annotated[datetime, AfterValidator(_aware)]


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)


# ---- games and strategies --------------------------------------------------------------------


class SolveSummary(Frozen):
    solve_id: int
    algorithm: str
    iterations: int
    seconds: float
    exploitability: float = Field(description="Exploitability of the stored strategy.")
    value: float = Field(description="Value of the game for seat 0 under the stored strategy.")
    created: UTCDateTime


class GameSummary(Frozen):
    name: str
    title: str
    rules: list[str] = Field(description="The rules in two lines.")
    value: float | None = Field(
        description="Game value for seat 0 (first to act) from the stored solve; null if the "
        "game was not solved."
    )
    reference_value: float | None = Field(description="Published game value for seat 0.")
    solve: SolveSummary | None
    available: bool = Field(description="True if a solved strategy is stored: the bot can play.")


class GameDetail(GameSummary):
    infosets: int = Field(description="Information sets in the stored strategy.")
    solver_version: str | None


class ActionProbability(Frozen):
    label: str
    probability: float


class InfosetEntry(Frozen):
    key: str
    player: int = Field(description="Seat to act at this information set (0 or 1).")
    actions: list[ActionProbability]


class StrategyPage(Frozen):
    game: str
    solve_id: int
    total: int = Field(description="Information sets matching the filter.")
    offset: int
    infosets: list[InfosetEntry]


class TracePointOut(Frozen):
    iteration: int
    seconds: float
    exploitability: float
    value: float


class Convergence(Frozen):
    game: str
    solve_id: int
    algorithm: str
    points: list[TracePointOut]


# ---- matches and hands -----------------------------------------------------------------------


class MatchCreate(BaseModel):
    model_config = ConfigDict(extra="forbid")
    game: str = Field(examples=["kuhn"], max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                      description="A game's name, as listed by GET /api/v1/games.")


class MatchCreated(Frozen):
    match_id: str
    game: str
    token: str = Field(
        description="Bearer token for this match's endpoints. Shown once: only its hash is kept."
    )
    created: UTCDateTime


class ActionRequest(BaseModel):
    model_config = ConfigDict(extra="forbid")
    action: str = Field(min_length=1, max_length=32, examples=["bet"])
    seq: int | None = Field(
        default=None, ge=0, le=1_000_000, examples=[3],
        description="The ``seq`` of the hand view the action was chosen on. If the hand has "
        "changed since (a double click, another tab, a retry), nothing is played: 409.",
    )


Actor = Literal["chance", "you", "bot"]


class Event(Frozen):
    seq: int
    actor: Actor
    seat: int | None = Field(
        description="Seat that acted; for a private deal, the seat dealt to; else null."
    )
    label: str | None = Field(description="What happened; null while it is hidden from you.")
    hidden: bool
    text: str


class PublicState(Frozen):
    """What both players see. Fields a game does not have are null."""

    pot: int | None = None
    contributions: list[int] | None = Field(
        default=None, description="Chips put in by seat 0 and seat 1 (antes included)."
    )
    round: int | None = None
    board: str | None = None
    bids: list[str] | None = None
    last_bid: str | None = None


class BotDecision(Frozen):
    seq: int
    infoset: str
    chosen: str
    probabilities: list[ActionProbability]


class HandOutcome(Frozen):
    human_payoff: float
    human_private_view: str
    bot_private_view: str
    bot_decisions: list[BotDecision]


HandStatus = Literal["in_progress", "finished"]


class HandView(Frozen):
    """A hand as the human player sees it: the bot's private information only once it ended."""

    hand_id: str
    match_id: str
    game: str
    number: int
    human_seat: int
    bot_seat: int
    status: HandStatus
    to_act: Literal["you", "bot", "chance"] | None
    private_view: str = Field(description="Your card or die.")
    public: PublicState
    events: list[Event]
    new_events: list[Event] = Field(
        description="The events this request caused: your action and the bot's replies."
    )
    legal_actions: list[str] = Field(description="Your legal actions; empty if not your turn.")
    hint: list[ActionProbability] | None = Field(
        default=None, description="Equilibrium strategy at your information set, if asked for."
    )
    outcome: HandOutcome | None = Field(default=None, description="Set once the hand ended.")
    seq: int = Field(
        description="Actions recorded in the hand so far (chance included): the version of "
        "this view. Send it back with your action to have a stale action refused (409).",
    )


class HandSummary(Frozen):
    hand_id: str
    number: int
    human_seat: int
    status: HandStatus
    human_payoff: float | None
    created: UTCDateTime
    finished: UTCDateTime | None


class SeriesPoint(Frozen):
    number: int
    payoff: float
    cumulative: float
    expected_cumulative: float | None


class MatchResults(Frozen):
    match_id: str
    game: str
    created: UTCDateTime
    hands_played: int = Field(description="Finished hands.")
    total: float
    mean: float | None
    std: float | None = Field(description="Sample standard deviation; null under 2 hands.")
    ci95_low: float | None
    ci95_high: float | None
    game_value: float | None = Field(description="Game value for seat 0 used for expectations.")
    expected_total: float | None = Field(
        description="Equilibrium expectation of your winnings for the seats you played."
    )
    series: list[SeriesPoint]
    hands: list[HandSummary] = Field(description="Newest first.")
    current_hand_id: str | None = Field(description="The hand in progress, if any.")


class MatchSummary(Frozen):
    match_id: str
    game: str
    created: UTCDateTime
    hands: int
    current_hand_id: str | None


class Health(Frozen):
    status: Literal["ok", "unavailable"]
    games: list[str] = Field(description="Games the bot can play now.")
    unsolved: list[str]
    store: str
    store_error: str | None = None


# ---- errors ----------------------------------------------------------------------------------


class ErrorOut(Frozen):
    detail: str


class IllegalActionOut(ErrorOut):
    legal_actions: list[str] = Field(description="Your legal actions now (empty if none).")


class HandInProgressOut(ErrorOut):
    hand_id: str = Field(description="The unfinished hand.")

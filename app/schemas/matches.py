"""A match's results, its summary, the app's health and the error bodies."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.schemas.base import Frozen, UTCDateTime
from app.schemas.games import BuildProgress, OpponentOut
from app.schemas.hands import HandStatus

ACCURACY = ("the share of your decisions that gave up at most 1% of the pot (of the stake "
            "of 1 in games without a pot) against the equilibrium")

class HandSummary(Frozen):
    hand_id: str
    number: int
    human_seat: int
    status: HandStatus
    human_payoff: float | None
    adjusted_payoff: float | None
    ev_lost: float | None = Field(description="What your decisions gave up against the "
                                  "equilibrium in this hand.")
    created: UTCDateTime
    finished: UTCDateTime | None
    forfeited: bool = Field(default=False, description="Left unfinished too long and settled "
                            "as a forfeit at your decision.")


class SeriesPoint(Frozen):
    number: int = Field(description="Hand number; hands 1 .. number are finished.")
    payoff: float
    cumulative: float
    expected_cumulative: float | None
    adjusted_cumulative: float | None = Field(
        description="Sum of the luck-adjusted results so far.")


class CostlyDecision(Frozen):
    hand_id: str
    number: int
    seq: int
    lost_vs_equilibrium: float


Verdict = Literal["too_few_hands", "consistent", "better", "worse", "no_expectation"]


class RatesInUnit(Frozen):
    """A match's rates per hand in the game's usual unit (mbb/hand for poker): the chips
    figures times `per_chip`."""

    unit: str
    meaning: str
    per_chip: float
    mean: float | None
    ci95_low: float | None
    ci95_high: float | None
    expected_mean: float | None
    adjusted_mean: float | None
    adjusted_ci95_low: float | None
    adjusted_ci95_high: float | None


class WinChances(Frozen):
    """For a game whose every hand is won or lost (+1 or -1), the results as the
    share of hands won, (1 + mean) / 2, beside the bot's value as a chance of winning."""

    won: float | None
    ci95_low: float | None
    ci95_high: float | None
    adjusted: float | None = Field(description="The luck-adjusted chance of winning.")
    adjusted_ci95_low: float | None
    adjusted_ci95_high: float | None
    expected: float | None = Field(description="Your chance of winning if you played the "
                                   "bot's strategy from your seats (the bot's solve).")


class MatchResults(Frozen):
    match_id: str
    game: str
    created: UTCDateTime
    hands_played: int = Field(description="Finished hands.")
    total: float
    mean: float | None
    std: float | None = Field(description="Sample standard deviation; null under 2 hands.")
    ci95_low: float | None = Field(
        description="95% confidence interval of the mean (Student's t); null until 5 hands "
        "with some spread (``ci95_note`` says why).")
    ci95_high: float | None
    ci95_note: str | None = Field(
        default=None, description="Why there is no interval yet (null when there is one).")
    game_value: float | None = Field(description="Game value for seat 0 used for expectations.")
    game_value_ci95: float | None = Field(
        default=None, description="Set where the game value is only estimated (by the bot's "
        "self-play): the half-width of its 95% interval.")
    expected_total: float | None = Field(
        description="Equilibrium expectation of your winnings for the seats you played."
    )
    expected_mean: float | None
    verdict: Verdict = Field(
        description="How the mean compares with the expectation: ``too_few_hands`` before "
        "30 hands or while the results have no spread, then ``consistent`` (expectation "
        "inside the interval), ``better`` or ``worse``.")
    verdict_text: str
    verdict_basis: Literal["luck_adjusted", "raw"] | None = Field(
        default=None, description="The interval the verdict judged: the luck-adjusted one "
        "where every hand has a luck-adjusted result and it has an interval, else the raw one; "
        "null without a verdict.")
    adjusted_hands: int = Field(description="Finished hands with a luck-adjusted result.")
    hands_analysing: int = Field(
        default=0, description="Finished hands whose coach's figures are still being computed "
        "(a second or two each in the big games); they join the luck-adjusted results then.")
    hands_needed: int | None = Field(
        default=None, description="How many more hands, at your current mean and spread, "
        "before the raw 95% interval excludes the expected result (0: it does already; null: "
        "no interval yet, or a mean exactly on it).")
    adjusted_hands_needed: int | None = Field(
        default=None, description="The same for the luck-adjusted results: what the "
        "adjustment saves is the difference.")
    win_chances: WinChances | None = Field(
        default=None, description="For a game won or lost, the results as chances of "
        "winning.")
    adjusted_mean: float | None = Field(
        description="Mean luck-adjusted result per hand: an unbiased estimate of your expected "
        "winnings per hand against the bot, with far less spread than the raw mean.")
    adjusted_ci95_low: float | None
    adjusted_ci95_high: float | None
    adjusted_ci95_note: str | None = Field(
        default=None, description="Why there is no luck-adjusted interval yet (null when "
        "there is one).")
    ev_lost: float | None = Field(description="What your decisions gave up against the "
                                  "equilibrium (the best reply, against an exploitable "
                                  "opponent) in all: the hands' ``ev_lost`` added up, the "
                                  "coach's figures for your decisions alone (none of a hand's "
                                  "luck terms: see ``outcome.adjusted_parts``); null until "
                                  "every hand is analysed.")
    accuracy: float | None = Field(description="Share of accurate decisions: " + ACCURACY)
    costliest: list[CostlyDecision] = Field(description="Your costliest decisions, costliest "
                                            "first, those that gave up anything (more than "
                                            "0.0005); each opens its hand's replay.")
    series: list[SeriesPoint] = Field(
        description="Cumulative winnings after finished hands, at most 500 points spread "
        "evenly over the match (the last hand always included).")
    hands: list[HandSummary] = Field(description="A page of the hands, newest first.")
    next_cursor: int | None = Field(
        description="Pass as ``before`` for the next (older) page; null on the last page.")
    current_hand_id: str | None = Field(description="The hand in progress, if any.")
    in_unit: RatesInUnit | None = Field(
        default=None, description="The rates per hand above in the game's usual unit "
        "(mbb/hand for poker), where it has one beside chips.")
    opponent: OpponentOut | None = Field(
        default=None, description="Whom the match is played against, and how exploitable it "
        "is; null if its solve is no longer stored.")
    best_reply_mean: float | None = Field(
        default=None, description="What a perfect exploiter (the best reply to the bot) would "
        "win per hand in the seats you played (before any hand: seats alternating).")
    target_text: str | None = Field(
        default=None, description="That target beside your own rate, in a sentence.")


class MatchSummary(Frozen):
    match_id: str
    game: str
    title: str = Field(description="The game's title, as the pages write it.")
    opponent: str = Field(description="Whom the match is played against, as the API names it: "
                          "`equilibrium`, or one of the game's exploitable opponents.")
    opponent_title: str | None = Field(description="That opponent in words; null if its solve "
                                       "is no longer stored.")
    created: UTCDateTime
    hands: int = Field(description="Hands dealt, the one in progress included.")
    total: float = Field(description="What the player has won over the finished hands.")
    current_hand_id: str | None


class Health(Frozen):
    status: Literal["ok", "unavailable"]
    games: list[str] = Field(description="Games the bot can play now.")
    unsolved: list[str]
    incomplete: dict[str, str] = Field(
        default_factory=dict,
        description="Games whose stored solve lacks a piece it needs (so the bot does not play "
        "them), each with why and how to build it again.")
    store: str = Field(description="The strategy store's file name.")
    store_error: str | None = None


# ---- errors ----------------------------------------------------------------------------------


class ErrorOut(Frozen):
    detail: str


class GameNotReadyOut(ErrorOut):
    building: BuildProgress | None = Field(
        description="The game's background build: how far it has come, or why it failed; null "
        "if none is under way.")


class IllegalActionOut(ErrorOut):
    legal_actions: list[str] = Field(description="Your legal actions now (empty if none).")


class HandInProgressOut(ErrorOut):
    hand_id: str = Field(description="The unfinished hand.")

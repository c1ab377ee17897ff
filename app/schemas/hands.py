"""Matches created and hands played: requests, hand views, replays and exports.

The requests are read in pydantic's strict mode: a field takes only the JSON type the schema
gives it (``"2"`` and ``true`` are not the integer 2 or 1), else a 422 names the field.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from app.schemas.base import Frozen, UTCDateTime
from app.schemas.games import ActionProbability
from solver.games import game_names

# ---- matches and hands -----------------------------------------------------------------------


class MatchCreate(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)
    game: str = Field(examples=list(game_names()[:1]), max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
                      description="A game's name, as listed by GET /api/v1/games.")
    opponent: str = Field(
        default="equilibrium", max_length=32, pattern=r"^[A-Za-z0-9_-]+$",
        description="Whom to play: ``equilibrium`` (the default: the game's solved strategy), "
        "or one of the game's exploitable opponents as GET /api/v1/games lists them "
        "(``opponents``): early solves, or the equilibrium bent one way.")


class MatchCreated(Frozen):
    match_id: str
    game: str
    token: str = Field(
        description="Bearer token for this match's endpoints. Shown once: only its hash is kept."
    )
    created: UTCDateTime
    opponent: str = Field(default="equilibrium", description="Whom the match is played against.")


def _whole(value: Any) -> Any:
    """A number without a fractional part as the integer it is: JSON Schema's ``integer``
    counts ``3.0`` as one (so does a schema-built client), and strict mode would refuse it."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


def _seq_is_required(schema: dict[str, Any]) -> None:
    """The schema requires ``seq``: what a client built from it must send (see
    `ActionRequest`)."""
    seq = schema["properties"]["seq"]
    seq.update(next(s for s in seq.pop("anyOf") if s.get("type") == "integer"))
    seq.pop("default", None)
    schema["required"] = [*schema.get("required", []), "seq"]


class ActionRequest(BaseModel):
    """An action, and the ``seq`` of the hand view it was chosen on: with it, the action is
    played once however often it is sent.

    Clients written when an ``Idempotency-Key`` header alone was enough may still leave
    ``seq`` out and send the header: the action is still played once. Without either it is
    refused (422) and nothing is played."""

    model_config = ConfigDict(extra="forbid", strict=True, json_schema_extra=_seq_is_required)
    action: str = Field(min_length=1, max_length=32, examples=["bet"], description=(
        "A label among ``legal_actions``, or the ``action`` of the hand view's "
        "``amount_choice`` together with an ``amount``."))
    amount: Annotated[int, Field(ge=0, le=1_000_000_000), BeforeValidator(_whole)] | None = Field(
        default=None, examples=[300], description=(
            "With the ``amount_choice``'s action: the chips the raise goes *to* (ACPC's "
            "``r300``), any whole number in its range; otherwise leave it out."))
    seq: Annotated[int, Field(ge=0, le=1_000_000), BeforeValidator(_whole)] | None = Field(
        default=None, examples=[3],
        description="The ``seq`` of the hand view the action was chosen on. If the hand has "
        "changed since (a double click, another tab, a retry without a key), nothing is "
        "played: 409. With an ``Idempotency-Key`` header as well, a retry of the same "
        "request gets the first answer again instead.",
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
    round: int | None = Field(
        default=None, description="The round it belongs to, in a game that counts rounds (a "
        "betting round; a round of a match, which the table shows apart).")


class PieceOut(Frozen):
    """A card, a die or a move as drawn. ``text`` is its notation: ``Ks`` (rank, then suit
    letter c, d, h or s; no suit where the deck has none), ``3`` for a die, ``rock``."""

    kind: Literal["card", "die", "move"]
    text: str
    rank: str | None = None
    suit: str | None = None
    face: int | None = None


class PublicState(Frozen):
    """What both players see. Fields a game does not have are null (or empty)."""

    pot: int | None = None
    contributions: list[int] | None = Field(
        default=None, description="Chips put in by seat 0 and seat 1 (antes and blinds "
        "included)."
    )
    round: int | None = None
    rounds: int | None = None
    board: list[PieceOut] = Field(default=[], description="Public cards dealt so far.")
    board_slots: int = Field(default=0, description="Public cards the game deals in all.")
    bids: list[str] | None = None
    last_bid: str | None = None
    pieces_held: list[int] | None = Field(
        default=None, description="How many dice each seat holds, where that varies.")
    betting: str | None = Field(
        default=None, description="The betting so far in the game's compact notation.")
    finished_rounds: list[RoundOut] = Field(
        default=[], description="The rounds played so far, in a game played in rounds.")
    your_win_chance: float | None = Field(
        default=None, description="Your probability of winning the whole game from the start "
        "of this round if both play the solved strategies (where the game knows it).")


class RoundOut(Frozen):
    """A finished round of a game played in rounds (a match of several rounds)."""

    number: int
    your_pieces: list[PieceOut]
    bot_pieces: list[PieceOut]
    lost_by: Literal["you", "bot"]
    explanation: str


class ActionGroupOut(Frozen):
    """Choices shown together (a grid of ``columns`` buttons, 0 for one row); those not in
    ``legal_actions`` are shown disabled so that the grid keeps its shape."""

    title: str
    labels: list[str]
    columns: int


class NamedAmount(Frozen):
    name: str = Field(examples=["pot"])
    amount: int
    label: str = Field(description="The move's label among ``legal_actions``.")


class AmountChoiceOut(Frozen):
    """A move whose size you choose (a no-limit raise): send ``{"action": action, "amount":
    N}`` with any whole N from ``min`` to ``max`` (chips the raise goes *to*, as ACPC writes
    it), or the move's label (``raise to N``)."""

    action: str = Field(examples=["raise"])
    min: int
    max: int
    quick: list[NamedAmount] = Field(
        description="Amounts players reach for (the smallest raise, half the pot, the pot, "
        "all-in), inside the range.")
    words: str = Field(examples=["raise to any amount from 4 to 12"])
    prompt: str = Field(examples=["raise to"], description="The move before its amount.")


class BotDecision(Frozen):
    seq: int
    infoset: str
    chosen: str
    probabilities: list[ActionProbability]


class ActionValue(Frozen):
    label: str
    probability: float = Field(description="The equilibrium's probability of the action.")
    value: float = Field(description="Q(I, a): your expected winnings from here if you take "
                         "it and go on with the equilibrium, against the bot.")


class CoachDecision(Frozen):
    """One of your decisions, judged against the stored equilibrium, or, in a match against
    an exploitable bot, against the best reply to that bot."""

    seq: int
    infoset: str
    chosen: str
    actions: list[ActionValue]
    value: float = Field(description="V(I): what the equilibrium's mix is worth here (against "
                         "an exploitable bot: what the best reply wins from here).")
    lost_vs_equilibrium: float = Field(description="V(I) - Q(I, chosen): what the choice gave "
                                       "up against the reference (``judged_against``).")
    lost_vs_best_reply: float = Field(description="max Q(I, .) - Q(I, chosen).")
    judged_against: Literal["equilibrium", "best_reply"] = Field(
        default="equilibrium", description="``equilibrium``, or ``best_reply`` in a match "
        "against an exploitable bot: the actions' probabilities are then the best reply's, "
        "and their values what each wins followed by the best reply.")
    best_reply: list[str] = Field(
        default_factory=list, description="The actions a best reply to the bot takes here "
        "(the best by value, ties all).")
    advice: str = Field(default="", description="The judgement in a sentence, e.g. ``the best "
                        "reply plays bet here (worth +0.500); you chose check and gave up "
                        "0.400``.")
    pot: int | None
    share_of_pot_lost: float | None = Field(
        description="lost_vs_equilibrium as a share of the pot at the decision.")
    accurate: bool
    exact: bool = Field(
        default=True, description="False where the values are an unbiased estimate from "
        "sampled deals (early decisions of the big card games), not exact.")


PartName = Literal["start", "decisions", "bot", "opening", "habits"]


class ResultPart(Frozen):
    """One term of a hand's luck-adjusted result, named for what it is; the terms add up to
    ``adjusted_payoff``."""

    name: PartName = Field(description="``start``: what the result starts from (the value "
                           "of your seat, or of your first decision where that is not known "
                           "exactly, whose luck the opening's term then takes out); "
                           "``decisions``: what your decisions gained or gave up, the sum of "
                           "the coach's figures; ``bot``: the luck of a bot's moves worked out "
                           "at the table; ``opening``: the luck of the hand's opening, taken "
                           "out as learnt from the match's earlier hands; ``habits``: the luck "
                           "of where your own habits led.")
    value: float
    words: str = Field(description="What it is, in a sentence.")


class HandOutcome(Frozen):
    human_payoff: float
    adjusted_payoff: float | None = Field(
        description="Luck-adjusted result (AIVAT): your result without the luck of the cards "
        "or dice and of the bot's choices, an unbiased estimate of your expected winnings with "
        "far less spread. Null while the hand is being analysed or where it cannot be.")
    adjusted_parts: list[ResultPart] | None = Field(
        default=None, description="``adjusted_payoff`` in the terms that add up to it, each "
        "named for what it is (null where it has none, or the hand was analysed before they "
        "were kept); a term that is zero is left out, except the decisions'.")
    coach: list[CoachDecision] | None = Field(
        description="Each of your decisions judged (null while the hand is being analysed or "
        "where it cannot be).")
    analysis: Literal["done", "pending", "none"] = Field(
        default="none", description="``pending`` while the coach's figures are being "
        "computed (a second or two after the hand, in the big games): look again.")
    human_private_view: str
    bot_private_view: str
    human_pieces: list[PieceOut]
    bot_pieces: list[PieceOut]
    explanation: str = Field(description="Why the hand ended as it did.")
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
    private_view: str = Field(description="Your cards, dice or move, in their notation.")
    private_pieces: list[PieceOut]
    bot_pieces_hidden: int = Field(description="How many pieces the bot holds face down.")
    public: PublicState
    events: list[Event]
    new_events: list[Event] = Field(
        description="The events this request caused: your action and the bot's replies."
    )
    legal_actions: list[str] = Field(description="Your legal actions; empty if not your turn.")
    openspiel_information_state: str | None = Field(
        default=None, description="At your turn, in a game OpenSpiel also has: your "
        "information state as OpenSpiel's information_state_string names it, so that an "
        "OpenSpiel policy can be queried directly.")
    action_groups: list[ActionGroupOut] = Field(
        description="How a table draws your choices; empty if not your turn.")
    amount_choice: AmountChoiceOut | None = Field(
        default=None, description="At your turn, where you choose a move's size: its legal "
        "range.")
    hint: list[ActionProbability] | None = Field(
        default=None, description="Equilibrium strategy at your information set, if asked for."
    )
    outcome: HandOutcome | None = Field(default=None, description="Set once the hand ended.")
    seq: int = Field(
        description="Actions recorded in the hand so far (chance included): the version of "
        "this view. Send it back with your action to have a stale action refused (409).",
    )


class ReplayStep(Frozen):
    """One action of a finished hand, with the table after it."""

    seq: int
    actor: Actor
    label: str
    text: str
    public: PublicState = Field(description="The public state after this action.")
    bot_probabilities: list[ActionProbability] | None = Field(
        description="The bot's strategy where it chose this action.")
    coach: CoachDecision | None = Field(description="Where you chose this action: the coach.")


class HandReplay(Frozen):
    """A finished hand step by step, everything revealed."""

    hand_id: str
    match_id: str
    game: str
    number: int
    human_seat: int
    human_pieces: list[PieceOut]
    bot_pieces: list[PieceOut]
    steps: list[ReplayStep]
    outcome: HandOutcome


class ExportedAction(Frozen):
    seq: int
    actor: Actor
    label: str


class ExportedHand(Frozen):
    """A finished hand as a record: who held what, every action, the results."""

    hand_id: str
    number: int
    human_seat: int
    human_private: str
    bot_private: str
    board: list[str]
    actions: list[ExportedAction]
    betting: str | None
    human_payoff: float
    adjusted_payoff: float | None
    ev_lost: float | None
    finished: UTCDateTime | None


class HandExport(Frozen):
    match_id: str
    game: str
    hands: list[ExportedHand] = Field(description="Finished hands, newest first.")
    next_cursor: int | None = Field(
        description="Pass as ``before`` for the next (older) page; null on the last page.")


class HandHistoryPage(Frozen):
    """A page of a match's finished hands in the game's standard hand-history format."""

    match_id: str
    format: str = Field(description="The format, e.g. ``phh`` (Poker Hand History, as pokerkit "
                        "reads it) for poker.")
    text: str = Field(description="The hands, newest first, each a section named by its hand "
                      "number, so that pages joined make one file.")
    next_cursor: int | None = Field(
        description="Pass as ``before`` for the next (older) page; null on the last page.")

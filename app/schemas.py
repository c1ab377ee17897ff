"""What the service layer returns and the REST API serialises: frozen pydantic models.

The HTML pages render the very same objects, so both front ends show the same facts.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from solver.games import game_names

ACCURACY = ("the share of your decisions that gave up at most 1% of the pot (of the stake "
            "of 1 in games without a pot) against the equilibrium")

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
    exploitability: float | None = Field(
        description="Exploitability of the stored strategy in the real game; null where it "
        "could not be measured (a strategy of an abstraction too big to check exactly).")
    value: float = Field(description="Value of the game for seat 0 under the stored strategy.")
    value_ci95: float | None = Field(
        default=None, description="Half-width of the 95% interval of ``value`` where it is a "
        "sampled estimate (self-play of an abstract solve, whose exact value is unknown); null "
        "where ``value`` is exact.")
    created: UTCDateTime


class GameDescription(Frozen):
    """What a game is and how it is shown, from the game itself."""

    name: str
    title: str
    rules: list[str] = Field(description="The rules in two lines.")
    reference_value: float | None = Field(description="Published game value for seat 0.")
    pieces: Literal["cards", "dice", "moves"] = Field(
        description="What a player's private information is drawn as.")
    simultaneous: bool = Field(description="True if both players choose at once.")
    notes: list[str] = Field(description="What a newcomer needs beyond the two lines of rules.")
    openspiel: str | None = Field(
        description="The OpenSpiel game this one equals (``pyspiel.load_game`` string), if any.")
    listed: bool = Field(description="Shown in the lobby before it is solved; a variant that "
                         "is not is shown once solved.")
    build_command: str = Field(description="The command that builds its strategy.")
    result_unit: str | None = Field(
        default=None, description="The unit results are also given in (``mbb/hand`` for "
        "poker), beside chips.")
    hand_history_format: str | None = Field(
        default=None, description="The standard hand-history format a match's hands export "
        "to (``phh``, Poker Hand History, for poker), if the game has one.")


class BuildProgress(Frozen):
    """A game whose strategy is being built in the background (``python -m app`` starts the
    long builds after it serves the games that are ready)."""

    state: Literal["waiting", "building", "failed"]
    step: str | None = Field(default=None, description="What the build is doing now.")
    phase: int | None = Field(default=None, description="Which of its phases it is in (1 on).")
    phases: int | None = Field(default=None, description="How many phases the build has.")
    fraction: float | None = Field(
        default=None, description="How far the build of this game has come (0 to 1), by the "
        "time its phases are estimated to take.")
    step_fraction: float | None = Field(
        default=None, description="How much of the current step is done (0 to 1).")
    remaining_seconds: float | None = Field(
        default=None, description="About how long the build of this game still takes.")
    build_remaining_seconds: float | None = Field(
        default=None, description="About how long the whole background build still takes.")
    starts_in_seconds: float | None = Field(
        default=None, description="While waiting: about when its build starts.")
    message: str | None = Field(default=None, description="Why it failed, if it did.")


class GameSummary(GameDescription):
    value: float | None = Field(
        description="Game value for seat 0 (first to act) from the stored solve; null if the "
        "game was not solved."
    )
    value_ci95: float | None = Field(
        default=None, description="Set where ``value`` is only estimated (by self-play): the "
        "half-width of its 95% interval.")
    solve: SolveSummary | None
    available: bool = Field(description="True if a solved strategy is stored: the bot can play.")
    building: BuildProgress | None = Field(
        default=None, description="Set while its strategy is being built in the background.")


class GameDetail(GameSummary):
    infosets: int = Field(description="Information sets in the stored strategy.")
    solver_version: str | None
    history_legend: str = Field(description="How the public part of a key is written.")
    history_example: str


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


NodeKind = Literal["decision", "chance", "terminal"]


class TreeNode(Frozen):
    idx: int = Field(description="The node's number in the solve's public tree (root 0).")
    public: str
    label: str = Field(description="The move into this node from its parent ('' at the root).")
    kind: NodeKind
    actor: int = Field(description="The seat to move at a decision node, else -1.")


class RangeRow(Frozen):
    """One private state of the player to move at a public node."""

    key: str
    private: str
    actions: list[ActionProbability]
    values: list[float] | None = Field(description="Q(I, a) per action, where known.")
    value: float | None
    reach: float | None = Field(description="Probability that the equilibrium reaches this "
                                "information set, chance included.")
    share: float | None = Field(description="Its share of the player's range at this node: "
                                "the probability of holding it, given the public history.")


class GridCell(Frozen):
    """One class of hands (``AA``, ``AKs``, ``AKo``) at a public node."""

    label: str
    hands: int = Field(description="How many of the player's hands of this class are here.")
    share: float | None = Field(description="The class's share of the player's range here.")
    actions: list[ActionProbability] = Field(
        description="The equilibrium's probabilities, averaged over the class's hands "
        "weighted by how likely each is held here (uniform where nothing is known).")


class RangeGrid(Frozen):
    """The whole range as poker's grid of hand classes: pairs on the diagonal, suited hands
    above it, offsuit below; rows and columns are the ranks from the highest."""

    ranks: str
    cells: list[list[GridCell]]


class NodeView(Frozen):
    """A public node of the equilibrium: how it was reached, what follows, and the whole range
    of the player to move."""

    game: str
    solve_id: int
    node: TreeNode
    path: list[TreeNode] = Field(description="From the root to this node.")
    children: list[TreeNode]
    description: str
    range: list[RangeRow] = Field(description="A page of the player to move's private states.")
    total: int
    offset: int
    value: float | None = Field(description="The node's value for the player to move, "
                                "averaged over its range.")
    grid: RangeGrid | None = Field(
        default=None, description="The whole range by hand class, for two-card poker hands.")


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
    game: str = Field(examples=list(game_names()[:1]), max_length=64, pattern=r"^[A-Za-z0-9_-]+$",
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
        "changed since (a double click, another tab, a retry), nothing is played: 409. Send "
        "it, or an ``Idempotency-Key`` header, with every action (422 without either).",
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
    """One of your decisions, judged against the stored equilibrium."""

    seq: int
    infoset: str
    chosen: str
    actions: list[ActionValue]
    value: float = Field(description="V(I): what the equilibrium's mix is worth here.")
    lost_vs_equilibrium: float = Field(description="V(I) - Q(I, chosen).")
    lost_vs_best_reply: float = Field(description="max Q(I, .) - Q(I, chosen).")
    pot: int | None
    share_of_pot_lost: float | None = Field(
        description="lost_vs_equilibrium as a share of the pot at the decision.")
    accurate: bool


class HandOutcome(Frozen):
    human_payoff: float
    adjusted_payoff: float | None = Field(
        description="Luck-adjusted result: the seat's equilibrium value plus the sum over your "
        "decisions of Q(I, chosen) - V(I); an unbiased estimate of your expected winnings "
        "with far less spread. Null where the solve has no action values.")
    coach: list[CoachDecision] | None = Field(
        description="Each of your decisions judged (null where the solve has no values).")
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
    adjusted_mean: float | None = Field(
        description="Mean luck-adjusted result per hand: an unbiased estimate of your expected "
        "winnings per hand against the bot, with far less spread than the raw mean.")
    adjusted_ci95_low: float | None
    adjusted_ci95_high: float | None
    adjusted_ci95_note: str | None = Field(
        default=None, description="Why there is no luck-adjusted interval yet (null when "
        "there is one).")
    ev_lost: float | None = Field(description="What your decisions gave up against the "
                                  "equilibrium in all (expected_total minus the adjusted sum).")
    accuracy: float | None = Field(description="Share of accurate decisions: " + ACCURACY)
    costliest: list[CostlyDecision] = Field(description="Your costliest decisions, costliest "
                                            "first; each opens its hand's replay.")
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

"""Games, their solved strategies, the explorer's tree and the convergence trace."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from app.schemas.base import Frozen, UTCDateTime

# ---- games and strategies --------------------------------------------------------------------


class SolveSummary(Frozen):
    solve_id: int
    algorithm: str
    algorithm_words: str = Field(description="The algorithm in words.")
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
    abstraction: str | None = Field(
        default=None, description="The abstract game the strategy was solved in (its "
        "descriptor, e.g. ``recall=3``); null for the real game.")
    created: UTCDateTime


class BotNature(Frozen):
    """Whether the bot's strategy is an equilibrium of the game itself or of an abstraction."""

    exact: bool = Field(description="Solved in the real game, its exploitability measured "
                        "exactly; false for a strategy solved in an abstract game.")
    abstraction: str | None = Field(description="What the abstract game keeps and forgets, in "
                                    "words (after \"It plays …\"); null for an exact bot.")
    measured: str | None = Field(description="How exploitable such a strategy was measured to "
                                 "be in the real game, or that it was not; null for an exact "
                                 "bot (see ``solve.exploitability``).")
    plain: str | None = Field(default=None, description="What the abstract game forgets, in a "
                              "few everyday words; null for an exact bot.")
    summary: str = Field(default="", description="What the bot plays and how strong it is, in "
                         "a sentence made from the stored solve alone (its abstraction and its "
                         "exploitability where that was measured exactly).")


class SeatOut(Frozen):
    """A seat as the game's players name it."""

    name: str = Field(description="In a sentence: ``the big blind``, ``the first player``.")
    short: str = Field(description="For a label: ``big blind``, ``first``.")
    order: str = Field(description="When it acts: ``first``, ``second before the flop, first "
                       "after it``.")
    role: str | None = Field(description="Its name where it is more than its turn (``the big "
                             "blind``); null where the order says it all.")


OpponentKind = Literal["equilibrium", "early", "styled", "thinking"]


class OpponentOut(Frozen):
    """A bot to play against, and how exploitable it is, measured exactly."""

    name: str = Field(description="What to send as ``opponent`` when creating a match.")
    kind: OpponentKind = Field(description="``equilibrium``: the game's solved strategy; "
                               "``early``: the solver's average strategy after a few "
                               "iterations; ``styled``: the equilibrium bent one way; "
                               "``thinking``: a bot with a method of its own, its description "
                               "says how it thinks.")
    title: str
    description: str
    exploitability: float | None = Field(
        description="What a best reply to this bot wins per hand, seats alternating "
        "(NashConv / 2, exact); null where it could not be measured.")
    best_reply_by_seat: list[float] | None = Field(
        description="What a best reply wins per hand in seat 0 and in seat 1 (their mean is "
        "``exploitability``); null where not stored.")
    iterations: int | None = Field(description="Iterations of the solve behind it (an early "
                                   "solve's); null for a styled bot.")
    measured: str | None = Field(default=None, description="For the game's own bot where it "
                                 "plays an abstraction: what was measured of its strength "
                                 "(`bot.measured` of the game); null otherwise.")


class ChartSpot(Frozen):
    """A spot whose grid of hand classes players know as a chart (push or fold: who goes
    all-in, who calls); ``GET /games/{name}/grid`` with its board and line draws it."""

    title: str
    board: str
    line: str


class GameDescription(Frozen):
    """What a game is and how it is shown, from the game itself."""

    name: str
    title: str
    rules: list[str] = Field(description="The rules in two lines.")
    reference_value: float | None = Field(description="Published game value for seat 0.")
    pieces: Literal["cards", "dice", "moves"] = Field(
        description="What a player's private information is drawn as.")
    simultaneous: bool = Field(description="True if both players choose at once.")
    seats: list[SeatOut] = Field(description="Seat 0 and seat 1 as the game's players name "
                                 "them: values ``for seat 0`` are for ``seats[0].name``.")
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
    charts: list[ChartSpot] = Field(
        default_factory=list, description="The spots players know as charts, if any.")


class BuildProgress(Frozen):
    """A game whose strategy is being built in the background (``python -m app`` starts the
    long builds after it serves the games that are ready). Times are estimates: once the build
    has measured how fast this machine goes, from that (`solver.engine.estimates`), with a
    range (``_low`` to ``_high``; ``_high`` null where a step has run past anything its plan
    allowed, so that only the low end is known)."""

    state: Literal["waiting", "building", "failed"]
    making: str | None = Field(default=None, description="For a game that already plays: the "
                               "title of the opponent being built for it (null: the game's own "
                               "bot).")
    doing: str | None = Field(default=None, description="What the build is doing now, in "
                              "plain words.")
    phase_name: str | None = Field(default=None, description="The solver's name for it.")
    step: str | None = Field(default=None, description="The solver's name for the step under "
                             "way (its progress bar's).")
    phase: int | None = Field(default=None, description="Which of its phases it is in (1 on).")
    phases: int | None = Field(default=None, description="How many phases the build has.")
    fraction: float | None = Field(
        default=None, description="How far the build of this game has come (0 to 1), by the "
        "time it has taken and the time it is estimated still to take.")
    step_fraction: float | None = Field(
        default=None, description="How much of the current step is done (0 to 1).")
    remaining_seconds: float | None = Field(
        default=None, description="About how long the build of this game still takes (the "
        "likeliest figure).")
    remaining_low: float | None = None
    remaining_high: float | None = None
    build_remaining_seconds: float | None = Field(
        default=None, description="About how long the whole background build still takes.")
    build_remaining_low: float | None = None
    build_remaining_high: float | None = None
    starts_in_seconds: float | None = Field(
        default=None, description="While waiting: about when its build starts.")
    starts_in_low: float | None = None
    starts_in_high: float | None = None
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
    bot: BotNature | None = Field(default=None, description="Exact or abstract; null without a "
                                  "solve.")
    available: bool = Field(description="True if a solved strategy is stored: the bot can play.")
    building: BuildProgress | None = Field(
        default=None, description="Set while its strategy is being built in the background: "
        "for a game not yet available, its first bot; for an available one, a newer bot that "
        "takes the place of the one playing once it is stored.")
    opponents: list[OpponentOut] = Field(
        default_factory=list, description="Whom a match of it can be played against: the "
        "equilibrium first, then the exploitable opponents stored, the most exploitable "
        "first; empty without a solve.")


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
    hidden_moves: list[str] = Field(
        default=[], description="Where the move into this node is a secret choice (the other "
        "player cannot tell it from the others): every move that leads here; empty "
        "otherwise.")


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


class SpotMove(Frozen):
    """A step from a spot (a legal action, or back one action): the board and betting line of
    the spot it leads to."""

    letter: str
    label: str
    board: str
    line: str


class SpotGrid(Frozen):
    """The grid of hand classes at a spot named by a board and a betting line (for a solve
    with no public tree): the stored strategy's probabilities, and, for a bot that computes its
    strategy at play time, what it computes there."""

    game: str
    board: str
    line: str
    public: str = Field(description="The spot's public history, as the keys write it.")
    description: str
    player: int = Field(description="The seat to act.")
    moves: list[SpotMove]
    back: SpotMove | None = Field(description="The spot one action earlier, or none at the "
                                  "start.")
    blueprint: RangeGrid = Field(description="The stored strategy, each cell the plain mean "
                                 "over the class's hands the board leaves possible.")
    computed: RangeGrid | None = Field(
        default=None, description="What the bot computes at play time (a re-solve), where it "
        "differs from the stored strategy and was computed in time.")
    computed_note: str | None = Field(default=None, description="Why `computed` is missing.")


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

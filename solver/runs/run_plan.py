"""What a build will take before it runs: memory (checked against the machine's, see
`solver.engine.memory`) and its phases with their planned seconds and what each does in plain
words (the lobby's progress, and the estimates of `solver.engine.estimates`, which scale the
plan by how fast the machine has been so far).

Every long command (``solve``, ``recall``, ``match``, ``hulhe``) takes ``--dry-run``: it prints
its plan and whether it fits, and builds nothing. A real run checks the same plan before it
allocates, and declares its phases to the background build's status file. The times are
estimates from the measured runs of docs/ (a shared 2-core VM), scaled by the counts.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from solver.abstractions.dudo_recall.graph import graph_bounds, recall_estimate, recall_seconds
from solver.abstractions.dudo_recall.solve import REAL_GAME_NODES
from solver.abstractions.holdem.percentiles import (
    HIST_BINS,
    HIST_KIND,
    _cache_path,
    check_rules,
)
from solver.abstractions.holdem.sampled_cfr import (
    SampledSetup,
    opponent_layout,
    setup_layout,
    table_size,
)
from solver.algorithms.solve import memory_estimate
from solver.cards.strength import _cache_folder
from solver.engine import memory, progress
from solver.engine.memory import BASE_BYTES, MemoryEstimate, tree_bytes
from solver.engine.progress import Phase
from solver.games.base import CountsItself, Game, TimesItsCompile
from solver.games.dudo.game import DudoGame
from solver.games.dudo.rules import DudoRules
from solver.games.dudo.tree import tree_sizes
from solver.runs.dudo_match import EXACT_UP_TO, MatchSetup

STORE_SECONDS_PER_INFOSET = 6e-5
"""Writing a row to the store: 3.5 million rows of dudo-1v2 in about 200 s."""
SLOT_SECONDS = 3.5e-7
"""Compiling a tree, per (public node, private state) slot: dudo-1v2's 14 million in 5 s."""
SLOT_ITERATION_SECONDS = 2e-8
"""A CFR iteration, per slot: dudo-1v2, 359 iterations in 94 s."""
ITERATIONS_GUESS = 400
"""Iterations an exact solve to exploitability 1e-4 takes, for the estimate (359 to 1,229)."""
MATCH_SOLVE_SECONDS = 760.0
"""The default match setup's rounds on two Dask workers (839 s with storing, docs/games/dudo.md)."""
WORKER_START_SECONDS = 15.0
HULHE_TABLES_SECONDS = 60.0
"""The E[HS] tables of hold'em, once (then read from the solver cache): about 40 s."""
HULHE_BUCKETS_SECONDS = 480.0
"""Cutting the flop's, turn's and river's classes into percentile buckets, once (cached)."""
HULHE_HIST_SECONDS = 150.0
"""The flop's and turn's equity histograms and their k-means, once (cached): 1 to 2 min."""
SELF_PLAY_SECONDS = 60.0
MATCH_INFOSETS = 1_361_777
"""Information sets the default match setup's 25 rounds store."""

PHASE_WORDS = {
    "compiling the tree": "laying out every situation the game can reach",
    "building the abstract game": "building a smaller copy of the game, which remembers only "
                                  "the last few bids, for the bot to learn",
    "solving": "the bot learning its strategy by playing against itself, again and again",
    "solving the rounds": "the bot learning every round of the match (each count of dice "
                          "left) by playing against itself",
    "starting the workers": "starting the helper processes that share the work",
    "hand-strength tables": "working out how strong every hand is, on every board",
    "hand buckets": "grouping hands that play alike, so that the bot can learn them together",
    "self-play": "playing the finished bot against itself to measure what the game is worth",
    "storing": "saving the bot's strategy",
    "solving situations": "solving thousands of random spots of the game, the lessons of the "
                          "bot's value network",
    "training the network": "teaching a small neural network what those spots are worth",
    "re-solving every decision": "the bot thinking through, once, each decision it can meet, "
                                 "so that nobody waits for it at the table",
}
"""What each phase of a build does, for a player (the lobby shows these first)."""


def phase(name: str, seconds: float, *, fixed: bool = False) -> Phase:
    """The phase called `name`, planned at `seconds`, with its words."""
    return Phase(name, seconds, PHASE_WORDS.get(name, name), fixed)


@dataclass(frozen=True, slots=True)
class RunPlan:
    """What a run needs in memory and its phases, in order."""

    estimate: MemoryEstimate
    phases: tuple[Phase, ...]

    @property
    def seconds(self) -> float:
        return sum(p.seconds for p in self.phases)

    @property
    def fixed_seconds(self) -> float:
        """The part of `seconds` that runs for a fixed time, whatever the machine."""
        return sum(p.seconds for p in self.phases if p.fixed)

    def start(self) -> None:
        """Refuse the run if it does not fit (`memory.NotEnoughMemoryError`), else declare
        its phases to the status file."""
        memory.check(self.estimate)
        progress.declare_phases(self.phases)


def solve_plan(game: Game, iterations: int | None, seconds: float | None) -> RunPlan:
    """An exact solve of `game` (``python -m solver solve``)."""
    estimate = memory_estimate(game)
    sizes = game.sizes() if isinstance(game, CountsItself) else {}
    slots, infosets = sizes.get("slots"), sizes.get("information_sets")
    if not isinstance(slots, int) or not isinstance(infosets, int):
        return RunPlan(estimate, (phase("compiling the tree", 5.0), phase("solving", 30.0),
                                  phase("storing", 5.0)))
    solving = seconds or (iterations or ITERATIONS_GUESS) * slots * SLOT_ITERATION_SECONDS
    compiling = (game.compile_seconds() if isinstance(game, TimesItsCompile)
                 else slots * SLOT_SECONDS)
    return RunPlan(estimate, (phase("compiling the tree", compiling),
                              phase("solving", solving, fixed=bool(seconds)),
                              phase("storing", infosets * STORE_SECONDS_PER_INFOSET)))


def recall_plan(game: Game, kept: int, iterations: int) -> RunPlan:
    """A Dudo game solved remembering `kept` bids (``python -m solver recall``)."""
    if not isinstance(game, DudoGame):
        raise ValueError(f"the recall abstraction solves Dudo games, not {game.name!r}")
    rules = game.dudo_rules
    measured = 1 << rules.num_bids <= REAL_GAME_NODES
    estimate = recall_estimate(rules, kept, f"solving {game.name} remembering {kept} bids",
                               measured)
    nodes, _ = graph_bounds(rules, kept)
    return RunPlan(estimate, (
        phase("building the abstract game", 1.0 + nodes * 2e-5),
        phase("solving", recall_seconds(rules, kept, iterations)),
        phase("storing", nodes * 21 * STORE_SECONDS_PER_INFOSET)))


def match_round_plan(setup: MatchSetup) -> dict[tuple[int, int], tuple[int, float]]:
    """Each round of a match: the bytes it needs beyond the base, and its estimated share of
    work (seconds on one worker, uncalibrated)."""
    rounds = {}
    for counts in setup.rounds():
        rules, kept = DudoRules(counts), setup.recall.memory(counts)
        if kept is None:
            s = tree_sizes(rules)
            need = tree_bytes(s["information_sets"], s["information_set_actions"], s["slots"],
                              s["public_nodes"]) - BASE_BYTES
            work = ITERATIONS_GUESS * s["slots"] * SLOT_ITERATION_SECONDS
        else:
            need = recall_estimate(rules, kept, "", sum(counts) <= EXACT_UP_TO).bytes - BASE_BYTES
            work = recall_seconds(rules, kept, setup.iterations)
        rounds[counts] = (need, work)
    return rounds


def match_seconds(setup: MatchSetup, workers: int) -> float:
    """The rounds' solving time: the default setup's measured time, scaled by the rounds' work."""
    work = sum(w for _, w in match_round_plan(setup).values())
    default = sum(w for _, w in match_round_plan(MatchSetup()).values())
    return MATCH_SOLVE_SECONDS * work / default * 2 / max(1, workers)


def match_plan(setup: MatchSetup, workers: int) -> RunPlan:
    """A whole Dudo match on `workers` Dask workers (``python -m solver match``)."""
    needs = sorted((need for need, _ in match_round_plan(setup).values()), reverse=True)
    # Each worker solves a round at a time (the biggest ones at worst, all at once); the
    # driver rebuilds each round's rows to store them.
    total = BASE_BYTES * (1 + workers) + sum(needs[:workers]) + needs[0]
    estimate = MemoryEstimate(
        f"solving the {len(needs)} rounds of a Dudo match", total,
        f"{workers} worker{'s' if workers != 1 else ''}, the biggest round "
        f"{memory.gib(needs[0])}", "remember fewer bids in the big rounds (--recall)")
    infosets = MATCH_INFOSETS * len(needs) / 25
    return RunPlan(estimate, (phase("starting the workers", WORKER_START_SECONDS),
                              phase("solving the rounds", match_seconds(setup, workers)),
                              phase("storing", infosets * STORE_SECONDS_PER_INFOSET)))


def hulhe_plan(setup: SampledSetup, workers: int, *, minutes: float, epochs: int | None,
               self_play_deals: int) -> RunPlan:
    """The hold'em bot's build on `workers` Dask workers (0: in this process), for `epochs`
    epochs or `minutes` (``python -m solver hulhe``)."""
    rules = setup.rules
    streets = check_rules(rules)
    layout, fine = setup_layout(setup), opponent_layout(setup)  # sized without making buckets
    layouts = [layout] if fine is None else [layout, fine]
    table = 4 * table_size(setup)  # float32: the bot's tables, then the opponent's
    river = streets.indexer(streets.last).size
    # The driver keeps regrets and average and gets each worker's two tables back; a worker
    # copies the regrets and fills an average; the tables and buckets are built once (the
    # river's counts and codes, a byte or two a class) and memory-mapped after.
    copies = max(1, workers)  # with no workers the driver runs the epochs itself
    # Histogram buckets are made once from the round before the last: its classes' counts
    # (a byte a bin), their weights, and a block of cumulative rows at a time.
    histograms = (streets.indexer(streets.last - 1).size * (HIST_BINS + 8)
                  if setup.spec.metric == HIST_KIND and streets.last > 1 else 0)
    total = (BASE_BYTES * (1 + workers) + table * (2 + 2 * copies) + table * 3 * copies
             + 4 * river + histograms)
    estimate = MemoryEstimate(
        f"solving {setup.game} in its bucket abstraction", total,
        f"{layout.infosets:,} abstract information sets"
        + (f" (and the opponent's {layouts[1].infosets:,})" if len(layouts) > 1 else "")
        + f", {workers or 1} worker{'s' if workers > 1 else ''}",
        "use fewer workers (--workers)")
    solving = minutes * 60 if epochs is None else epochs * 30.0 * len(layouts)
    tables, buckets = _hulhe_cached(setup)
    return RunPlan(estimate, (
        phase("hand-strength tables", 1.0 if tables else HULHE_TABLES_SECONDS),
        phase("hand buckets", 1.0 if buckets else len(layouts) * HULHE_HIST_SECONDS
              if setup.spec.metric == HIST_KIND else HULHE_BUCKETS_SECONDS),
        phase("starting the workers", WORKER_START_SECONDS if workers else 1.0),
        phase("solving", solving, fixed=epochs is None),
        *([phase("self-play", SELF_PLAY_SECONDS * math.ceil(self_play_deals / 20_000))]
          if self_play_deals > 1 else []),
        phase("storing", 10.0)))


def _hulhe_cached(setup: SampledSetup) -> tuple[bool, bool]:
    """Whether the strength tables and the buckets of `setup` are in the solver cache."""
    rules = setup.rules
    streets = check_rules(rules)
    folder = _cache_folder(streets)
    tables = all((folder / f"street{s}.npy").exists() for s in range(streets.last + 1))
    buckets = all(_cache_path(rules, r, k, spec.metric).exists()
                  for spec in (setup.spec, setup.opponent) if spec is not None
                  for r, k in enumerate(spec.k, 1) if k is not None)
    return tables, buckets


SITUATION_SECONDS = 0.012
"""One core's time to solve one of DeepStack's training situations (500 iterations)."""
TRAINING_SECONDS = 0.015
"""Training time a situation (its suits swapped as well), three layers of 128."""
DEEPSTACK_RESOLVE_SECONDS = 40.0
"""Both seats of the DeepStack bot re-solved at every decision of the lobby's game."""


def deepstack_plan(situations: int, workers: int) -> RunPlan:
    """The DeepStack opponent's build (``python -m solver deepstack``): its situations on
    `workers` Dask workers, its network trained here, then its every decision re-solved."""
    rows = 2 * situations  # the training rows with their suits swapped
    estimate = MemoryEstimate(
        "building the DeepStack opponent", BASE_BYTES * (1 + workers) + rows * 26 * 8 * 4,
        f"{situations:,} situations, {workers} worker{'s' if workers != 1 else ''}")
    return RunPlan(estimate, (
        phase("starting the workers", WORKER_START_SECONDS),
        phase("solving situations", situations * SITUATION_SECONDS / max(workers, 1)),
        phase("training the network", situations * TRAINING_SECONDS),
        phase("re-solving every decision", DEEPSTACK_RESOLVE_SECONDS)))

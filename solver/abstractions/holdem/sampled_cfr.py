"""Sampled CFR on a hold'em member's bucket abstraction: the heads-up limit hold'em bot, and
the no-limit bot's blueprint.

Two samplers (`ALGORITHMS`): chance sampling (below: one deal per iteration) and public chance
sampling (`solver.abstractions.holdem.public_kernel`: one board per iteration, with every hand
of both players at once), over the same tree, tables, epochs, workers and checkpoints.

The game solved is the member's betting (every sequence of limit hold'em: 6,378 decision
points in HULHE; in no-limit, those of its bet abstraction) over the card abstraction
`solver.abstractions.holdem.percentiles` (each round's hand seen as its bucket; imperfect
recall).  An abstract information set is (betting sequence, bucket of the
player to act in that round).

One iteration (chance-sampled CFR, Zinkevich et al. 2007):

* deal a whole hand at random: both players' hole cards and the board of every round;
* look up each player's bucket in each round and who wins the showdown;
* walk the whole betting tree with those cards: a forward pass (pre-order) gives both players'
  reach probabilities under the current strategy (regret matching at each node's information
  set), a backward pass (reverse pre-order) gives the node values and adds each acting
  player's counterfactual regrets, weighted by the other's reach, and the reach-weighted
  current strategy to the average.  Both players update at once (simultaneous updates, as the
  sampled deal is shared), and a subtree that neither player reaches is skipped: it could add
  nothing.

The tree is compiled once from `solver.games.holdem.betting.walk`'s rules into arrays
(`BettingTree`), and the iterations run in one numba kernel: nothing walks Python objects.
Regrets and average are float32, laid out per round as (bucket, node of the round, action
slot: fold, call and each raise size, `solver.abstractions.holdem.betting_tree`), so that the
nodes one deal touches in a round are contiguous for each player's bucket.

Updates are Linear CFR's at the granularity of *epochs* (Brown & Sandholm 2019 show that the
linear weighting stays sound with Monte Carlo sampling, and Pluribus discounts this way): after
epoch e the regrets and the average are multiplied by e / (e + 1), so epoch e's samples weigh in
proportion to e.  Regret matching+ (flooring regrets at zero) is not used with chance
sampling: with one deal's regrets it keeps noise.  Public chance sampling's regrets cover every
hand of a board and carry far less noise, and there the ``plus`` schedule (`SCHEDULES`) floors
the regrets at zero after each epoch instead of discounting them (CFR+'s regret matching+),
keeping the linear weights of the average: measured exactly on holdem-mini with every class
apart, it reaches 0.0107 in 20,000 boards where the linear schedule is at 0.0190.

Epochs are also the unit of parallel work and of checkpoints.  In an epoch each of W workers
runs the same number of iterations from a copy of the current regrets with its own seed
(``seed, epoch, worker``) and returns what it added; the driver sums the workers' additions (a
standard parallel MCCFR scheme: the workers' samples see regrets up to an epoch old).  Workers
are in-process (W = 1, `Solver.run`) or Dask `distributed` workers (`run_on_dask`: a
`LocalCluster` of the machine's cores or a given scheduler).  The state after every epoch is
deterministic, so a run resumed from a checkpoint (`save_checkpoint`, `load_checkpoint`) goes
on exactly as the uninterrupted one would have.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.betting_tree import Layout, betting_tree, legal_mask
from solver.abstractions.holdem.blueprint_betting import IN, TRANSLATED, abstract_rules
from solver.abstractions.holdem.percentiles import (
    PercentileSpec,
    RoundBuckets,
    round_bucket_counts,
    round_buckets,
)
from solver.abstractions.holdem.public_kernel import run_public
from solver.abstractions.holdem.sampled_kernel import Cards, run_iterations
from solver.cards.cache import cache_dir, source_digest
from solver.cards.evaluator import CARD_BIT, CARD_KEY
from solver.engine.interrupts import interrupted, interrupts_deferred, signals_handled
from solver.games import get_game
from solver.games.holdem.rules import HoldemRules

IntArray = NDArray[np.int64]
F32 = NDArray[np.float32]
DEFAULT_SPEC = PercentileSpec((1024, 1024, 1024), "hist")
"""HULHE's default abstraction: see `solver.cli`'s ``hulhe`` command and docs/games/holdem.md."""
DEFAULT_MINUTES = 50.0
"""The default build's solving time (two cores)."""
ALGORITHMS = {"cs": "chance-sampled CFR", "pcs": "public chance sampling"}
"""What an iteration samples: a whole deal (`run_iterations`) or a board, with every hand of
both players at once (`solver.abstractions.holdem.public_kernel`)."""
EPOCH_ITERATIONS = {"cs": 400_000, "pcs": 400}
"""An epoch's iterations by default (summed over the workers): some seconds of work each."""
SCHEDULES = {"linear": "regrets and average discounted by e / (e + 1) after epoch e",
             "plus": "regrets floored at zero after each epoch, the average discounted as "
                     "in linear"}
DEFAULT_SCHEDULES = {"cs": "linear", "pcs": "plus"}


def kernel_cards(rules: HoldemRules, buckets: tuple[RoundBuckets, ...]) -> Cards:
    deck = rules.deck
    t = [b.indexer.tables for b in buckets]
    # One code type for every member (numba compiles the kernel once): bytes where they fit.
    wide = max(b.count for b in buckets) > 256
    c = [np.ascontiguousarray(b.codes, np.uint16 if wide else np.uint8) for b in buckets]
    while len(t) < 4:
        t.append(t[-1])
        c.append(c[-1])
    return Cards(t[0], t[1], t[2], t[3], c[0], c[1], c[2], c[3],  # type: ignore[arg-type]
                 CARD_KEY[deck.standard_ids], CARD_BIT[deck.standard_ids],
                 np.array([rules.board_dealt(r) for r in range(rules.num_rounds)], np.int64),
                 rules.num_cards, rules.num_rounds)


def epoch_seed(seed: int, epoch: int, worker: int) -> int:
    """The kernel's seed for one worker's share of one epoch."""
    return int(np.random.SeedSequence([seed, epoch, worker]).generate_state(1)[0] >> 1)


@dataclass(frozen=True, slots=True)
class SampledSetup:
    """What a sampled solve solves, and how: a member, its buckets, and how the iterations are
    cut up (what the run will take is its `solver.runs.run_plan.RunPlan`)."""

    game: str = "holdem"
    spec: PercentileSpec = DEFAULT_SPEC
    iterations_per_epoch: int = 400
    """Summed over the workers."""
    seed: int = 0
    algorithm: str = "pcs"
    """A key of `ALGORITHMS`."""
    schedule: str = ""
    """A key of `SCHEDULES`; empty for the algorithm's default (`DEFAULT_SCHEDULES`)."""
    opponent: PercentileSpec | None = None
    """Another abstraction for the opponent (public chance sampling only): `opponent_layout`."""
    betting: str = ""
    """A no-limit member's blueprint: the bet abstraction it is solved in, and the raise caps
    per round (``0.5p p a;p a/p a|4 3 2 2``, `solver.games.holdem.bet_sizes` then caps; empty:
    the member's own betting).  The strategy is stored under the member, played in the real
    game by translation (`solver.abstractions.holdem.translated`)."""

    def __post_init__(self) -> None:
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"the sampled solver runs {' or '.join(ALGORITHMS)}, not "
                             f"{self.algorithm!r}")
        if not self.schedule:
            object.__setattr__(self, "schedule", DEFAULT_SCHEDULES[self.algorithm])
        if self.opponent is not None and self.algorithm != "pcs":
            raise ValueError("an opponent's own buckets need public chance sampling (pcs)")
        if self.schedule not in SCHEDULES:
            raise ValueError(f"the sampled solver's schedules are {' or '.join(SCHEDULES)}, "
                             f"not {self.schedule!r}")
        if self.betting and not self.member_rules.no_limit:
            raise ValueError(f"a bet abstraction is for a no-limit member, not {self.game!r}")

    @property
    def stored_algorithm(self) -> str:
        """The store's short name (`solver.algorithms.names`): ``pcs-cfr+`` with regret
        matching+, ``cs-cfr`` with the linear schedule; `` against `` and the opponent's
        buckets when it has its own."""
        return (f"{self.algorithm}-cfr" + ("+" if self.schedule == "plus" else "")
                + self.against)

    @property
    def key(self) -> tuple[object, ...]:
        """What tells this solve from another: a checkpoint of another key is not resumed,
        and the default checkpoint's name digests it.  (Chance sampling with its linear
        schedule, the first setup there was, writes no algorithm, so its old checkpoints
        still resume.)"""
        return (self.game, self.descriptor, self.iterations_per_epoch, self.seed) + (
            () if (self.algorithm, self.schedule) == ("cs", "linear")
            else (self.algorithm, self.schedule)) + (
            () if self.opponent is None else (self.opponent.descriptor,))

    @property
    def against(self) -> str:
        """`` against `` and the opponent's buckets when it has its own, else empty."""
        return "" if self.opponent is None else f" against {self.opponent.descriptor}"

    @property
    def member_rules(self) -> HoldemRules:
        """The rules of the member played."""
        rules = getattr(get_game(self.game), "definition", None)
        if not isinstance(rules, HoldemRules):
            raise ValueError(f"the sampled solver is for the hold'em family, not {self.game!r}")
        return rules

    @property
    def rules(self) -> HoldemRules:
        """The rules of the game solved: the member's, or its blueprint's (`betting`)."""
        return abstract_rules(self.member_rules, self.betting)

    @property
    def descriptor(self) -> str:
        """What the store keeps: the buckets, and the game solved when it is not the member."""
        if not self.betting:
            return self.spec.descriptor
        return f"{TRANSLATED}={self.spec.descriptor}{IN}{self.rules.spec}"


def setup_layout(setup: SampledSetup) -> Layout:
    """The tables of `setup`'s solve, in the order its algorithm reads them (sized from the
    spec: the buckets themselves are not made)."""
    return Layout.of(betting_tree(setup.rules), round_bucket_counts(setup.rules, setup.spec),
                     by_row=setup.algorithm == "pcs")


def opponent_layout(setup: SampledSetup) -> Layout | None:
    """The tables of the opponent's abstraction, after the bot's in the same flat arrays.

    Asymmetric abstraction (Bard, Johanson & Bowling 2014): each seat's strategy in the bot's
    buckets is solved against an opponent in finer ones, so it is kept from the weaknesses
    an opponent as coarse as itself cannot see: holdem-mini's 8 buckets solved against an
    opponent who tells every class apart are exactly 0.17 exploitable after 5,000 boards,
    solved against themselves 0.58.  (Against a best response in the real game, Johanson et
    al.'s CFR-BR, the bot would be least exploitable; a finer opponent is what two cores can
    afford in HULHE.)  An iteration walks its board twice, the finer opponent in seat 1 and
    then in seat 0; the bot's tables get the other seat's rows from each walk."""
    if setup.opponent is None:
        return None
    layout = Layout.of(betting_tree(setup.rules), round_bucket_counts(setup.rules, setup.opponent),
                       by_row=True)
    return Layout(layout.tree, layout.buckets, layout.starts + setup_layout(setup).size, True)


def table_size(setup: SampledSetup) -> int:
    """The flat regret and average tables' length: the bot's layout, then the opponent's."""
    fine = opponent_layout(setup)
    return setup_layout(setup).size if fine is None else int(fine.starts[-1])


def _worker_epoch(setup: SampledSetup, regrets: F32, epoch: int, worker: int, iterations: int
                  ) -> tuple[F32, F32, float]:
    """One worker's share of an epoch from a copy of `regrets`: what it adds to the regrets
    and to the average, and its mean sampled value."""
    rules = setup.rules
    buckets = round_buckets(rules, setup.spec)
    tree = betting_tree(rules)
    layout = setup_layout(setup)
    mine = np.array(regrets, dtype=np.float32, copy=True)
    average = np.zeros(len(regrets), np.float32)
    rows = np.array([tree.rows(r) for r in range(rules.num_rounds)], np.int64)
    cards = kernel_cards(rules, buckets)
    seed = epoch_seed(setup.seed, epoch, worker)
    ks = np.array(layout.buckets, np.int64)
    fine = opponent_layout(setup)
    if fine is not None and setup.opponent is not None:  # pcs: the setup refuses the rest
        fine_cards = kernel_cards(rules, round_buckets(rules, setup.opponent))
        fine_ks = np.array(fine.buckets, np.int64)
        value = 0.0
        for seat in (1, 0):
            value += run_public(tree.arrays, cards, layout.starts, rows, ks, iterations,
                                seed + seat, mine, average, fine_cards, fine.starts, fine_ks,
                                seat) / 2
    elif setup.algorithm == "pcs":
        value = run_public(tree.arrays, cards, layout.starts, rows, ks, iterations, seed, mine,
                           average, cards, layout.starts, ks)
    else:
        value = run_iterations(tree.arrays, cards, layout.starts, rows, iterations, seed, mine,
                               average)
    mine -= regrets
    return mine, average, float(value)


class Solver:
    """The state of a sampled solve: regrets, average, epochs and iterations done.

    Example (an epoch in this process; `run` runs many, here or on Dask, checkpointed)::

        from solver.abstractions.holdem.percentiles import PercentileSpec
        from solver.abstractions.holdem.sampled_cfr import SampledSetup, Solver, run

        solver = Solver(SampledSetup("holdem-mini", PercentileSpec.parse("k:all"), 500))
        run(solver, epochs=20)                   # 10,000 boards, every hand of each
        strategy = solver.average_strategy()     # flat, laid out as solver.layout
    """

    def __init__(self, setup: SampledSetup) -> None:
        self.setup = setup
        rules = setup.rules
        self.rules = rules
        self.buckets = round_buckets(rules, setup.spec)
        self.tree = betting_tree(rules)
        self.layout = setup_layout(setup)
        size = table_size(setup)
        self.regrets = np.zeros(size, np.float32)
        self.average = np.zeros(size, np.float32)
        self.epochs = 0
        self.iterations = 0
        self.seconds = 0.0
        self.values: list[float] = []

    # ---- one epoch ------------------------------------------------------------------------

    def shares(self, workers: int) -> list[int]:
        """Iterations of each worker in an epoch."""
        total = self.setup.iterations_per_epoch
        return [total // workers + (1 if w < total % workers else 0) for w in range(workers)]

    def apply(self, results: list[tuple[F32, F32, float]], seconds: float) -> None:
        """Add the workers' results of the next epoch, then discount (`SCHEDULES`); an
        interrupt waits until the epoch is whole, so a checkpoint never holds half of one."""
        with interrupts_deferred():
            for regrets, average, _ in results:
                self.regrets += regrets
                self.average += average
            self.epochs += 1
            self.iterations += self.setup.iterations_per_epoch
            self.seconds += seconds
            keep = np.float32(self.epochs / (self.epochs + 1))
            if self.setup.schedule == "plus":
                np.maximum(self.regrets, 0.0, out=self.regrets)
            else:
                self.regrets *= keep
            self.average *= keep
            self.values.append(float(np.mean([v for _, _, v in results])))

    def run_epoch(self) -> None:
        """One epoch in this process (one worker)."""
        started = time.perf_counter()
        result = _worker_epoch(self.setup, self.regrets, self.epochs, 0,
                               self.setup.iterations_per_epoch)
        self.apply([result], time.perf_counter() - started)

    # ---- the strategy -----------------------------------------------------------------------

    def average_strategy(self) -> F32:
        """The normalised average strategy, flat like the tables (uniform over the legal
        actions where an information set was never reached)."""
        slots = self.tree.slots
        tables = self.average[:self.layout.size].reshape(-1, slots).astype(np.float64)
        legal = self.legal_mask().reshape(-1, slots)
        totals = tables.sum(axis=1, keepdims=True)
        uniform = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1)
        out = np.where(totals > 0, tables / np.where(totals > 0, totals, 1.0), uniform)
        return out.reshape(-1).astype(np.float32)

    def legal_mask(self) -> NDArray[np.bool_]:
        return legal_mask(self.layout)

    # ---- checkpoints --------------------------------------------------------------------------

    def save_checkpoint(self, path: Path) -> None:
        """The state after the last whole epoch, written atomically."""
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        with open(temporary, "wb") as f:
            np.savez(f, regrets=self.regrets, average=self.average,
                     counters=np.array([self.epochs, self.iterations]),
                     seconds=np.array([self.seconds]), values=np.array(self.values),
                     plan=np.array(repr(self.setup.key)))
        temporary.replace(path)

    def load_checkpoint(self, path: Path) -> bool:
        """Resume from `path` if it holds a checkpoint of this setup; True if it did."""
        if not path.exists():
            return False
        with np.load(path) as saved:
            if str(saved["plan"]) != repr(self.setup.key):
                raise ValueError(f"{path} is a checkpoint of another solve ({saved['plan']}); "
                                 f"delete it or pass another --checkpoint")
            self.regrets = saved["regrets"].astype(np.float32)
            self.average = saved["average"].astype(np.float32)
            self.epochs, self.iterations = (int(x) for x in saved["counters"])
            self.seconds = float(saved["seconds"][0])
            self.values = [float(v) for v in saved["values"]]
        return True


# --- running: in this process or on Dask -------------------------------------------------------


def run(solver: Solver, epochs: int, *, checkpoint: Path | None = None,
        checkpoint_seconds: float = 300.0, client: Any = None, workers: int = 1,
        on_epoch: Callable[[Solver], None] | None = None,
        deadline: float | None = None) -> None:
    """Run epochs until `solver` has `epochs` of them (or `deadline`, a `time.monotonic`
    instant, passes), checkpointing to `checkpoint` every `checkpoint_seconds` and on
    KeyboardInterrupt or SIGTERM (the state after the last whole epoch; a KeyboardInterrupt is
    raised again): a build stopped by Ctrl-C or by the process that started it loses at most
    the epoch under way.

    With a Dask `client`, each epoch is `workers` tasks on its cluster (the current regrets
    scattered once per epoch); without one, it runs in this process."""
    last_saved = time.monotonic()

    def save() -> None:
        if checkpoint is not None:
            with interrupts_deferred():
                solver.save_checkpoint(checkpoint)

    with signals_handled(interrupted):
        try:
            while solver.epochs < epochs:
                if deadline is not None and time.monotonic() >= deadline:
                    break
                if client is None:
                    solver.run_epoch()
                else:
                    _dask_epoch(solver, client, workers)
                if on_epoch is not None:
                    on_epoch(solver)
                if (checkpoint is not None
                        and time.monotonic() - last_saved >= checkpoint_seconds):
                    save()
                    last_saved = time.monotonic()
        except KeyboardInterrupt:
            save()
            raise
        save()


def _dask_epoch(solver: Solver, client: Any, workers: int) -> None:
    started = time.perf_counter()
    regrets = client.scatter(solver.regrets, broadcast=True)
    futures = [client.submit(_worker_epoch, solver.setup, regrets, solver.epochs, w, share,
                             pure=False)
               for w, share in enumerate(solver.shares(workers)) if share > 0]
    results = client.gather(futures)
    solver.apply(list(results), time.perf_counter() - started)


def worker_count(client: Any) -> int:
    """Worker threads the client's cluster has now."""
    count: int = max(1, sum(client.nthreads().values()))
    return count


def default_checkpoint(setup: SampledSetup) -> Path:
    """Where a solve of `setup` is checkpointed by default: in the solver cache, under a digest
    of this module's code and the setup (a checkpoint of other code is never resumed)."""
    digest = source_digest(__file__, extra=setup.key)
    return cache_dir() / f"{setup.game}-cscfr-{digest}.npz"

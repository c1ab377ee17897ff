"""What each command of ``python -m solver`` prints: the job of `solver.runs` behind it, its
progress bar, and its summary (``key=value`` lines, or JSON with ``--json``)."""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from collections.abc import Callable
from pathlib import Path

from solver.abstractions.dudo_recall.solve import solve_recall
from solver.abstractions.holdem.bucket_solve import solve_buckets
from solver.abstractions.holdem.percentiles import check_rules, round_buckets
from solver.abstractions.holdem.sampled_cfr import default_checkpoint
from solver.algorithms.solve import DEFAULT_TARGET, Checkpoint
from solver.cards.strength import ehs_tables
from solver.cli.command_plan import hulhe_setup_of, match_setup_of, plan_for, plan_of
from solver.deepstack.lobby_bot import command as deepstack_command
from solver.engine.progress import StatusBar, phase, progress_bar
from solver.evaluation.holdem.baselines import baselines_for
from solver.evaluation.holdem.lbr_settings import LBRSetting
from solver.evaluation.holdem.report import evaluate, make_policy, report_lines
from solver.evaluation.stored import evaluate_stored
from solver.games import get_game
from solver.games.holdem.game import HoldemGame
from solver.resolving.kind import ResolvingSpec
from solver.resolving.store import store_resolving
from solver.runs.abstract import store_buckets, store_recall
from solver.runs.background import build_in_background
from solver.runs.build import Runner, build_algorithm, default_games, own_command
from solver.runs.dask import dask_client
from solver.runs.dudo_match import solve_match, store_match
from solver.runs.experiments import bucket_cost, bucket_spec, recall_cost
from solver.runs.export import stored_payload
from solver.runs.figures import fill_style
from solver.runs.hulhe import build as build_hulhe
from solver.runs.opponents import build_opponents
from solver.runs.run_plan import match_round_plan
from solver.runs.sizes import game_sizes
from solver.runs.store_solve import solve_and_store
from strategies import SolveInfo, StoreError, StrategyStore


class _Progress:
    """A progress bar for a solve: by iterations, by seconds, or by log-distance to a target."""

    def __init__(self, game: str, iterations: int | None, target: float | None,
                 seconds: float | None, enabled: bool) -> None:
        self.iterations, self.target, self.seconds = iterations, target, seconds
        if iterations is not None:
            total, unit = float(iterations), "it"
        elif seconds is not None:
            total, unit = float(seconds), "s"
        else:
            total, unit = 100.0, "%"
        self.bar = progress_bar(total=total, unit=unit, desc=f"solving {game}",
                                disable=not enabled, file=sys.stderr, mininterval=0.5,
                                bar_format="{l_bar}{bar}| {postfix}")
        self.start: float | None = None
        self.done = 0.0

    def __call__(self, point: Checkpoint) -> None:
        if self.iterations is not None:
            done = float(point.iteration)
        elif self.seconds is not None:
            done = min(point.seconds, self.seconds)
        else:
            target = self.target or DEFAULT_TARGET
            self.start = self.start or max(point.exploitability, target * 10)
            span = math.log(self.start / target)
            done = 100.0 * min(1.0, max(0.0, math.log(self.start / max(point.exploitability,
                                                                        1e-300)) / span))
        self.bar.set_postfix_str(
            f"it {point.iteration}, exploitability {point.exploitability:.2e}, "
            f"value {point.value:+.6f}, {point.seconds:.2f}s", refresh=False)
        self.bar.update(done - self.done)
        self.done = done

    def close(self) -> None:
        self.bar.refresh()
        self.bar.close()


def _open_store(path: str | None, create: bool = False) -> StrategyStore:
    return StrategyStore.open(Path(path) if path else None, create=create)


_PRUNING = {"auto": None, "on": True, "off": False}
"""``--pruning`` as `solver.algorithms.solve.solve` takes it."""


def _solve_and_store(game: str, algorithm: str, *, iterations: int | None,
                     target: float | None, seconds: float | None, store_path: str | None,
                     progress: bool, seed: int = 0, pruning: bool | None = None,
                     memory_checked: bool = False) -> dict[str, object]:
    """`solver.runs.store_solve.solve_and_store` behind a progress bar; the summary to print."""
    bar = _Progress(game, iterations, target, seconds, progress)
    try:
        stored = solve_and_store(game, algorithm, iterations=iterations, target=target,
                                 seconds=seconds, store_path=store_path, seed=seed,
                                 on_checkpoint=bar, pruning=pruning,
                                 memory_checked=memory_checked)
    finally:
        bar.close()
    result = stored.result
    return {"game": game, "solve_id": stored.info.id, "algorithm": algorithm,
            "pruning": result.pruning, "iterations": result.iterations,
            "seconds": round(result.seconds, 4),
            "exploitability": result.exploitability, "value": result.value,
            "store": str(stored.store)}


def _counting(bar: StatusBar) -> Callable[[int], None]:
    """A solver's per-iteration callback that moves `bar` one step."""
    def step(_: int) -> None:
        bar.update(1)
    return step


def _print(payload: object, as_json: bool) -> None:
    if as_json:
        print(json.dumps(payload, indent=2))
        return
    rows = payload if isinstance(payload, list) else [payload]
    for row in rows:
        assert isinstance(row, dict)
        print("  ".join(f"{k}={v}" for k, v in row.items()))


def cmd_solve(args: argparse.Namespace) -> int:
    plan_for(args).start()  # the run's one memory check
    summary = _solve_and_store(args.game, build_algorithm(args.game, args.algorithm),
                               iterations=args.iterations, target=args.target_exploitability,
                               seconds=args.seconds, store_path=args.store,
                               progress=not args.quiet, seed=args.seed,
                               pruning=_PRUNING[args.pruning], memory_checked=True)
    _print(summary, args.json)
    return 0


def cmd_build(args: argparse.Namespace, run: Runner) -> int:
    """`run` runs a game's own build command (the CLI's `main`)."""
    if args.background:
        return build_in_background(plan_of, args.store, Path(args.status_file)
                                   if args.status_file else None, args.games)
    summaries = []
    for game in args.games or default_games():
        own = own_command(game, args.store, args.quiet)
        if own is not None:  # a game with a command of its own (holdem: hulhe)
            code = run(own)
            if code != 0:
                return code
            continue
        summaries.append(_solve_and_store(game, build_algorithm(game, args.algorithm),
                                          iterations=None,
                                          target=args.target_exploitability, seconds=None,
                                          store_path=args.store, progress=not args.quiet,
                                          pruning=_PRUNING[args.pruning]))
        if not args.json:
            _print(summaries[-1], False)
        if get_game(game).build.opponents:
            _opponents(game, args.store, args.quiet or args.json)
    if args.json:
        _print(summaries, True)
    return 0


def cmd_opponents(args: argparse.Namespace) -> int:
    _opponents(args.game, args.store, args.quiet)
    return 0


def _opponents(game: str, store_path: str | None, quiet: bool) -> None:
    """`solver.runs.opponents.build_opponents`, a line printed per opponent stored."""
    def stored(info: SolveInfo) -> None:
        if not quiet:
            seats = info.best_reply or (math.nan, math.nan)
            print(f"{game} opponent {info.opponent}: solve {info.id}, exploitability "
                  f"{info.exploitability:.4g} (a best reply wins {seats[0]:+.4g} in seat 0, "
                  f"{seats[1]:+.4g} in seat 1)")

    build_opponents(game, store_path, on_stored=stored)


def cmd_deepstack(args: argparse.Namespace) -> int:
    plan_for(args).start()
    return deepstack_command(args)


def cmd_list(args: argparse.Namespace) -> int:
    with _open_store(args.store) as store:
        solves = store.solves()
    rows = [{"id": s.id, "game": s.game, "algorithm": s.algorithm, "iterations": s.iterations,
             "seconds": round(s.seconds, 3), "exploitability": s.exploitability,
             "value": s.value, "created": s.created.isoformat()} for s in solves]
    if args.json:
        _print(rows, True)
    elif not rows:
        print(f"the store {store.path} holds no solves; run `python -m solver build`")
    else:
        print(f"{'id':>4}  {'game':<11} {'algorithm':<9} {'iterations':>10} {'seconds':>8} "
              f"{'exploitability':>14} {'value':>10}  created")
        for r in rows:
            print(f"{r['id']:>4}  {r['game']:<11} {r['algorithm']:<9} {r['iterations']:>10} "
                  f"{r['seconds']:>8} {r['exploitability']:>14.3e} {r['value']:>+10.6f}  "
                  f"{r['created']}")
    return 0


def cmd_figures(args: argparse.Namespace) -> int:
    done = fill_style(args.store, None if args.json else lambda info: print(
        f"{info.game}: the style figures of solve {info.id} stored", flush=True))
    if not done and not args.json:
        print("every latest solve has its figures")
    if args.json:
        _print({"games": done}, True)
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    with _open_store(args.store) as store:
        rows = store.strategy(args.game)
    if not rows:
        raise StoreError(f"no solve of {args.game!r} in the store; run `python -m solver build`")
    shown = [r for r in rows.values() if r.key.startswith(args.prefix or "")]
    if args.json:
        _print({r.key: dict(zip(r.labels, r.probabilities, strict=True)) for r in shown}, True)
        return 0
    width = max((len(r.key) for r in shown), default=7)
    print(f"{'infoset':<{width}}  player  probabilities")
    for r in shown:
        cells = "  ".join(f"{label} {p:.3f}" for label, p in zip(r.labels, r.probabilities,
                                                                   strict=True))
        print(f"{r.key:<{width}}  {r.player + 1:>6}  {cells}")
    return 0


def cmd_evaluate(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    with _open_store(args.store) as store:
        stored = evaluate_stored(store, game)
    evaluation = stored.evaluation
    _print({"game": args.game, "solve_id": stored.info.id if stored.info else None,
            "exploitability": evaluation.exploitability, "nash_conv": evaluation.nash_conv,
            "value": evaluation.value, "reference_value": game.reference_value}, args.json)
    return 0


def cmd_evaluate_holdem(args: argparse.Namespace) -> int:
    game = get_game(args.game)
    if not isinstance(game, HoldemGame):
        raise ValueError(f"evaluate-holdem measures members of the hold'em family, not "
                         f"{args.game}")
    policy = make_policy(args.policy, game, args.store)
    against = [make_policy(name, game, args.store)
               for name in (baselines_for(game) if args.against is None else args.against)]
    setting = None if args.lbr_setting is None else LBRSetting.parse(args.lbr_setting)
    report = evaluate(game, policy, against, args.deals, args.lbr_hands, seed=args.seed,
                      exact=args.exact, progress=not args.quiet, lbr_setting=setting,
                      own=not args.no_self_play)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(report_lines(report)))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with _open_store(args.store) as store:
        payload = stored_payload(store, get_game(args.game), args.format, args.opponent)
    json.dump(payload, sys.stdout, indent=1 if args.pretty else None)
    sys.stdout.write("\n")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    plan_for(args).start()  # the run's one memory check
    with progress_bar(total=args.iterations, unit="it", desc=f"{args.game} recall={args.memory}",
              disable=args.quiet, file=sys.stderr, mininterval=0.5) as bar:
        solved = solve_recall(get_game(args.game), args.memory, args.iterations, args.algorithm,
                              on_iteration=_counting(bar), memory_checked=True)
    solve_id = store_recall(solved, args.algorithm, args.store)
    _print({"game": args.game, "solve_id": solve_id, "abstraction": f"recall={args.memory}",
            "iterations": solved.iterations, "seconds": round(solved.seconds, 3),
            "abstract_value": solved.value, "real_value": solved.real_value,
            "real_exploitability": solved.exploitability,
            "infosets": sum(len(k) for k in solved.graph.block_keys)}, args.json)
    return 0


def cmd_recall_cost(args: argparse.Namespace) -> int:
    rows = []
    for r in recall_cost(args.games, args.memories, args.iterations, args.algorithm):
        rows.append(r)
        if not args.json:
            print(f"| {r['game']} | {r['memory']} | {r['abstract_infosets']:,} | "
                  f"{r['real_value']:+.5f} | {r['exploitability']:.5f} | {r['seconds']} s |",
                  flush=True)
    if args.json:
        _print(rows, True)
    return 0


def cmd_buckets(args: argparse.Namespace) -> int:
    spec = bucket_spec(args.game, args.k.split(","), args.recall)
    with progress_bar(total=args.iterations, unit="it", desc=f"{args.game} {spec.descriptor}",
                      disable=args.quiet, file=sys.stderr, mininterval=0.5) as bar:
        solved = solve_buckets(get_game(args.game), spec, args.iterations, args.algorithm,
                               on_iteration=_counting(bar))
    summary = {"game": args.game, "abstraction": spec.descriptor,
               "iterations": solved.iterations, "seconds": round(solved.seconds, 3),
               "abstract_infosets": solved.abstract.num_infosets,
               "real_value": solved.value, "real_exploitability": solved.exploitability}
    if not args.no_store:
        summary = {"solve_id": store_buckets(solved, args.store), **summary}
    _print(summary, args.json)
    return 0


def cmd_bucket_cost(args: argparse.Namespace) -> int:
    rows = []
    for r in bucket_cost(args.game, args.ks, args.recalls, args.iterations, args.algorithm):
        rows.append(r)
        if not args.json:
            print(f"| {r['recall']} | {r['k']} | {r['abstract_infosets']:,} | "
                  f"{r['real_value']:+.5f} | {r['exploitability']:.5f} | {r['seconds']:.1f} s |",
                  flush=True)
    if args.json:
        _print(rows, True)
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    setup = match_setup_of(args)
    recall = setup.recall
    plan_for(args).start()
    started = time.perf_counter()
    phase("starting the workers")
    client = dask_client(args.scheduler, args.workers)
    # The bar counts the rounds' estimated work, so that it moves as the time goes, not by
    # 25 equal steps of which the last few take most of it.
    work = {counts: max(1e-3, w) for counts, (_, w) in match_round_plan(setup).items()}
    phase("solving the rounds")
    with client, progress_bar(total=sum(work.values()), unit="work", desc="dudo-match rounds",
                              disable=args.quiet, file=sys.stderr,
                              bar_format="{l_bar}{bar}| {postfix}") as bar:
        def done(solved):  # type: ignore[no-untyped-def]
            bar.set_postfix_str(f"{solved.counts[0]}v{solved.counts[1]}: P={solved.win:.4f} "
                                f"in {solved.seconds:.0f}s", refresh=False)
            bar.update(work[solved.counts])

        results = solve_match(setup, client, on_round=done)
    wall = time.perf_counter() - started
    phase("storing")
    solve_id, store = store_match(results, setup, args.store)
    summary = {"game": "dudo-match", "solve_id": solve_id, "abstraction": recall.descriptor,
               "wall_seconds": round(wall, 1),
               "solver_seconds": round(sum(r.seconds for r in results.values()), 1),
               "store": str(store),
               "table": {f"{a}v{b}": r.win for (a, b), r in sorted(results.items())},
               "exploitability": {f"{a}v{b}": r.exploitability
                                  for (a, b), r in sorted(results.items())
                                  if r.exploitability is not None}}
    if args.json:
        _print(summary, True)
        return 0
    print(f"solve {solve_id}: {recall.descriptor}; {summary['wall_seconds']} s wall, "
          f"{summary['solver_seconds']} s solving; stored with its table in {store}")
    print("P(opener wins the match): rows the opener's dice, columns the other's")
    print("     " + "".join(f"{b:>9}" for b in range(1, setup.max_dice + 1)))
    for a in range(1, setup.max_dice + 1):
        print(f"{a:>4} " + "".join(f"{results[(a, b)].win:>9.5f}"
                                   for b in range(1, setup.max_dice + 1)))
    return 0


def cmd_hulhe(args: argparse.Namespace) -> int:
    setup = hulhe_setup_of(args)
    plan_for(args).start()
    checkpoint = (None if args.checkpoint == "none" else
                  Path(args.checkpoint) if args.checkpoint else default_checkpoint(setup))
    phase("hand-strength tables")
    ehs_tables(check_rules(setup.rules), progress=not args.quiet)
    phase("hand buckets")
    for spec in (setup.spec, setup.opponent):  # made here once, not by every worker
        if spec is not None:
            round_buckets(setup.rules, spec)
    phase("starting the workers")
    client = None if args.workers == 0 and not args.scheduler else dask_client(args.scheduler,
                                                                                args.workers)
    try:
        result = build_hulhe(setup, minutes=args.minutes, epochs=args.epochs, store_path=args.store,
                       client=client, checkpoint=checkpoint, progress=not args.quiet,
                       checkpoint_seconds=args.checkpoint_minutes * 60,
                       self_play_deals=args.self_play_deals)
    except KeyboardInterrupt:
        where = (f"the last whole epoch is saved in {checkpoint}; the same command resumes it"
                 if checkpoint is not None else "nothing was saved (--checkpoint none)")
        print(f"interrupted; {where}", file=sys.stderr)
        return 130
    finally:
        if client is not None:
            client.close()
    resolving_id = None
    if args.resolve_from:
        resolving_id = store_resolving(args.store, args.game, ResolvingSpec(
            args.resolve_from, turn=args.turn_iterations, sample=args.turn_sample,
            warm=args.turn_warm, guard=args.turn_guard))
    summary = {"game": args.game, "solve_id": resolving_id or result.solve_id,
               "blueprint_solve_id": result.solve_id,
               "abstraction": setup.descriptor, "infosets": result.infosets,
               "opponent": None if setup.opponent is None else setup.opponent.descriptor,
               "iterations": result.iterations, "epochs": result.epochs,
               "workers": result.workers, "solver_seconds": round(result.solver_seconds, 1),
               "wall_seconds": round(result.wall_seconds, 1),
               "value": round(result.value, 4),
               "value_ci95": None if result.value_ci95 is None else round(result.value_ci95, 4)}
    _print(summary, args.json)
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    sizes = game_sizes(args.game)
    if args.json:
        _print(sizes, True)
        return 0
    width = max(len(k) for k in sizes)
    for key, value in sizes.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k}: {v:,}" for k, v in value.items())
        elif isinstance(value, int) and not isinstance(value, bool):
            value = f"{value:,}"
        print(f"{key.replace('_', ' '):<{width}}  {value}")
    return 0



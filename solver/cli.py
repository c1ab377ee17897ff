"""`python -m solver …`: solve games offline, fill the strategy store, inspect and export it.

Arguments and printing only: the solving is `solver.solve`, the store glue `solver.storage`.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path

import solver
from solver.abstractions.holdem.resolving_kind import ResolvingSpec
from solver.abstractions.holdem.resolving_store import store_resolving
from solver.exploitability import evaluate_strategy
from solver.games import BUILD_DEFAULTS, game_names, get_game, named_games
from solver.progress import STATUS_ENV, progress_bar, write_status
from solver.sizes import game_sizes
from solver.solve import (
    ALGORITHMS,
    DEFAULT_ALGORITHM,
    DEFAULT_TARGET,
    Checkpoint,
    resolve_algorithm,
)
from solver.storage import solve_and_store, stored_strategy_array
from strategies import StoreError, StrategyStore, default_store_path

EXPORT_FORMATS = ("json", "openspiel")


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


def _solve_and_store(game: str, algorithm: str, *, iterations: int | None,
                     target: float | None, seconds: float | None, store_path: str | None,
                     progress: bool, seed: int = 0) -> dict[str, object]:
    """`storage.solve_and_store` behind a progress bar; the summary to print."""
    bar = _Progress(game, iterations, target, seconds, progress)
    try:
        stored = solve_and_store(game, algorithm, iterations=iterations, target=target,
                                 seconds=seconds, store_path=store_path, seed=seed,
                                 on_checkpoint=bar)
    finally:
        bar.close()
    result = stored.result
    return {"game": game, "solve_id": stored.info.id, "algorithm": algorithm,
            "iterations": result.iterations, "seconds": round(result.seconds, 4),
            "exploitability": result.exploitability, "value": result.value,
            "store": str(stored.store)}


def _print(payload: object, as_json: bool) -> None:
    if as_json:
        print(json.dumps(payload, indent=2))
        return
    rows = payload if isinstance(payload, list) else [payload]
    for row in rows:
        assert isinstance(row, dict)
        print("  ".join(f"{k}={v}" for k, v in row.items()))


def cmd_solve(args: argparse.Namespace) -> int:
    summary = _solve_and_store(args.game, resolve_algorithm(args.game, args.algorithm),
                               iterations=args.iterations, target=args.target_exploitability,
                               seconds=args.seconds, store_path=args.store,
                               progress=not args.quiet, seed=args.seed)
    _print(summary, args.json)
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    if args.background:
        return build_in_background(args)
    summaries = []
    for game in args.games or BUILD_DEFAULTS:
        command = get_game(game).build_command
        if command[:1] != ("solve",):  # a game with a command of its own (holdem: hulhe)
            own = [*command, *(["--store", args.store] if args.store else [])]
            if args.quiet and "--quiet" not in own:
                own.append("--quiet")
            code = main(own)
            if code != 0:
                return code
            continue
        summaries.append(_solve_and_store(game, resolve_algorithm(game, args.algorithm),
                                          iterations=None,
                                          target=args.target_exploitability, seconds=None,
                                          store_path=args.store, progress=not args.quiet))
        if not args.json:
            _print(summaries[-1], False)
    if args.json:
        _print(summaries, True)
    return 0


def background_games(store_path: str | None) -> list[str]:
    """The lobby's games that `build` does not solve and the store does not hold yet: what a
    background build makes, in the lobby's order."""
    try:
        with _open_store(store_path) as store:
            solved = set(store.games())
    except StoreError:
        solved = set()
    return [g for g in game_names() if get_game(g).listed and g not in BUILD_DEFAULTS
            and g not in solved]


def build_in_background(args: argparse.Namespace) -> int:
    """Build, one after the other, the strategies of the lobby's games that take long (see
    `background_games`), each by its game's own command, reporting to the status file (its
    progress bars write there too, `solver.progress`). One such build at a time per status
    file: a second one finds the first at work and leaves. A game that fails is reported and
    the build goes on with the next."""
    status_path = Path(args.status_file) if args.status_file else None
    lock = _exclusive(status_path.with_suffix(".lock")) if status_path else None
    if status_path is not None and lock is None:
        print("another background build is at work", file=sys.stderr)
        return 0
    games = [g for g in background_games(args.store) if not args.games or g in args.games]
    failed: dict[str, str] = {}
    if status_path is not None:
        os.environ[STATUS_ENV] = str(status_path)
    for position, game in enumerate(games):
        if status_path is not None:
            write_status(status_path, {"current": game, "pending": games[position + 1:],
                                       "failed": failed, "position": position + 1,
                                       "of": len(games), "started": time.time()})
        command = [*get_game(game).build_command, *(["--store", args.store]
                                                    if args.store else [])]
        print(f"building {game}: python -m solver {' '.join(command)}", flush=True)
        try:
            code = main(command)
        except SystemExit as exit_:  # a command its parser refused
            code = exit_.code if isinstance(exit_.code, int) else 1
        except Exception as error:  # reported, and the next game is built
            code, failed[game] = 1, f"{type(error).__name__}: {error}"
        if code != 0:
            failed.setdefault(game, f"`python -m solver {' '.join(command)}` exited with {code}")
    if status_path is not None:
        write_status(status_path, {"current": None, "pending": [], "failed": failed,
                                   "finished": time.time()})
    return 1 if failed else 0


def _exclusive(path: Path) -> int | None:
    """An open lock file held exclusively for the rest of the process, or None if another
    process holds it."""
    import fcntl

    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


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
    with _open_store(args.store) as store:
        info = store.latest_solve(args.game)
        if info is not None and info.abstraction:
            raise ValueError(
                f"the stored {args.game} solve is abstract ({info.abstraction}); what it was "
                f"measured at when solved: exploitability {info.exploitability} in the real game "
                f"(inf: too big to measure), value {info.value}")
        tree, flat = stored_strategy_array(store, args.game)
    evaluation = evaluate_strategy(tree, flat)
    reference = get_game(args.game).reference_value
    _print({"game": args.game, "solve_id": info.id if info else None,
            "exploitability": evaluation.exploitability, "nash_conv": evaluation.nash_conv,
            "value": evaluation.value, "reference_value": reference}, args.json)
    return 0


def cmd_evaluate_holdem(args: argparse.Namespace) -> int:
    from solver.games.holdem.game import HoldemGame
    from solver.holdem_eval.report import evaluate, make_policy, report_lines

    game = get_game(args.game)
    if not isinstance(game, HoldemGame):
        raise ValueError(f"evaluate-holdem measures members of the limit hold'em family, not "
                         f"{args.game}")
    policy = make_policy(args.policy, game, args.store)
    report = evaluate(game, policy, args.against, args.deals, args.lbr_hands, seed=args.seed,
                      exact=args.exact, progress=not args.quiet)
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print("\n".join(report_lines(report)))
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    with _open_store(args.store) as store:
        info = store.latest_solve(args.game)
        if info is not None and info.abstraction and args.format == "json":
            # An abstract solve's keys are not the game's information sets: print them as
            # stored (the tree of a game solved so is usually far too big to compile anyway).
            rows = store.strategy(args.game)
            json.dump({key: dict(zip(row.labels, row.probabilities, strict=True))
                       for key, row in rows.items()}, sys.stdout,
                      indent=1 if args.pretty else None)
            sys.stdout.write("\n")
            return 0
        if info is not None and info.abstraction:
            raise ValueError(f"the stored {args.game} solve is abstract ({info.abstraction}): "
                             f"only --format json exports it")
        tree, flat = stored_strategy_array(store, args.game)
    offsets = tree.infoset_regret_offset
    if args.format == "json":
        payload: object = {
            key: dict(zip(tree.infoset_labels[i], map(float, flat[offsets[i]:offsets[i + 1]]),
                          strict=True))
            for i, key in enumerate(tree.infoset_keys)
        }
    else:
        from solver.openspiel_format import openspiel_policy

        policy = {key: {a: float(flat[offsets[i] + k])
                        for k, a in enumerate(tree.infoset_actions[i])}
                  for i, key in enumerate(tree.infoset_keys)}
        payload = openspiel_policy(get_game(args.game), policy)
    json.dump(payload, sys.stdout, indent=1 if args.pretty else None)
    sys.stdout.write("\n")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    from solver.dudo_recall import solve_recall, store_recall

    with progress_bar(total=args.iterations, unit="it", desc=f"{args.game} recall={args.memory}",
              disable=args.quiet, file=sys.stderr, mininterval=0.5) as bar:
        solved = solve_recall(args.game, args.memory, args.iterations, args.algorithm,
                              on_iteration=lambda _: bar.update(1))
    solve_id = store_recall(solved, args.algorithm, args.store)
    _print({"game": args.game, "solve_id": solve_id, "abstraction": f"recall={args.memory}",
            "iterations": solved.iterations, "seconds": round(solved.seconds, 3),
            "abstract_value": solved.value, "real_value": solved.real_value,
            "real_exploitability": solved.exploitability,
            "infosets": sum(len(k) for k in solved.graph.block_keys)}, args.json)
    return 0


def cmd_recall_cost(args: argparse.Namespace) -> int:
    from solver.dudo_recall import solve_recall
    from solver.public_tree import compile_game

    rows = []
    for game in args.games:
        exact = compile_game(game)
        for memory in args.memories:
            solved = solve_recall(game, memory, args.iterations, args.algorithm)
            if solved.exploitability is None:
                raise ValueError(f"{game} is too big to measure in the real game")
            rows.append({"game": game, "memory": memory, "iterations": args.iterations,
                         "seconds": round(solved.seconds, 2),
                         "abstract_infosets": sum(len(k) for k in solved.graph.block_keys),
                         "real_infosets": exact.num_infosets, "real_value": solved.real_value,
                         "exploitability": solved.exploitability})
            if not args.json:
                r = rows[-1]
                print(f"| {game} | {memory} | {r['abstract_infosets']:,} | "
                      f"{r['real_value']:+.5f} | {r['exploitability']:.5f} | {r['seconds']} s |",
                      flush=True)
    if args.json:
        _print(rows, True)
    return 0


def _bucket_spec(game: str, k: Sequence[str], recall: str):  # type: ignore[no-untyped-def]
    """A `BucketSpec` of `game` from the command line: one k for every round after the first,
    or one per round."""
    from solver.games.holdem import HoldemGame
    from solver.games.holdem.buckets import BucketSpec

    holdem = get_game(game)
    if not isinstance(holdem, HoldemGame):
        raise ValueError(f"hand buckets are for the hold'em family, not {game!r}")
    later = holdem.definition.num_rounds - 1
    ks = list(k) * later if len(k) == 1 else list(k)
    return BucketSpec.parse(f"k:{','.join(ks)};recall={recall}")


def cmd_buckets(args: argparse.Namespace) -> int:
    from solver.holdem_buckets import solve_buckets, store_buckets

    spec = _bucket_spec(args.game, args.k.split(","), args.recall)
    with progress_bar(total=args.iterations, unit="it", desc=f"{args.game} {spec.descriptor}",
                      disable=args.quiet, file=sys.stderr, mininterval=0.5) as bar:
        solved = solve_buckets(args.game, spec, args.iterations, args.algorithm,
                               on_iteration=lambda _: bar.update(1))
    summary = {"game": args.game, "abstraction": spec.descriptor,
               "iterations": solved.iterations, "seconds": round(solved.seconds, 3),
               "abstract_infosets": solved.abstract.num_infosets,
               "real_value": solved.value, "real_exploitability": solved.exploitability}
    if not args.no_store:
        summary = {"solve_id": store_buckets(solved, args.store), **summary}
    _print(summary, args.json)
    return 0


def cmd_bucket_cost(args: argparse.Namespace) -> int:
    from solver.cfr import CFRSolver
    from solver.holdem_buckets import solve_buckets
    from solver.public_tree import compile_game

    tree = compile_game(args.game)
    rows = []

    def row(recall: str, k: str, infosets: int, value: float, exploitability: float,
            seconds: float) -> None:
        rows.append({"game": args.game, "recall": recall, "k": k, "iterations": args.iterations,
                     "abstract_infosets": infosets, "real_value": value,
                     "exploitability": exploitability, "seconds": round(seconds, 2)})
        if not args.json:
            print(f"| {recall} | {k} | {infosets:,} | {value:+.5f} | {exploitability:.5f} | "
                  f"{seconds:.1f} s |", flush=True)

    started = time.perf_counter()
    exact = CFRSolver(tree, args.algorithm)
    exact.iterate(args.iterations)
    seconds = time.perf_counter() - started
    evaluation = evaluate_strategy(tree, exact.average_strategy())
    row("none (real game)", "-", tree.num_infosets, evaluation.value, evaluation.exploitability,
        seconds)
    for recall in args.recalls:
        for k in args.ks:
            spec = _bucket_spec(args.game, [k], recall)
            solved = solve_buckets(args.game, spec, args.iterations, args.algorithm)
            row(recall, k, solved.abstract.num_infosets, solved.value, solved.exploitability,
                solved.seconds)
    if args.json:
        _print(rows, True)
    return 0


def cmd_match(args: argparse.Namespace) -> int:
    import time

    from solver.dudo_match import (
        MatchPlan,
        default_recall,
        local_client,
        solve_match,
        store_match,
    )
    from solver.games.dudo_recall import parse_recall

    recall = (parse_recall(get_game("dudo-match"), args.recall) if args.recall
              else default_recall())
    plan = MatchPlan(max_dice=args.max_dice, recall=recall, target=args.target_exploitability,
                     iterations=args.iterations, algorithm=args.algorithm)
    started = time.perf_counter()
    if args.scheduler:
        from distributed import Client

        client = Client(args.scheduler)
    else:
        client = local_client(args.workers)
    rounds = plan.rounds()
    with client, progress_bar(total=len(rounds), unit="round", desc="dudo-match",
                              disable=args.quiet, file=sys.stderr) as bar:
        def done(solved):  # type: ignore[no-untyped-def]
            bar.set_postfix_str(f"{solved.counts[0]}v{solved.counts[1]}: P={solved.win:.4f} "
                                f"in {solved.seconds:.0f}s", refresh=False)
            bar.update(1)

        results = solve_match(plan, client, on_round=done)
    wall = time.perf_counter() - started
    solve_id, table = store_match(results, plan, args.store)
    summary = {"game": "dudo-match", "solve_id": solve_id, "abstraction": recall.descriptor,
               "wall_seconds": round(wall, 1),
               "solver_seconds": round(sum(r.seconds for r in results.values()), 1),
               "table_file": str(table),
               "table": {f"{a}v{b}": r.win for (a, b), r in sorted(results.items())},
               "exploitability": {f"{a}v{b}": r.exploitability
                                  for (a, b), r in sorted(results.items())
                                  if r.exploitability is not None}}
    if args.json:
        _print(summary, True)
        return 0
    print(f"solve {solve_id}: {recall.descriptor}; {summary['wall_seconds']} s wall, "
          f"{summary['solver_seconds']} s solving; table in {table}")
    print("P(opener wins the match): rows the opener's dice, columns the other's")
    print("     " + "".join(f"{b:>9}" for b in range(1, plan.max_dice + 1)))
    for a in range(1, plan.max_dice + 1):
        print(f"{a:>4} " + "".join(f"{results[(a, b)].win:>9.5f}"
                                   for b in range(1, plan.max_dice + 1)))
    return 0


def cmd_hulhe(args: argparse.Namespace) -> int:
    from solver.games.holdem.percentiles import PercentileSpec
    from solver.holdem_mccfr import Plan, build, default_checkpoint, local_client

    plan = Plan(game=args.game, spec=PercentileSpec.parse(f"k:{args.buckets}"),
                iterations_per_epoch=args.epoch_iterations, seed=args.seed)
    plan.rules  # noqa: B018  (refuses a game outside the hold'em family now, not later)
    checkpoint = (None if args.checkpoint == "none" else
                  Path(args.checkpoint) if args.checkpoint else default_checkpoint(plan))
    if args.scheduler:
        from distributed import Client

        client = Client(args.scheduler)
    elif args.workers == 0:
        client = None
    else:
        client = local_client(args.workers)
    try:
        result = build(plan, minutes=args.minutes, epochs=args.epochs, store_path=args.store,
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
        resolving_id = store_resolving(args.store, args.game,
                                       ResolvingSpec(args.resolve_from))
    summary = {"game": args.game, "solve_id": resolving_id or result.solve_id,
               "blueprint_solve_id": result.solve_id,
               "abstraction": plan.spec.descriptor, "infosets": result.infosets,
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


def _game(text: str) -> str:
    """A game argument: a registered or named game, or a family member by its parameters (its
    canonical name is what the store files it under)."""
    try:
        return get_game(text.strip()).name
    except (KeyError, ValueError) as error:
        raise argparse.ArgumentTypeError(str(error).strip('"')) from None


GAME_HELP = (f"one of {', '.join((*game_names(), *named_games()))}, or a member of a family by "
             f"its parameters, e.g. 'holdem(numRanks=6,numSuits=2,numBoardCards=0 1 1)' "
             f"(the others as in heads-up limit hold'em) or 'universal_poker(...)'")


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _baselines(text: str) -> list[str]:
    from solver.holdem_eval.baselines import BASELINES

    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in BASELINES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown baseline {', '.join(unknown)}; choose from "
                                         f"{', '.join(BASELINES)}")
    return names


def _positive_float(text: str) -> float:
    value = float(text)
    if not (value > 0 and math.isfinite(value)):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m solver",
        description="Solve imperfect-information games offline and manage the strategy store.")
    parser.add_argument("--version", action="version", version=solver.__version__)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--store", metavar="PATH",
                        help=f"strategy store (default: $STRATEGY_STORE or "
                             f"{default_store_path()})")
    common.add_argument("--json", action="store_true", help="print JSON")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("solve", parents=[common], help="solve one game and store the result",
                       description="Solve GAME and store its average strategy and trace. "
                                   f"Without a limit it stops at exploitability {DEFAULT_TARGET}.")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--algorithm", choices=("auto", *ALGORITHMS), default=DEFAULT_ALGORITHM,
                   metavar="NAME", help=f"one of auto, {', '.join(ALGORITHMS)} (default auto: "
                                        f"the fastest for the game)")
    limit = p.add_mutually_exclusive_group()
    limit.add_argument("--iterations", type=_positive_int, metavar="N")
    limit.add_argument("--target-exploitability", type=_positive_float, metavar="E")
    limit.add_argument("--seconds", type=_positive_float, metavar="S")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampling algorithms")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_solve)

    p = sub.add_parser("build", parents=[common], help="solve the default games and store them",
                       description="Solve the default games ("
                                   + ", ".join(BUILD_DEFAULTS) + ") to the target "
                                   "exploitability and store them.")
    p.add_argument("--games", nargs="+", type=_game, metavar="GAME",
                   help="only these games (default: " + ", ".join(BUILD_DEFAULTS) + ")")
    p.add_argument("--background", action="store_true",
                   help="build instead the lobby's games that take long (each by its own "
                        "command), reporting progress to --status-file")
    p.add_argument("--status-file", metavar="PATH",
                   help="with --background: where to report progress (JSON)")
    p.add_argument("--algorithm", choices=("auto", *ALGORITHMS), default=DEFAULT_ALGORITHM,
                   metavar="NAME", help="default auto: the fastest for each game")
    p.add_argument("--target-exploitability", type=_positive_float, default=DEFAULT_TARGET,
                   metavar="E", help=f"default {DEFAULT_TARGET}")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_build)

    dudo_games = [g for g in game_names() if g.startswith("dudo") and g != "dudo-match"]
    p = sub.add_parser("recall", parents=[common],
                       help="solve a Dudo game remembering only the last bids, and store it",
                       description="Solve a Dudo game by fixed-strategy iteration CFR in the "
                                   "abstraction where players remember their dice and the last "
                                   "M bids, and store it (descriptor recall=M); where the real "
                                   "game compiles, the result is measured there.")
    p.add_argument("game", choices=dudo_games, metavar="GAME", help="dudo or dudo-AvB")
    p.add_argument("--memory", type=_positive_int, default=3, metavar="M",
                   help="bids remembered (default 3)")
    p.add_argument("--iterations", type=_positive_int, default=1000, metavar="N")
    p.add_argument("--algorithm", choices=("cfr", "cfr+", "lcfr", "dcfr"), default="dcfr")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_recall)

    p = sub.add_parser("recall-cost", parents=[common],
                       help="what remembering only the last bids costs, measured exactly",
                       description="Solve each game remembering 1, 2, ... bids and measure "
                                   "each strategy's exploitability in the real game (a README "
                                   "table row per line).")
    p.add_argument("--games", nargs="+", default=["dudo", "dudo-1v2", "dudo-2v1"],
                   choices=dudo_games, metavar="GAME")
    p.add_argument("--memories", nargs="+", type=_positive_int, default=[1, 2, 3, 4],
                   metavar="M")
    p.add_argument("--iterations", type=_positive_int, default=1000, metavar="N")
    p.add_argument("--algorithm", choices=("cfr", "cfr+", "lcfr", "dcfr"), default="dcfr")
    p.set_defaults(func=cmd_recall_cost)

    p = sub.add_parser("buckets", parents=[common],
                       help="solve a hold'em member with its hands bucketed, and store it",
                       description="Solve a member of the hold'em family in the card "
                                   "abstraction of E[HS²] percentile buckets (the first round "
                                   "lossless), measure the strategy exactly in the real game "
                                   "and store it with its descriptor (buckets=k:...;recall=...), "
                                   "which the app's bot plays.")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--k", default="8", metavar="K[,K...]",
                   help="buckets per round after the first, one for all or one per round; "
                        "'all' keeps every class apart (default 8)")
    p.add_argument("--recall", choices=("perfect", "imperfect"), default="perfect")
    p.add_argument("--iterations", type=_positive_int, default=1000, metavar="N")
    p.add_argument("--algorithm", choices=("cfr", "cfr+", "lcfr", "dcfr"), default="dcfr")
    p.add_argument("--no-store", action="store_true", help="measure only; store nothing")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_buckets)

    p = sub.add_parser("bucket-cost", parents=[common],
                       help="what bucketing a hold'em member's hands costs, measured exactly",
                       description="Solve GAME exactly and in each bucket abstraction (every "
                                   "K, perfect and imperfect recall), the same iterations each, "
                                   "and print each strategy's exploitability in the real game "
                                   "(a README table row per line).")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--ks", nargs="+", default=["2", "4", "8", "16", "all"], metavar="K")
    p.add_argument("--recalls", nargs="+", choices=("perfect", "imperfect"),
                   default=["perfect", "imperfect"])
    p.add_argument("--iterations", type=_positive_int, default=2000, metavar="N")
    p.add_argument("--algorithm", choices=("cfr", "cfr+", "lcfr", "dcfr"), default="dcfr")
    p.set_defaults(func=cmd_bucket_cost)

    p = sub.add_parser("match", parents=[common],
                       help="solve every round of a full Dudo match on Dask and store it",
                       description="Solve the rounds of a Dudo match from (1,1) up to "
                                   "(MAX,MAX) dice, each paying in the chances of winning the "
                                   "match, as a Dask graph (a local cluster of the machine's "
                                   "cores, or --scheduler); store them as one solve of "
                                   "dudo-match and the table P(a,b) beside the store.")
    p.add_argument("--max-dice", type=_positive_int, default=5, metavar="N")
    p.add_argument("--recall", metavar="SPEC",
                   help="bids remembered: a default, then rounds, e.g. '2;1v1=all;2v2=3' "
                        "(default: exact up to 1v2, 3 with 4 dice, 2 up to 7, 1 beyond)")
    p.add_argument("--iterations", type=_positive_int, default=300, metavar="N",
                   help="FSICFR iterations of an abstract round (default 300)")
    p.add_argument("--target-exploitability", type=_positive_float, default=DEFAULT_TARGET,
                   metavar="E", help=f"of an exact round (default {DEFAULT_TARGET})")
    p.add_argument("--algorithm", choices=("cfr", "cfr+", "lcfr", "dcfr"), default="dcfr")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a Dask scheduler (tcp://host:8786); default: a local cluster")
    p.add_argument("--workers", type=_positive_int, metavar="N",
                   help="local worker processes (default: the machine's cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_match)

    p = sub.add_parser("hulhe", parents=[common],
                       help="solve heads-up limit hold'em in a bucket abstraction and store it",
                       description="Chance-sampled CFR (linear discounting by epoch) on the "
                                   "real betting over E[HS²] percentile buckets with imperfect "
                                   "recall (the first round's 169 classes kept), in epochs on "
                                   "Dask (a local cluster of the machine's cores, or "
                                   "--scheduler), checkpointed and resumable; stored as tables "
                                   "(descriptor ehs2=k:...).")
    p.add_argument("--game", type=_game, default="holdem", metavar="GAME",
                   help="a member of the hold'em family (default holdem)")
    p.add_argument("--buckets", default="128,128,128", metavar="K1,K2,...",
                   help="buckets of each round after the first, or 'all' (default 128,128,128)")
    p.add_argument("--minutes", type=_positive_float, default=25.0, metavar="M",
                   help="wall time of the solving (default 25)")
    p.add_argument("--epochs", type=_positive_int, metavar="N",
                   help="stop after N epochs (default: when --minutes are up)")
    p.add_argument("--epoch-iterations", type=_positive_int, default=400_000, metavar="N",
                   help="iterations of an epoch, summed over the workers (default 400000)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--self-play-deals", type=int, default=20_000, metavar="N",
                   help="deals of self-play that estimate the value stored with the solve, "
                        "with its 95%% interval (default 20000; 0: the solver's sampled value, "
                        "no interval)")
    p.add_argument("--checkpoint", metavar="PATH",
                   help="checkpoint file, resumed if it holds this solve ('none': no "
                        "checkpoints; default: in the solver cache)")
    p.add_argument("--checkpoint-minutes", type=_positive_float, default=5.0, metavar="M",
                   help="minutes between checkpoints (default 5; also on interrupt)")
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="a Dask scheduler (tcp://host:8786); default: a local cluster")
    p.add_argument("--workers", type=int, metavar="N",
                   help="local worker processes (default: the machine's cores; 0: this "
                        "process)")
    p.add_argument("--resolve-from", type=int, default=0, metavar="ROUND",
                   help="also store the bot that re-solves from this round (1-based; 4 is "
                        "the river) over the blueprint, as the latest solve (default: the "
                        "blueprint alone)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_hulhe)

    p = sub.add_parser("list", parents=[common], help="list the stored solves")
    p.set_defaults(func=cmd_list)

    p = sub.add_parser("show", parents=[common], help="print a stored strategy")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--prefix", default="", help="only information sets whose key starts so")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("evaluate", parents=[common],
                       help="exact exploitability and value of the stored strategy")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.set_defaults(func=cmd_evaluate)

    from solver.holdem_eval.baselines import BASELINES
    from solver.holdem_eval.report import policy_names

    p = sub.add_parser("evaluate-holdem", parents=[common],
                       help="a hold'em bot in the real game: duplicate matches, LBR, self-play",
                       description="Measure a policy of a limit hold'em member by sampling the "
                                   "real game: duplicate matches against baselines (each deal "
                                   "played twice, seats swapped), Local Best Response against "
                                   "it (a lower bound on its exploitability) and its self-play "
                                   "value for seat 0, in milli-big-blinds per hand with 95% "
                                   "intervals.")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--policy", default="stored", metavar="NAME",
                   help=f"the policy to measure: one of {', '.join(policy_names())} (default "
                        f"stored: the latest exact solve in the store)")
    p.add_argument("--against", type=_baselines, default=list(BASELINES), metavar="NAMES",
                   help=f"comma-separated baselines (default {','.join(BASELINES)}); '' for "
                        f"none")
    p.add_argument("--deals", type=_positive_int, default=20_000, metavar="N",
                   help="deal pairs of each match and of self-play (default 20000)")
    p.add_argument("--lbr-hands", type=int, default=1000, metavar="N",
                   help="deal pairs LBR plays, once in each seat (default 1000; 0: no LBR)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--exact", action="store_true",
                   help="also the exact exploitability and value (small members only)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")
    p.set_defaults(func=cmd_evaluate_holdem)

    p = sub.add_parser("export", parents=[common], help="print a stored strategy as JSON",
                       description="Print the stored strategy of GAME to stdout. 'json' maps "
                                   "information sets to {label: probability}; 'openspiel' maps "
                                   "OpenSpiel information_state_string to {action id: "
                                   "probability} for the games OpenSpiel has (kuhn, leduc, dudo, "
                                   "the hold'em family).")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--format", choices=EXPORT_FORMATS, default="json")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")
    p.set_defaults(func=cmd_export)

    p = sub.add_parser("info", parents=[common], help="how big a game is",
                       description="Print GAME's sizes: information sets, histories (every "
                                   "state, chance and terminal ones included), public nodes, "
                                   "and for card games the betting sequences and the hands per "
                                   "round up to suits. Exact, without solving.")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.set_defaults(func=cmd_info)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except (StoreError, ValueError) as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; nothing was stored", file=sys.stderr)
        return 130

"""The arguments of ``python -m solver``: one sub-command each, with the checks of its values
(a game's name is resolved here, so a typo is refused before anything runs)."""

from __future__ import annotations

import argparse
import math

import solver
from solver.abstractions.holdem.blueprint_betting import BLUEPRINT_BETTING
from solver.abstractions.holdem.percentiles import METRICS
from solver.abstractions.holdem.sampled_cfr import ALGORITHMS as HULHE_ALGORITHMS
from solver.abstractions.holdem.sampled_cfr import DEFAULT_MINUTES as HULHE_MINUTES
from solver.abstractions.holdem.sampled_cfr import (
    DEFAULT_SCHEDULES,
    DEFAULT_SPEC,
    SCHEDULES,
    SampledSetup,
)
from solver.algorithms.solve import ALGORITHMS, DEFAULT_ALGORITHM, DEFAULT_TARGET
from solver.evaluation.holdem.baselines import BASELINES, NO_LIMIT_BASELINES
from solver.evaluation.holdem.lbr_settings import NAMED, LBRSetting
from solver.evaluation.holdem.report import policy_names
from solver.games import game_names, get_game, named_games
from solver.games.dudo.game import DudoGame
from solver.runs.build import default_games
from solver.runs.export import FORMATS
from strategies import default_store_path


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


HULHE_BUCKETS = ",".join(str(k) for k in DEFAULT_SPEC.k)
DRY_RUN_HELP = ("build nothing: print the memory it needs (against what the machine has) and "
                "its phases with their estimated times; exit 2 if it does not fit")


def _positive_int(text: str) -> int:
    value = int(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text}")
    return value


def _opponents(text: str) -> list[str]:
    names = [n.strip() for n in text.split(",") if n.strip()]
    known = policy_names()
    unknown = [n for n in names if n not in known]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown opponent {', '.join(unknown)}; choose from "
                                         f"{', '.join(known)}")
    return names


def _lbr_setting(text: str) -> str:
    try:
        return LBRSetting.parse(text).text
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


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
    _pruning_argument(p)
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)

    p = sub.add_parser("build", parents=[common], help="solve the default games and store them",
                       description="Solve the default games ("
                                   + ", ".join(default_games()) + ") to the target "
                                   "exploitability and store them.")
    p.add_argument("--games", nargs="+", type=_game, metavar="GAME",
                   help="only these games (default: " + ", ".join(default_games()) + ")")
    p.add_argument("--background", action="store_true",
                   help="build instead the lobby's games that take long (each by its own "
                        "command), reporting progress to --status-file")
    p.add_argument("--status-file", metavar="PATH",
                   help="with --background: where to report progress (JSON)")
    p.add_argument("--algorithm", choices=("auto", *ALGORITHMS), default=DEFAULT_ALGORITHM,
                   metavar="NAME", help="default auto: the fastest for each game")
    p.add_argument("--target-exploitability", type=_positive_float, default=DEFAULT_TARGET,
                   metavar="E", help=f"default {DEFAULT_TARGET}")
    _pruning_argument(p)
    p.add_argument("--quiet", action="store_true", help="no progress bars")

    p = sub.add_parser("opponents", parents=[common],
                       help="measure and store a game's exploitable opponents",
                       description="Early solves of graded exploitability and, once the game's "
                                   "equilibrium is stored, the equilibrium bent in each of the "
                                   "game's styles; each measured by exact best response and "
                                   "stored beside the equilibrium.")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--quiet", action="store_true", help="print nothing but errors")

    p = sub.add_parser("deepstack", parents=[common],
                       help="build the DeepStack opponent of no-limit Leduc and store it",
                       description="Solve random situations on Dask, train the value network "
                                   "on them, re-solve every decision of the bot in the lobby's "
                                   "no-limit Leduc with it and store the result as an opponent, "
                                   "judged by exact best response.")
    p.add_argument("--situations", type=int, default=30_000,
                   help="training situations (default 30,000)")
    p.add_argument("--hidden", default="128,128,128", help="units of each hidden layer")
    p.add_argument("--iterations", type=int, default=500,
                   help="CFR+ iterations a re-solve (default 500)")
    p.add_argument("--data", default=None, metavar="DIR",
                   help="where the situations and the network are kept (default: in the "
                        "solver's cache); a build cut short resumes from it")
    p.add_argument("--scheduler", default=None, help="a Dask scheduler's address")
    p.add_argument("--workers", type=int, default=None,
                   help="local worker processes (default: the machine's cores)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)

    dudo_games = [g for g in game_names() if isinstance(get_game(g), DudoGame)]
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
    p.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)

    p = sub.add_parser("recall-cost", parents=[common],
                       help="what remembering only the last bids costs, measured exactly",
                       description="Solve each game remembering 1, 2, ... bids and measure "
                                   "each strategy's exploitability in the real game (a row "
                                   "of docs/games/dudo.md's table per line).")
    p.add_argument("--games", nargs="+", default=["dudo", "dudo-1v2", "dudo-2v1"],
                   choices=dudo_games, metavar="GAME")
    p.add_argument("--memories", nargs="+", type=_positive_int, default=[1, 2, 3, 4],
                   metavar="M")
    p.add_argument("--iterations", type=_positive_int, default=1000, metavar="N")
    p.add_argument("--algorithm", choices=("cfr", "cfr+", "lcfr", "dcfr"), default="dcfr")

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

    p = sub.add_parser("bucket-cost", parents=[common],
                       help="what bucketing a hold'em member's hands costs, measured exactly",
                       description="Solve GAME exactly and in each bucket abstraction (every "
                                   "K, perfect and imperfect recall), the same iterations each, "
                                   "and print each strategy's exploitability in the real game "
                                   "(a row of docs/games/holdem.md's table per line).")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--ks", nargs="+", default=["2", "4", "8", "16", "all"], metavar="K")
    p.add_argument("--recalls", nargs="+", choices=("perfect", "imperfect"),
                   default=["perfect", "imperfect"])
    p.add_argument("--iterations", type=_positive_int, default=2000, metavar="N")
    p.add_argument("--algorithm", choices=("cfr", "cfr+", "lcfr", "dcfr"), default="dcfr")

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
    p.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)

    p = sub.add_parser("hulhe", parents=[common],
                       help="solve heads-up limit hold'em in a bucket abstraction and store it",
                       description="Public chance sampling CFR (a board per iteration with "
                                   "every hand at once, regret matching+ by epoch) on the real "
                                   "betting over distribution-aware buckets with imperfect "
                                   "recall (the first round's 169 classes kept; the flop's and "
                                   "turn's hands clustered by their equity histograms, the "
                                   "river's by percentile), in epochs on Dask (a local cluster "
                                   "of the machine's cores, or --scheduler), checkpointed and "
                                   "resumable; stored as tables (descriptor hist=k:...). "
                                   "--algorithm cs --metric ehs2 --buckets 128,128,128 "
                                   "--minutes 25 builds the earlier bot.")
    p.add_argument("--game", type=_game, default="holdem", metavar="GAME",
                   help="a member of the hold'em family (default holdem)")
    p.add_argument("--buckets", default=HULHE_BUCKETS, metavar="K1,K2,...",
                   help=f"buckets of each round after the first, or 'all' (default "
                        f"{HULHE_BUCKETS})")
    p.add_argument("--metric", choices=METRICS, default=DEFAULT_SPEC.metric,
                   help="how the rounds before the last are cut: E[HS²] percentiles or k-means "
                        f"of equity histograms (default {DEFAULT_SPEC.metric}; the river is "
                        "percentiles either way)")
    p.add_argument("--algorithm", choices=tuple(HULHE_ALGORITHMS), default=SampledSetup().algorithm,
                   help="what an iteration samples: a deal (chance sampling) or a board with "
                        "every hand at once (public chance sampling); default "
                        f"{SampledSetup().algorithm}")
    p.add_argument("--schedule", choices=tuple(SCHEDULES),
                   help="after each epoch, discount the regrets linearly or floor them at "
                        "zero (regret matching+); default "
                        + ", ".join(f"{schedule} with {algorithm}"
                                    for algorithm, schedule in DEFAULT_SCHEDULES.items()))
    p.add_argument("--opponent-buckets", metavar="K1,K2,...",
                   help="solve each seat against an opponent in these finer buckets (same "
                        "metric; an asymmetric abstraction, public chance sampling; each "
                        "board is walked twice)")
    p.add_argument("--betting", metavar="SIZES|CAPS",
                   help="a no-limit member's blueprint: the bet sizes it keeps and the raises "
                        "a round at most ('p a|3 2 2 2'; default for a member with every size: "
                        f"'{BLUEPRINT_BETTING}')")
    p.add_argument("--minutes", type=_positive_float, default=HULHE_MINUTES, metavar="M",
                   help=f"wall time of the solving (default {HULHE_MINUTES:g})")
    p.add_argument("--epochs", type=_positive_int, metavar="N",
                   help="stop after N epochs (default: when --minutes are up)")
    p.add_argument("--epoch-iterations", type=_positive_int, metavar="N",
                   help="iterations of an epoch, summed over the workers (default 400000 "
                        "deals, or 400 boards with --algorithm pcs)")
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
    p.add_argument("--turn-iterations", type=int, metavar="N",
                   help="with --resolve-from 3 or less: re-solve the turn in its own layout "
                        "with N CFR+ iterations (default: the general layout)")
    p.add_argument("--turn-sample", type=int, default=0, metavar="K",
                   help="river cards a turn iteration plays (default 0: all of them)")
    p.add_argument("--turn-warm", type=float, default=0.0, metavar="W",
                   help="a turn re-solve starts from the blueprint, its regrets W times the "
                        "blueprint's probabilities (default 0: from uniform)")
    p.add_argument("--turn-guard", action="store_true",
                   help="play a turn re-solve only where its margins weighted by the "
                        "opponent's range are non-negative, the blueprint elsewhere")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--dry-run", action="store_true", help=DRY_RUN_HELP)

    p = sub.add_parser("list", parents=[common], help="list the stored solves")

    sub.add_parser("figures", parents=[common],
                   help="work out the style figures a store built before they were kept with "
                        "each solve lacks",
                   description="For the latest solve of each game that has none (a store "
                               "built by an earlier version), work out the strategy's style "
                               "figures and store them with it; a build does so itself.")

    p = sub.add_parser("show", parents=[common], help="print a stored strategy")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--prefix", default="", help="only information sets whose key starts so")

    p = sub.add_parser("evaluate", parents=[common],
                       help="exact exploitability and value of the stored strategy")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)

    p = sub.add_parser("evaluate-holdem", parents=[common],
                       help="a hold'em bot in the real game: duplicate matches, LBR, self-play",
                       description="Measure a policy of a hold'em member by sampling the "
                                   "real game: duplicate matches against baselines (each deal "
                                   "played twice, seats swapped), Local Best Response against "
                                   "it (a lower bound on its exploitability) and its self-play "
                                   "value for seat 0, in milli-big-blinds per hand with 95% "
                                   "intervals.")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--policy", default="stored", metavar="NAME",
                   help=f"the policy to measure: one of {', '.join(policy_names())} (default "
                        f"stored: the latest exact solve in the store)")
    p.add_argument("--against", type=_opponents, default=None, metavar="NAMES",
                   help=f"comma-separated opponents, each a policy as --policy names them, "
                        f"e.g. stored for the blueprint a re-solving bot re-solves (default "
                        f"{','.join(BASELINES)}, in no-limit {','.join(NO_LIMIT_BASELINES)}); "
                        f"'' for none")
    p.add_argument("--deals", type=_positive_int, default=20_000, metavar="N",
                   help="deal pairs of each match and of self-play (default 20000)")
    p.add_argument("--lbr-hands", type=int, default=1000, metavar="N",
                   help="deal pairs LBR plays, once in each seat (default 1000; 0: no LBR)")
    p.add_argument("--lbr-setting", type=_lbr_setting, default=None, metavar="SETTING",
                   help=f"LBR's moves per round: {', '.join(NAMED)} or rounds of letters like "
                        f"'c/c/fcpa/fcpa' (f fold, c call, r any raise, p pot, a all-in; "
                        f"default fcr in limit, fc in no-limit)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-self-play", action="store_true",
                   help="leave out the self-play value (a re-solving bot's costs as a match)")
    p.add_argument("--exact", action="store_true",
                   help="also the exact exploitability and value (small members only)")
    p.add_argument("--quiet", action="store_true", help="no progress bars")

    p = sub.add_parser("export", parents=[common], help="print a stored strategy as JSON",
                       description="Print the stored strategy of GAME (its equilibrium, or a "
                                   "stored opponent's) to stdout. 'json' maps "
                                   "information sets to {label: probability}; 'openspiel' maps "
                                   "OpenSpiel information_state_string to {action id: "
                                   "probability} for the games OpenSpiel has (kuhn, leduc, dudo, "
                                   "the hold'em family).")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    p.add_argument("--format", choices=FORMATS, default="json")
    p.add_argument("--opponent", default="", metavar="NAME",
                   help="a stored opponent's strategy (e.g. deepstack) instead of the "
                        "equilibrium")
    p.add_argument("--pretty", action="store_true", help="indent the JSON")

    p = sub.add_parser("info", parents=[common], help="how big a game is",
                       description="Print GAME's sizes: information sets, histories (every "
                                   "state, chance and terminal ones included), public nodes, "
                                   "and for card games the betting sequences and the hands per "
                                   "round up to suits. Exact, without solving.")
    p.add_argument("game", type=_game, metavar="GAME", help=GAME_HELP)
    return parser


def _pruning_argument(p: argparse.ArgumentParser) -> None:
    p.add_argument("--pruning", choices=("auto", "on", "off"), default="auto",
                   help="skip the subtrees the other player does not reach (the same iterates; "
                        "cfr, cfr+, lcfr, dcfr); default auto: where the game says it pays")

"""One evaluation of a hold'em policy, as ``python -m solver evaluate-holdem`` prints it: duplicate
matches against the baselines, LBR against it, and its self-play value, all in mbb/hand ± 95%.

Policies are named: the baselines (`solver.evaluation.holdem.baselines.BASELINES`), ``stored``
(the latest solve in the strategy store: an exact solve of a small member, an abstraction
bot's tables, `solver.abstractions.holdem.bot.HulheBot`, or a re-solving bot's blueprint),
``re-solving`` (the latest solve as the re-solving bot plays it, `solver.resolving.kind`) and
``solve`` (a small member solved here, in memory). Other bots join with `register_policy`, so
the command stays the same for every member and every bot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from solver.abstractions import Abstraction, abstraction_for
from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.translated import Translated, TranslatedPolicy
from solver.evaluation.holdem.baselines import BASELINES, NO_LIMIT_BASELINES, baseline
from solver.evaluation.holdem.duplicate import duplicate_match, mbb, self_play
from solver.evaluation.holdem.lbr import local_best_response
from solver.evaluation.holdem.lbr_settings import LBRSetting
from solver.evaluation.holdem.policy import TabularPolicy, exact_evaluation
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import AnyPolicy
from solver.resolving.kind import Resolving
from strategies import SolveInfo, StrategyStore
from strategies.tables import TableStrategy

PolicyFactory = Callable[[HoldemGame, "str | None"], AnyPolicy]
"""(member, strategy store path or None for the default) -> the policy."""

_Latest = tuple[SolveInfo, Abstraction, TableStrategy]


def _latest(game: HoldemGame, store: str | None) -> _Latest | None:
    """The latest table solve of `game` in the store, its abstraction and its tables."""
    with StrategyStore.open(store or None) as opened:
        table = opened.table_strategy(game.name)
        info = opened.latest_solve(game.name)
    if table is None or info is None:
        return None
    return info, abstraction_for(game, info.abstraction), table


def _stored(game: HoldemGame, store: str | None) -> AnyPolicy:
    latest = _latest(game, store)
    if latest is None:
        return TabularPolicy.from_store(game, store)
    info, abstraction, table = latest
    if isinstance(abstraction, Resolving):  # its solve holds the blueprint's tables
        abstraction = abstraction.blueprint
    if isinstance(abstraction, Translated):
        return TranslatedPolicy(f"{game.name}-solve-{info.id}", abstraction, table)
    return HulheBot.from_store(game.name, store)


def _re_solving(game: HoldemGame, store: str | None) -> AnyPolicy:
    latest = _latest(game, store)
    if latest is None or not isinstance(latest[1], Resolving):
        raise ValueError(f"the latest solve of {game.name!r} is not a re-solving bot: store one "
                         f"with `python -m solver.resolving.store --game {game.name}`")
    return latest[1].bot(latest[2])


_FACTORIES: dict[str, PolicyFactory] = {
    "stored": _stored,
    "re-solving": _re_solving,
    "solve": lambda game, store: TabularPolicy.solved(game),
}


def register_policy(name: str, factory: PolicyFactory) -> None:
    """Make `name` a policy the command can evaluate (e.g. an abstract bot loaded from its
    blob)."""
    if name in BASELINES + NO_LIMIT_BASELINES:
        raise ValueError(f"{name!r} is a baseline's name")
    _FACTORIES[name] = factory


def policy_names() -> tuple[str, ...]:
    return tuple(dict.fromkeys((*_FACTORIES, *BASELINES, *NO_LIMIT_BASELINES)))


def make_policy(name: str, game: HoldemGame, store: str | None = None) -> AnyPolicy:
    """The policy called `name` for `game` (see `policy_names`)."""
    if name in BASELINES + NO_LIMIT_BASELINES:
        return baseline(name, game)
    factory = _FACTORIES.get(name)
    if factory is None:
        raise ValueError(f"unknown policy {name!r}; choose from {', '.join(policy_names())}")
    return factory(game, store)


def evaluate(game: HoldemGame, policy: AnyPolicy, against: Sequence[AnyPolicy], deals: int,
             lbr_deals: int, seed: int = 0, exact: bool = False, progress: bool = False,
             lbr_setting: LBRSetting | None = None, own: bool = True) -> dict[str, object]:
    """Everything the command prints, as one JSON-ready dict: ``matches`` (the policy against
    each of `against`), ``lbr`` (if `lbr_deals`), ``self_play`` (if `own`), and with `exact`
    the exact exploitability and seat-0 value (members small enough to compile only)."""
    report: dict[str, object] = {"game": game.name, "policy": policy.name,
                                 "big_blind": max(game.definition.blinds), "seed": seed}
    report["matches"] = [
        duplicate_match(game, policy, opponent, deals, seed, progress).as_dict()
        for opponent in against]
    if lbr_deals:
        report["lbr"] = local_best_response(game, policy, lbr_deals, seed, progress=progress,
                                            setting=lbr_setting).as_dict()
    if own and deals > 1:
        report["self_play"] = self_play(game, policy, deals, seed, progress).as_dict()
    if exact:
        evaluation = exact_evaluation(game, [policy])
        scale = mbb(game.definition)
        report["exact"] = {"exploitability_mbb_per_hand": evaluation.exploitability * scale,
                           "seat0_mbb_per_hand": evaluation.value * scale}
    return report


def report_lines(report: dict[str, object]) -> list[str]:
    """The report as text, one figure a line."""
    lines = [f"{report['policy']} in {report['game']} (mbb/hand, 95% intervals; big blind "
             f"{report['big_blind']} chips)"]
    lines.extend(f"  vs {match['opponent']:<13} {match['mbb_per_hand']:+9.1f} ± "
                 f"{match['ci95']:.1f}   ({match['deals']:,} deal pairs, "
                 f"{match['seconds']:.1f} s; luck taken out "
                 f"{match['adjusted_mbb_per_hand']:+.1f} ± {match['adjusted_ci95']:.1f})"
                 for match in report.get("matches", []))  # type: ignore[attr-defined]
    lbr = report.get("lbr")
    if isinstance(lbr, dict):
        lines.append(f"  LBR ({lbr['setting']}) wins {lbr['lbr_mbb_per_hand']:+9.1f} ± "
                     f"{lbr['ci95']:.1f}   "
                     f"(seat 0 {lbr['lbr_seat0']:+.1f}, seat 1 {lbr['lbr_seat1']:+.1f}; "
                     f"{lbr['deals']:,} deal pairs, {lbr['seconds']:.1f} s)")
        lines.append(f"    luck taken out {lbr['adjusted_mbb_per_hand']:+7.1f} ± "
                     f"{lbr['adjusted_ci95']:.1f}   (the same hands, the cards' and the bot's "
                     f"luck subtracted)")
    own = report.get("self_play")
    if isinstance(own, dict):
        lines.append(f"  self-play seat 0 {own['seat0_mbb_per_hand']:+7.1f} ± {own['ci95']:.1f}   "
                     f"({own['deals']:,} deals, each also with the hands exchanged, "
                     f"{own['seconds']:.1f} s)")
    exact = report.get("exact")
    if isinstance(exact, dict):
        lines.append(f"  exact: exploitability {exact['exploitability_mbb_per_hand']:.2f}, "
                     f"seat 0 {exact['seat0_mbb_per_hand']:+.2f}")
    return lines

"""How much narrower the luck-adjusted results are than the raw ones: simulated players against
the stored bot of a game, every hand analysed as the app analyses a person's
(`app.services.analysis.analyse`), the habits carried from hand to hand.

    .venv/bin/python -m experiments.luck holdem --hands 10000 \\
        --players equilibrium,always-call,uniform,tight --store PATH [--json]

Per player: the raw mean and 95% interval per hand, the luck-adjusted ones (what the results
show), the equilibrium's estimate alone (the seat's value plus Q - V), the habits' alone, the
habits' less the player's own draws (`own_draws`: what only an estimator told the player's
strategy could remove), how narrow any estimator not told it could be at most
(`narrowest_unaware`: the raw spread over its draws' own, `draws_spread`), the adjusted one
before the correction for its opening's luck (`app.services.analysis.openings`), the ratio of the
raw interval's width to each, and CPU and wall seconds.  Where the game is solved exactly, and for
a hold'em bot on a member whose tree compiles (a blueprint, or one re-solving the last round:
`valuer.played`), the player's exact expected winnings from a full traversal too.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import time
from pathlib import Path
from typing import cast

from app.services.analysis import analyse, coach, results
from app.services.bots.bot import StoredStrategyBot
from app.services.bots.strategy_source import StrategySource
from solver.evaluation.values import UnreadableHand, valuer_for
from solver.evaluation.values.base import Segment
from solver.evaluation.values.exact import TreeValues
from solver.evaluation.values.holdem import HoldemValues
from solver.games import get_game, get_view
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import HoldemPolicy
from strategies import default_store_path
from tests.app.simulated import RULES, Rule, chooser, holdem_rule_result, play, rule_result

PLAYERS = {"equilibrium": None, **{name.replace(" ", "-"): rule for name, rule in RULES.items()}}


def measure(game_name: str, store: Path, player: str, hands: int, seed: int, every: int = 0
            ) -> dict[str, object]:
    game = get_game(game_name)
    source = StrategySource(store)
    bot = StoredStrategyBot(source)
    info = source.solve(game_name)
    valuer = valuer_for(game, info, source.store())
    rule = PLAYERS[player]
    rng = random.Random(seed)
    choose = chooser(bot, game, rule, rng)
    state = analyse.MatchState()
    raw: list[float] = []
    adjusted: list[float] = []
    plain: list[float] = []
    habitual: list[float] = []
    choices: list[float] = []  # the habits' estimate with the model started from its choices
    told: list[float] = []  # the habits' estimate less the player's own draws (`own_draws`)
    unopened: list[float] = []  # the adjusted result before its opening's correction
    spread = [0.0, 0.0]  # the draws' variance summed over the hands, per start of the habits
    unreadable = 0  # hands the value function could not value (`UnreadableHand`)
    cpu, wall = time.process_time(), time.perf_counter()
    for n in range(hands):
        seat = n % 2
        payoff, trace = play(game, bot, seat, choose, rng)
        try:
            segments, choice_segments = valuer.both_starts(trace.state, seat, state.habits,
                                                           seed * 1_000_003 + n)
        except UnreadableHand:  # counted raw, as the app counts it
            unreadable += 1
            for kept in (raw, adjusted, plain, habitual, choices, told, unopened):
                kept.append(payoff)
            continue
        done = analyse.analyse(valuer, trace, seat, payoff, state, seed=seed * 1_000_003 + n,
                                segments=segments, choice_segments=choice_segments)
        state = done.state
        raw.append(payoff)
        adjusted.append(done.review.adjusted)
        plain.append(done.review.plain)
        habitual.append(done.review.habitual)
        choices.append(float(done.record["habits_from_choices"]))
        told.append(done.review.habitual - own_draws(segments, done.review, rule))
        for k, valued in enumerate((segments, choice_segments)):
            spread[k] += draws_spread(valued, done.review, rule)
        change = done.record.get("opening", {}).get("change", [0.0] * len(done.record["weights"]))
        unopened.append(done.review.adjusted - sum(
            w * c for w, c in zip(done.record["weights"], change, strict=True)))
        if every and (n + 1) % every == 0 and n + 1 < hands:
            _progress(player, raw, adjusted, time.process_time() - cpu)
    cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    stats = {name: results.summarize(xs) for name, xs in
             (("raw", raw), ("adjusted", adjusted), ("plain", plain), ("habitual", habitual),
              ("choices", choices), ("told", told), ("unopened", unopened))}
    exact = None
    if isinstance(valuer, TreeValues):
        exact = rule_result(valuer.tree, valuer.strategy, rule)
    elif isinstance(valuer, HoldemValues) and isinstance(game, HoldemGame) and compiles(game):
        # The bot as it plays (re-solving, or its tables): the truth the mean should cover.
        playing = cast(HoldemPolicy, valuer.played if valuer.played is not None else valuer.bot)
        exact = holdem_rule_result(game, playing, rule)

    def half(s: results.Stats) -> float:
        assert s.ci95_high is not None and s.ci95_low is not None
        return (s.ci95_high - s.ci95_low) / 2

    out: dict[str, object] = {"game": game_name, "player": player, "hands": hands,
                              "seed": seed, "exact": exact, "unreadable": unreadable,
                              "cpu_seconds": round(cpu, 1), "wall_seconds": round(wall, 1),
                              "weights_at_end": list(state.weights())}
    for name, s in stats.items():
        out[name] = {"mean": s.mean, "ci95_half": half(s), "std": s.std}
    out["narrower"] = half(stats["raw"]) / half(stats["adjusted"])
    out["narrower_plain"] = half(stats["raw"]) / half(stats["plain"])
    out["narrower_habitual"] = half(stats["raw"]) / half(stats["habitual"])
    out["narrower_choices"] = half(stats["raw"]) / half(stats["choices"])
    out["narrower_told"] = half(stats["raw"]) / half(stats["told"])
    out["narrower_unopened"] = half(stats["raw"]) / half(stats["unopened"])
    # The more generous of the two starts' values: the bound is an estimate either way.
    least = min(spread) / hands
    raw_std = stats["raw"].std
    out["narrowest_unaware"] = (raw_std / math.sqrt(least) if least > 0 and raw_std
                                else None)
    unit = get_view(game.name).result_unit
    if unit is not None:
        out["unit"] = unit.name
        out["per_chip"] = unit.per_chip
    source.close()
    return out


def own_draws(segments: list[Segment], review: coach.HandReview, rule: Rule | None) -> float:
    """The part of the habits' estimate (`HandReview.habitual`) that is the player's own dice:
    over its decisions, the value (with the habits' values: the player going on as its habits)
    of the action it drew less its rule's mean value there.  Zero for a rule that never mixes
    and for the equilibrium player.  With habits that have learnt the rule, the rest of that
    estimate is close to a constant: what its spread keeps is these draws, which only an
    estimator told the player's strategy could take out (their expectation is zero).
    `segments` are the hand's values that `analyse.analyse` judged."""
    return sum(values[chosen] - sum(p * q for p, q in zip(rule_row, values, strict=True))
               for values, rule_row, chosen in _draws(segments, review, rule))


def draws_spread(segments: list[Segment], review: coach.HandReview, rule: Rule | None
                 ) -> float:
    """The variance the player's own dice add to the hand, given where they led: over its
    decisions, the variance under its rule of the value of the action drawn.  An estimator
    not told the strategy cannot remove it (for one decision, being unbiased for every
    strategy forces the estimate to be the drawn action's value), so the raw variance over
    its mean bounds how much narrower any such estimator can be; about, since the values are
    the habits' model, sampled before the turn in hold'em."""
    total = 0.0
    for values, rule_row, _ in _draws(segments, review, rule):
        mean = sum(p * q for p, q in zip(rule_row, values, strict=True))
        total += sum(p * (q - mean) ** 2 for p, q in zip(rule_row, values, strict=True))
    return total


def _draws(segments: list[Segment], review: coach.HandReview, rule: Rule | None
           ) -> list[tuple[tuple[float, ...], tuple[float, ...], int]]:
    """Per decision of the player where its rule mixes: the habits' values of its actions,
    the rule's probabilities, and the index of the action drawn."""
    if rule is None or all(max(rule(d.infoset, d.policy.labels)) == 1.0
                           for d in review.decisions):
        return []
    valued = [d for segment in segments for d in segment.decisions]
    out = []
    for judged, decision in zip(review.decisions, valued, strict=True):
        values = (decision.model_values if decision.model_values is not None
                  else decision.values)
        out.append((tuple(values), tuple(rule(judged.infoset, decision.labels)),
                    decision.labels.index(judged.chosen)))
    return out


def compiles(game: HoldemGame) -> bool:
    """Whether the member is small enough to walk every deal (holdem-mini, not HULHE)."""
    return game.definition.num_cards <= 12


def _progress(player: str, raw: list[float], adjusted: list[float], cpu: float) -> None:
    """The figures so far, for a long run that may be cut short (`--every`)."""
    r, a = results.summarize(raw), results.summarize(adjusted)
    assert r.std is not None and a.std is not None
    print(json.dumps({"player": player, "hands_so_far": len(raw), "raw_mean": r.mean,
                      "adjusted_mean": a.mean, "narrower": r.std / a.std if a.std else None,
                      "cpu_seconds": round(cpu, 1)}), flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("game")
    parser.add_argument("--store", type=Path, default=None)
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--every", type=int, default=0, metavar="N",
                        help="also print the figures so far every N hands")
    args = parser.parse_args()
    store = args.store if args.store is not None else default_store_path()
    for player in args.players.split(","):
        row = measure(args.game, store, player, args.hands, args.seed, args.every)
        if args.json:
            print(json.dumps(row), flush=True)
            continue
        scale = float(row.get("per_chip", 1.0))  # type: ignore[arg-type]
        name = str(row.get("unit", "chips/hand"))

        def text(key: str, row: dict[str, object] = row, scale: float = scale) -> str:
            s = row[key]
            assert isinstance(s, dict)
            return f"{s['mean'] * scale:+.3f} ± {s['ci95_half'] * scale:.3f}"

        exact = row["exact"]
        print(f"{player:12s} raw {text('raw')}  adjusted {text('adjusted')}  "
              f"({row['narrower']:.2f}x narrower; equilibrium values alone "
              f"{row['narrower_plain']:.2f}x, the habits' alone "
              f"{row['narrower_habitual']:.2f}x, from its choices "
              f"{row['narrower_choices']:.2f}x, and less the player's own draws "
              f"{row['narrower_told']:.2f}x; before the opening's correction "
              f"{row['narrower_unopened']:.2f}x"
              + (f"; its draws allow at most {row['narrowest_unaware']:.2f}x"
                 if row["narrowest_unaware"] is not None else "")
              + f")  {name}"
              + (f"  exact {float(exact) * scale:+.3f}" if isinstance(exact, float) else "")
              + (f"  {row['unreadable']} hands counted raw (not readable)"
                 if row["unreadable"] else "")
              + f"  cpu {row['cpu_seconds']} s, wall {row['wall_seconds']} s", flush=True)
        assert not math.isnan(float(row["narrower"]))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()

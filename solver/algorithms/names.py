"""The solvers' algorithms in words, for the people reading what a stored solve ran: the store
keeps a short name (``pdcfr+``, ``dcfr+fsicfr``, ``cs-cfr``, ``cs-cfr+resolving``), the pages
explain it."""

from __future__ import annotations

NAMES = {
    "cfr": "counterfactual regret minimisation (CFR), in which each iteration walks the whole "
           "game and each decision moves towards the moves it regrets not having made",
    "cfr+": "CFR+, CFR whose regrets never go below zero and whose later iterations count "
            "more",
    "lcfr": "Linear CFR, CFR whose iteration t counts t times",
    "dcfr": "Discounted CFR, CFR that discounts old regrets so that early mistakes fade",
    "pcfr+": "predictive CFR+, CFR+ that plays as if the next iteration's regrets were the "
             "last ones again",
    "pdcfr+": "predictive discounted CFR+, which discounts old regrets and plays as if the "
              "next iteration's regrets were the last ones again",
    "es-mccfr": "external-sampling Monte Carlo CFR, CFR on sampled chance outcomes and "
                "opponent moves",
    "os-mccfr": "outcome-sampling Monte Carlo CFR, CFR along one sampled play at a time",
    "rm": "regret matching in self-play",
    "cs-cfr": "chance-sampled CFR with Linear CFR's weighting: one deal of the cards per "
              "iteration, every betting sequence of it",
    "pcs-cfr": "public chance sampling CFR with Linear CFR's weighting: one board per "
               "iteration, every hand of both players and every betting sequence of it",
    "cs-cfr+": "chance-sampled CFR with regret matching+ (regrets floored at zero after "
               "each epoch) and Linear CFR's average: one deal of the cards per iteration, "
               "every betting sequence of it",
    "pcs-cfr+": "public chance sampling CFR with regret matching+ (regrets floored at zero "
                "after each epoch) and Linear CFR's average: one board per iteration, every "
                "hand of both players and every betting sequence of it",
    "deepstack": "DeepStack's continual re-solving: at each decision CFR+ over the rest of the "
                 "betting round from the actual bets, a value network trained on solved spots "
                 "where the round ends, its range and the opponent's values carried over",
}
RESOLVING = ("CFR+ over the rest of the hand at each of the bot's decisions, from the "
             "blueprint's ranges")
FSICFR = ("fixed-strategy iteration CFR (FSICFR), which updates each position of the "
          "abstract game once per iteration")


def describe_algorithm(name: str) -> str:
    """``pdcfr+``, ``dcfr+fsicfr`` (a schedule run by FSICFR), ``cs-cfr+resolving`` (a
    blueprint the bot re-solves from at play time) or ``pcs-cfr+ against BUCKETS`` (solved
    against a finer opponent) in words; an unknown name as it is."""
    base, resolving, _ = name.partition("+resolving")
    if resolving:
        return f"{describe_algorithm(base)}, and at play time {RESOLVING}"
    base, opponent, buckets = name.partition(" against ")
    if opponent:
        return (f"{describe_algorithm(base)}; each seat solved against an opponent in finer "
                f"buckets ({buckets}), which keeps it from weaknesses an opponent as coarse as "
                "itself would not see")
    schedule, fsicfr, _ = name.partition("+fsicfr")
    if fsicfr and schedule in NAMES:
        return f"{FSICFR}, weighted as in {NAMES[schedule].split(',')[0]}"
    return NAMES.get(name, name)

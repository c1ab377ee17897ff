"""Values of a player's decisions against the bot, computed at play time where a solve stores
none: what the coach and the luck-adjusted results read (`app.services.analysis.coach`).

One value function per kind of solve (`valuer_for` picks it from the solve's abstraction, so
callers never name a game):

* a game solved exactly: its compiled tree and stored strategy (`exact.TreeValues`);
* hold'em solved over buckets: the betting below each decision over the deals, exact on the
  turn and the river, sampled before (`holdem.HoldemValues`); a bot that re-solves the later
  rounds at play time by its blueprint's tables after each decision, its range following what
  it played, and AIVAT's correction at each of its decisions where it played otherwise (which
  keeps the luck-adjusted result against it unbiased);
* no-limit hold'em played from a translated blueprint, by translation or re-solving: the hand
  read into the blueprint's game and valued there as above (`no_limit.NoLimitValues`);
* Dudo solved remembering the last bids, alone or as the rounds of a match: the round's recall
  graph, exact (`dudo.DudoValues`).

Each takes the bot's strategy as an input and says what a hand's decisions were worth
(`base.DecisionValues`, in `base.Segment`s), both players following the bot's strategy after
each decision, and also with the player following its own habits (`base.Habits`).

Example::

    from solver.evaluation.values import valuer_for
    from solver.games import get_game
    from strategies import StrategyStore

    with StrategyStore.open() as store:
        game = get_game("dudo-2v2")
        valuer = valuer_for(game, store.latest_solve(game.name), store)
        valuer.segments(final_state, seat=0, habits=None, rng=np.random.default_rng())
"""

from __future__ import annotations

from solver.abstractions import Exact, abstraction_for
from solver.abstractions.dudo_recall.remembered_bids import Recall
from solver.abstractions.holdem.bot import HulheBot
from solver.abstractions.holdem.percentiles import Percentiles
from solver.abstractions.holdem.translated import Translated, TranslatedPolicy
from solver.evaluation.stored import stored_strategy_array
from solver.evaluation.values.base import (
    DecisionValues,
    Habits,
    HandValuer,
    Opening,
    Reference,
    Segment,
    UnreadableHand,
    choices_key,
    from_choices,
    habit_mix,
    two_walks,
)
from solver.evaluation.values.dudo import DudoValues
from solver.evaluation.values.exact import TreeValues
from solver.evaluation.values.holdem import HoldemValues
from solver.evaluation.values.no_limit import NoLimitValues
from solver.games.base import Game
from solver.games.dudo.match import DudoMatchGame, loser_payoffs
from solver.games.holdem.policy import HoldemPolicy, SparsePolicy
from solver.resolving.kind import Resolving
from strategies import InfosetStrategy, SolveInfo, StrategyStore
from strategies.figures import WIN_CHANCES

__all__ = ["DecisionValues", "Habits", "HandValuer", "Opening", "Reference", "Segment",
           "UnreadableHand", "choices_key", "from_choices", "habit_mix", "two_walks", "valuer_for"]


def valuer_for(game: Game, info: SolveInfo, store: StrategyStore) -> HandValuer:
    """The value function of `game` under its stored solve `info` (read from `store`);
    ValueError for a solve no value function here reads."""
    abstraction = abstraction_for(game, info.abstraction)
    if isinstance(abstraction, Exact):
        tree, flat = stored_strategy_array(store, game)
        return TreeValues(game, tree, flat)
    if isinstance(abstraction, (Percentiles, Resolving, Translated)):
        table = store.table_strategy(game.name, info.id)
        if table is None:
            raise ValueError(f"the solve of {game.name!r} has no tables")
        tables = abstraction if not isinstance(abstraction, Resolving) else abstraction.blueprint
        if isinstance(tables, Translated):
            bot = (abstraction.bot(table) if isinstance(abstraction, Resolving) else
                   TranslatedPolicy("translated", tables, table))
            assert isinstance(bot, SparsePolicy)  # a translated blueprint's bots name moves
            return NoLimitValues(tables, table, bot)
        played = abstraction.bot(table) if isinstance(abstraction, Resolving) else None
        assert isinstance(played, HoldemPolicy | None)  # a table blueprint's bot is one
        return HoldemValues(HulheBot(f"{game.name}-solve-{info.id}", tables.rules, tables.spec,
                                     table), played)
    if isinstance(abstraction, Recall):
        def rows(prefix: str) -> list[InfosetStrategy]:
            return store.infoset_page(game.name, prefix=prefix)[1]
        if isinstance(game, DudoMatchGame):
            written = store.figures(info.id).get(WIN_CHANCES)
            if not isinstance(written, dict):
                raise ValueError(f"the solve {info.id} of {game.name!r} has no table of "
                                 "winning chances")
            chances = {(int(a), int(b)): p for (a, _, b), p in
                       ((k.partition("v"), p) for k, p in written.items())}
            return DudoValues(game, abstraction, rows,
                              lambda counts: loser_payoffs(counts, chances))
        return DudoValues(game, abstraction, rows, lambda counts: (-1.0, 1.0))
    raise ValueError(f"no value function reads the {info.abstraction!r} solve of {game.name!r}")

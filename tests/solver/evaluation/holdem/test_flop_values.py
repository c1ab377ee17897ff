"""The values of each action at a flop decision, the rest of the flop walked and the turn and
river in the turn re-solver's layout, against a brute-force walk of the game's own states on
an eight-card, four-round member."""

from __future__ import annotations

import zlib
from functools import cache

import numpy as np
import pytest
from numpy.typing import NDArray

from solver.evaluation.holdem.flop_values import action_values, summarise
from solver.games import get_game
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemGame, HoldemState
from solver.games.holdem.policy import legal_mask

EIGHT_FOUR_ROUNDS = "holdem(numRanks=4,numSuits=2,numBoardCards=0 1 1 1,maxRaises=1 1 1 1)"


@cache
def _row(acpc: str, board: tuple[int, ...], hole: tuple[int, int]) -> tuple[float, ...]:
    seed = zlib.crc32(f"{acpc}|{board}|{hole}".encode())
    return tuple(np.random.default_rng(seed).random(3) + 0.05)


class HashedPolicy:
    """Fixed, lopsided probabilities for every (betting, board, hand): a strategy with no
    structure for the layout to lean on."""

    name = "hashed"

    def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                             holes: NDArray[np.int64]) -> NDArray[np.float64]:
        rows = np.array([_row(betting.acpc(), tuple(board), (int(a), int(b)))
                         for a, b in np.asarray(holes).reshape(-1, 2)])
        rows = rows * legal_mask(betting)
        out: NDArray[np.float64] = rows / rows.sum(axis=1, keepdims=True)
        return out


def _brute(game: HoldemGame, policy: HashedPolicy, me: int, hole: tuple[int, int],
           betting: Betting, board: tuple[int, ...], weights: dict[tuple[int, int], float],
           best: str) -> float:
    """The acting player's chips summed over the other's hands (each weighted by its reach),
    from `betting` on `board`, playing `policy` (`best` empty), its best response on the last
    round only (``river``) or everywhere (``all``)."""
    rules = game.definition
    if betting.over:
        total = 0.0
        for other, w in weights.items():
            holes = (hole, other) if me == 0 else (other, hole)
            state = HoldemState(game, (), holes[0] + holes[1] + board, betting)
            total += w * state.returns()[me]
        return total
    if len(board) < rules.board_dealt(betting.round):
        left = [c for c in range(rules.num_cards) if c not in board and c not in hole]
        chance = 1.0 / (rules.num_cards - len(board) - 4)
        return chance * sum(_brute(game, policy, me, hole, betting, board + (c,),
                                   {o: w for o, w in weights.items() if c not in o}, best)
                            for c in left)
    legal = betting.legal_actions()
    if betting.player == me:
        values = [_brute(game, policy, me, hole, betting.apply(a), board, weights, best)
                  for a in legal]
        if best == "all" or (best == "river" and betting.round == rules.num_rounds - 1):
            return max(values)
        probs = policy.action_probabilities(betting, board, np.array([hole]))[0]
        return float(sum(probs[a] * v for a, v in zip(legal, values, strict=True)))
    others = list(weights)
    probs = policy.action_probabilities(betting, board, np.array(others))
    return sum(_brute(game, policy, me, hole, betting.apply(a), board,
                      {o: weights[o] * probs[i, a] for i, o in enumerate(others)}, best)
               for a in legal)


def _game() -> HoldemGame:
    game = get_game(EIGHT_FOUR_ROUNDS)
    assert isinstance(game, HoldemGame)
    return game


@pytest.mark.parametrize(("line", "flop"), [("rc/cr", (0,)), ("rc/cr", (5,)), ("rc/c", (3,))])
@pytest.mark.slow
def test_each_action_is_valued_as_the_game_itself_plays_it_out(line: str, flop: tuple[int]
                                                               ) -> None:
    game = _game()
    policy = HashedPolicy()
    values = action_values(policy, game.definition, line, flop)
    at = Betting.start(game.definition)
    for char in line.replace("/", ""):
        at = at.apply("fcr".index(char))
    me = at.player
    hands = [(int(a), int(b)) for a, b in values.hands]
    # The other's reach along the line, by the policy's own probabilities.
    reach = {}
    for other in hands:
        r, b = 1.0, Betting.start(game.definition)
        for char in line.replace("/", ""):
            if b.player != me:
                shown = flop[:game.definition.board_dealt(b.round)]
                r *= policy.action_probabilities(b, shown, np.array([other]))[0, "fcr".index(char)]
            b = b.apply("fcr".index(char))
        reach[other] = r
    legal = at.legal_actions()
    assert np.isnan(values.as_played[:, [a for a in range(3) if a not in legal]]).all()
    for i, hole in enumerate(hands):
        weights = {o: w for o, w in reach.items() if not set(o) & set(hole)}
        mass = sum(weights.values())
        for a in legal:
            for best, got in (("", values.as_played[i, a]), ("river", values.river_best[i, a]),
                              ("all", values.best[i, a])):
                want = _brute(game, policy, me, hole, at.apply(a), flop, weights, best) / mass
                assert got == pytest.approx(want, abs=1e-5), (hole, a, best)
    assert len(hands) == 21
    # A best response after the action earns at least the policy's own play, somewhere more;
    # one on the river alone in between.
    played, river, whole = (x[:, legal] for x in (values.as_played, values.river_best,
                                                   values.best))
    assert (river >= played - 1e-9).all() and (whole >= river - 1e-9).all()
    assert (river > played + 1e-3).any() and (whole > river + 1e-3).any()
    if line == "rc/cr":  # a fold loses what the folder put in: two big blinds
        assert np.allclose(values.as_played[:, 0], -4.0) and np.allclose(values.best[:, 0], -4.0)


def test_the_summary_weighs_each_hand_by_the_deals_that_reach_it() -> None:
    rules = _game().definition
    values = [action_values(HashedPolicy(), rules, "rc/cr", (c,)) for c in (0, 5)]
    summary = summarise(values, "rc/cr")
    reached = sum(v.reach.sum() for v in values)
    folded = sum((v.reach * v.probs[:, 0]).sum() for v in values)
    assert summary.shares["f"] == pytest.approx(folded / reached)
    assert sum(summary.shares.values()) == pytest.approx(1.0)
    # The regret is what the best action gains over the mix; no single action gains more,
    # and a best response after the action gains at least as much.
    assert 0.0 < max(summary.gains.values()) <= summary.regret <= summary.regret_best
    assert 0.0 < summary.river_gain <= summary.regret_best
    assert all(0.0 <= x <= 1.0 for x in summary.better_elsewhere.values())


def test_a_line_that_does_not_end_on_the_flop_is_refused() -> None:
    rules = _game().definition
    with pytest.raises(ValueError, match="decision on the flop"):
        action_values(HashedPolicy(), rules, "r", (0,))
    with pytest.raises(ValueError, match="decision on the flop"):
        action_values(HashedPolicy(), rules, "rc/crc/r", (0,))

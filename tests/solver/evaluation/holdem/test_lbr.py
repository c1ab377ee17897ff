from __future__ import annotations

import itertools

import numpy as np
import pytest
from numpy.typing import NDArray

from solver.cards.evaluator import evaluate
from solver.evaluation.holdem.baselines import AlwaysCall, AlwaysRaise, Uniform
from solver.evaluation.holdem.duplicate import mbb
from solver.evaluation.holdem.lbr import Choice, LocalBestResponse, local_best_response
from solver.evaluation.holdem.policy import TabularPolicy, exact_evaluation
from solver.games.holdem.betting import CALL, FOLD, RAISE, Betting
from solver.games.holdem.game import HoldemGame
from solver.games.holdem.policy import HoldemPolicy


def _exploitability(game: HoldemGame, policy: HoldemPolicy) -> float:
    return exact_evaluation(game, [policy]).exploitability * mbb(game.definition)


def test_win_probability_by_brute_force(mini: HoldemGame) -> None:
    lbr = LocalBestResponse(mini, AlwaysCall())
    rng = np.random.default_rng(0)
    deck = mini.definition.deck
    for _ in range(30):
        cards = rng.permutation(8)
        mine, board = cards[:2], cards[2:3] if rng.random() < 0.5 else cards[2:2]
        weights = rng.random(len(lbr.combos)) * (rng.random(len(lbr.combos)) < 0.7)
        weights[np.isin(lbr.combos, np.concatenate([mine, board])).any(axis=1)] = 0.0
        completions = lbr.completions(np.concatenate([mine, board]), 1 - len(board), rng)
        won = total = 0.0
        for h, w in enumerate(weights):
            for extra in completions.tolist():
                theirs = lbr.combos[h].tolist()
                if w == 0 or set(theirs) & set(extra):
                    continue
                full = tuple(board.tolist()) + tuple(extra)
                a = evaluate(tuple(mine.tolist()) + full, deck)
                b = evaluate(tuple(theirs) + full, deck)
                won += w * (1.0 if a > b else 0.5 if a == b else 0.0)
                total += w
        assert lbr.wp(mine, board, completions, weights) == pytest.approx(won / total)


def test_completions_are_all_or_a_sample(hulhe: HoldemGame) -> None:
    lbr = LocalBestResponse(hulhe, AlwaysCall(), rollouts=200)
    rng = np.random.default_rng(0)
    turn = lbr.completions(np.arange(6), 1, rng)
    assert turn.shape == (46, 1) and len(set(turn.ravel().tolist())) == 46
    flop = lbr.completions(np.arange(5), 2, rng)
    assert flop.shape == (200, 2) and not np.isin(flop, np.arange(5)).any()
    assert (flop[:, 0] != flop[:, 1]).all()


def test_lbr_bets_a_winner_and_folds_a_loser(mini: HoldemGame) -> None:
    """On the last round against a range it beats, LBR bets; facing a bet from a range that
    beats it, it folds; the values are the call-down formulas."""
    lbr = LocalBestResponse(mini, AlwaysCall())
    rng = np.random.default_rng(0)
    river = Betting.start(mini.definition).apply(CALL).apply(CALL)  # pot 4, big blind to act
    board = (0,)  # 2c
    deck = mini.definition.deck

    def against(mine: tuple[int, ...], stronger: bool) -> np.ndarray:
        """The range of the hands that beat (or lose to) `mine` on the board, uniform."""
        ours = evaluate(mine + board, deck)
        weights = np.zeros(len(lbr.combos))
        for i, hand in enumerate(lbr.combos.tolist()):
            if not set(hand) & set(mine + board):
                theirs = evaluate(tuple(hand) + board, deck)
                weights[i] = float(theirs > ours if stronger else theirs < ours)
        assert weights.sum() > 0
        return weights

    deuces = (1, 6)  # 2d5c: a pair of deuces
    choice = lbr.choose(river, np.array(deuces), board, against(deuces, False), rng)
    assert choice.wp == 1.0
    assert choice.fold_probability == 0.0  # always-call never folds
    assert choice.action == RAISE
    assert choice.values[CALL] == pytest.approx(4.0)
    assert choice.values[RAISE] == pytest.approx(4.0 + 4.0)
    facing = river.apply(RAISE).apply(RAISE)  # pot 12, LBR asked 4
    weak = (2, 4)  # 3c4c: four high
    choice = lbr.choose(facing, np.array(weak), board, against(weak, True), rng)
    assert choice.wp == 0.0
    assert choice.values[CALL] == pytest.approx(-4.0)
    assert choice.action == FOLD


@pytest.fixture(scope="module")
def exact(mini: HoldemGame, solved: TabularPolicy) -> dict[str, float]:
    return {p.name: _exploitability(mini, p) for p in (AlwaysCall(), Uniform(), solved)}


@pytest.mark.parametrize("rollouts", [200, 2])
@pytest.mark.slow
def test_lbr_against_always_call_is_positive_and_below_the_best_response(
        mini: HoldemGame, exact: dict[str, float], rollouts: int) -> None:
    """With 2 rollouts LBR samples 2 of the 6 cards the board card can be before it is dealt
    (the path of HULHE's early rounds); with 200 it weighs them all."""
    result = local_best_response(mini, AlwaysCall(), 1500, seed=1, rollouts=rollouts)
    assert result.estimate.low <= exact["always-call"]  # about 702 mbb/hand
    assert result.estimate.low > 500


@pytest.mark.slow
def test_lbr_against_uniform_is_positive_and_below_the_best_response(
        mini: HoldemGame, exact: dict[str, float]) -> None:
    result = local_best_response(mini, Uniform(), 1500, seed=2)
    assert result.estimate.low <= exact["uniform"]  # about 1,683 mbb/hand
    assert result.estimate.low > 1000


@pytest.mark.slow
def test_lbr_cannot_beat_an_exact_solution(mini: HoldemGame, solved: TabularPolicy,
                                          exact: dict[str, float]) -> None:
    result = local_best_response(mini, solved, 1500, seed=3)
    assert exact[solved.name] < 0.1  # mbb/hand
    assert result.estimate.low <= exact[solved.name]
    assert result.estimate.high < 150


def test_where_lbr_wins_adds_up_and_names_the_bots_folds(mini: HoldemGame) -> None:
    """Against a bot that never folds no hand ends with its fold; against one that folds
    whenever it faces a bet (the big blind's too), most hands end with its fold at once.
    Each seat's rows share out its hands and add up to its result."""
    called = local_best_response(mini, AlwaysCall(), 300, seed=4)
    for seat in (0, 1):
        where = called.where[f"seat{seat}"]
        assert not any(name.endswith("the bot folds") for name in where)
        assert sum(row["share"] for row in where.values()) == pytest.approx(1.0)
        assert sum(row["mbb_per_hand"] for row in where.values()) == pytest.approx(
            called.seats[seat])

    class FoldsToRaises:
        name = "folds-to-raises"

        def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                                 holes: np.ndarray) -> np.ndarray:
            row = [0.0, 1.0, 0.0] if betting.spent[0] == betting.spent[1] else [1.0, 0.0, 0.0]
            return np.tile(row, (len(holes), 1))

    folded = local_best_response(mini, FoldsToRaises(), 100, seed=5)
    for seat in (0, 1):
        where = folded.where[f"seat{seat}"]
        assert where["round 1: the bot folds"]["share"] > 0.5
        assert where["round 1: the bot folds"]["mbb_per_hand"] > 0


def test_lbr_plays_hulhe(hulhe: HoldemGame) -> None:
    result = local_best_response(hulhe, AlwaysRaise(), 30, seed=0)
    assert result.estimate.low > 0
    assert result.deals == 30 and len(result.seats) == 2


def test_lbr_range_is_the_bayesian_posterior(mini: HoldemGame,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """A policy that raises exactly with pairs: after it raises, LBR's range holds only pairs."""
    class PairsRaise:
        name = "pairs-raise"

        def action_probabilities(self, betting: Betting, board: tuple[int, ...],
                                 holes: np.ndarray) -> np.ndarray:
            pair = (holes[:, 0] // 2) == (holes[:, 1] // 2)
            rows = np.zeros((len(holes), 3))
            can_raise = RAISE in betting.legal_actions()
            rows[:, CALL] = 1.0
            if can_raise:
                rows[pair, RAISE], rows[pair, CALL] = 1.0, 0.0
            return rows

    seen: list[np.ndarray] = []
    lbr = LocalBestResponse(mini, PairsRaise())
    original = lbr.choose

    def spy(betting: Betting, mine: NDArray[np.int64], board: tuple[int, ...],
            weights: NDArray[np.float64], rng: np.random.Generator) -> Choice:
        seen.append(weights.copy())
        return original(betting, mine, board, weights, rng)

    monkeypatch.setattr(lbr, "choose", spy)
    # Seat 0 (the big blind) is LBR; the bot in the small blind holds 3c3d and raises.
    lbr.play(0, np.array([[0, 7], [2, 3]]), np.array([5]), np.random.default_rng(0))
    first = seen[0]
    pairs = [i for i, (a, b) in enumerate(lbr.combos.tolist()) if a // 2 == b // 2]
    assert first[pairs].sum() > 0
    assert first.sum() == pytest.approx(first[pairs].sum())
    assert list(itertools.compress(range(len(first)), first > 0)) == [
        i for i in pairs if not set(lbr.combos[i].tolist()) & {0, 7}]


def _showdown(mine: tuple[int, ...], theirs: tuple[int, ...], board: tuple[int, ...],
              game: HoldemGame) -> int:
    """+1 if `mine` wins at the showdown on `board`, −1 if it loses, 0 on a tie."""
    a = evaluate(mine + board, game.definition.deck)
    b = evaluate(theirs + board, game.definition.deck)
    return (a > b) - (a < b)


def _payoff(betting: Betting, seat: int, mine: tuple[int, ...], theirs: tuple[int, ...],
            board: tuple[int, ...], game: HoldemGame) -> float:
    spent = betting.spent
    if betting.folded >= 0:
        return float(spent[1 - seat]) if betting.folded != seat else -float(spent[seat])
    return float(spent[0]) * _showdown(mine, theirs, board, game)


def _exact_lbr(game: HoldemGame, policy: HoldemPolicy) -> float:
    """LBR's value against `policy` in mbb/hand (seats averaged) by walking every deal and every
    action the bot may take; with every board completion weighed LBR plays deterministically."""
    rules = game.definition
    lbr = LocalBestResponse(game, policy)
    rng = np.random.default_rng(0)
    combos = [tuple(c) for c in lbr.combos.tolist()]

    def walk(betting: Betting, seat: int, mine: tuple[int, ...], theirs: tuple[int, ...],
             board: tuple[int, ...], weights: np.ndarray) -> float:
        if betting.over:
            return _payoff(betting, seat, mine, theirs, board, game)
        visible = board[:rules.board_dealt(betting.round)]
        weights = weights * [not set(c) & set(visible) for c in combos]
        if betting.player == seat:
            action = lbr.choose(betting, np.array(mine), visible, weights, rng).action
            return walk(betting.apply(action), seat, mine, theirs, board, weights)
        rows = policy.action_probabilities(betting, visible, lbr.combos)
        at = combos.index(theirs)
        return sum(float(rows[at, a]) * walk(betting.apply(a), seat, mine, theirs, board,
                                             weights * rows[:, a])
                   for a in betting.legal_actions() if rows[at, a] > 0)

    total = count = 0.0
    for seat in (0, 1):
        for mine in itertools.combinations(range(rules.num_cards), 2):
            prior = np.array([0.0 if set(c) & set(mine) else 1.0 for c in combos])
            for theirs in itertools.combinations(sorted(set(range(rules.num_cards)) -
                                                        set(mine)), 2):
                for card in sorted(set(range(rules.num_cards)) - set(mine) - set(theirs)):
                    total += walk(Betting.start(rules), seat, mine, theirs, (card,), prior)
                    count += 1
    return total / count * mbb(rules)


@pytest.mark.slow
def test_the_estimate_without_luck_finds_the_exact_lbr_value_from_fewer_hands(
        mini: HoldemGame, solved: TabularPolicy) -> None:
    """Against the uniform bot (LBR wins much) and the solved one (LBR wins nothing) both
    estimates' intervals hold LBR's exact value, and taking the luck out narrows the interval."""
    for policy, seed, narrower in ((Uniform(), 11, 0.7), (solved, 12, 0.9)):
        exact_value = _exact_lbr(mini, policy)
        result = local_best_response(mini, policy, 1500, seed=seed)
        for estimate in (result.estimate, result.adjusted):
            assert abs(estimate.mean - exact_value) <= estimate.half_width
        assert result.adjusted.half_width < narrower * result.estimate.half_width

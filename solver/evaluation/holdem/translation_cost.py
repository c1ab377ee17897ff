"""What a bet abstraction costs in the real no-limit game: the bot solved in its abstraction,
answering every real size by action translation (`solver.abstractions.holdem.translation`),
judged by an exact best response that may raise to any amount.

On a member small enough to compile whole (a Leduc-sized deck at 12 chips a stack has 9,720
betting sequences with every size), the bot's behaviour at every real information set is
worked out exactly: for each of its seats, a walk of the real game carries the bot's readings of
the hand so far (its own game's betting, one per way translation may have read the opponent's
raises) with their weights per hand (the chance of the readings times the bot's own
probabilities of its moves in each).  Where randomised translation gives several readings, the
bot's probability of a real move is the weighted mean of what each reading plays, which is the
behaviour realisation-equivalent to the randomised bot (Kuhn's theorem: the bot remembers its
own moves).  The compiled real game then measures it as any strategy.

>>> # Usage (minutes on a small member):
>>> # cost = translation_cost("holdem(betting=nolimit,...,bettingAbstraction=fcpa)", policy)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from solver.abstractions.holdem.translation import Translation, own_moves
from solver.algorithms.exploitability import evaluate_strategy, strategy_array
from solver.games import get_game
from solver.games.holdem.betting import Betting
from solver.games.holdem.game import HoldemGame

Policy = Mapping[str, Mapping[int, float]]
FloatArray = NDArray[np.float64]


@dataclass(frozen=True, slots=True)
class TranslationCost:
    """The bot's exploitability, in chips a hand: in its own game (the opponent raising only
    to the abstraction's sizes) and in the real game (any size), with its translation."""

    abstract: float
    real: float
    translation: Translation


def real_policy(abstract: HoldemGame, policy: Policy, real: HoldemGame,
                translation: Translation) -> dict[str, dict[int, float]]:
    """The bot's probabilities at every real information set it reaches, both seats (its
    abstract game's `policy`, read through `translation`)."""
    out: dict[str, dict[int, float]] = {}
    for seat in (0, 1):
        _Walk(abstract, policy, real, translation, seat, out).run()
    return out


RANDOMISED = Translation()


def translation_cost(abstract_spec: str, policy: Policy,
                     translation: Translation = RANDOMISED) -> TranslationCost:
    """The bot that plays `policy` in the member `abstract_spec` (with a bet abstraction),
    measured in its own game and in the real game (the same member, every size)."""
    abstract = _holdem(abstract_spec)
    real = _holdem(abstract.definition.with_bets(None).spec)
    own_tree = abstract.compile_public_tree()
    own = evaluate_strategy(own_tree, strategy_array(own_tree, policy)).exploitability
    tree = real.compile_public_tree()
    behaviour = real_policy(abstract, policy, real, translation)
    judged = evaluate_strategy(tree, strategy_array(tree, behaviour)).exploitability
    return TranslationCost(own, judged, translation)


def _holdem(spec: str) -> HoldemGame:
    game = get_game(spec)
    if not isinstance(game, HoldemGame) or not game.definition.no_limit:
        raise ValueError(f"{spec} is not a no-limit member of the hold'em family")
    return game


class _Walk:
    """One seat's walk of the real game (see the module)."""

    def __init__(self, abstract: HoldemGame, policy: Policy, real: HoldemGame,
                 translation: Translation, seat: int, out: dict[str, dict[int, float]]) -> None:
        self.policy, self.translation, self.seat, self.out = policy, translation, seat, out
        self.rules = real.definition
        engine = real.engine
        self.hand_cards, self.names = engine.hand_cards, engine.hand_names
        self.written = real.written
        self.start = Betting.start(abstract.definition)
        self.real_start = Betting.start(self.rules)

    def run(self) -> None:
        ones = np.ones(len(self.hand_cards))
        self._visit(self.real_start, (), {self.start: ones})

    def _visit(self, real: Betting, board: tuple[tuple[int, ...], ...],
               readings: dict[Betting, FloatArray]) -> None:
        rules = self.rules
        if (not real.over or real.folded < 0) and len(board) <= real.round:
            round_ = len(board)  # the next round whose cards are due (maybe none)
            used = {c for cards in board for c in cards}
            left = [c for c in range(rules.num_cards) if c not in used]
            for cards in itertools.combinations(left, rules.board_cards[round_]):
                self._visit(real, (*board, cards), readings)
            return
        if real.over:
            return
        if real.player == self.seat:
            self._decide(real, board, readings)
            return
        for action in real.legal_actions():
            after: dict[Betting, FloatArray] = {}
            for mine, weight in readings.items():
                if mine.over or mine.player != real.player:
                    _add(after, mine, weight)
                    continue
                for read, p in self.translation.read(real, action, mine):
                    _add(after, mine.apply(read), weight * p)
            self._visit(real.apply(action), board, after)

    def _decide(self, real: Betting, board: tuple[tuple[int, ...], ...],
                readings: dict[Betting, FloatArray]) -> None:
        legal = real.legal_actions()
        column = {a: i for i, a in enumerate(legal)}
        live = self._live(board)
        total = np.zeros((len(self.hand_cards), len(legal)))
        children: dict[int, dict[Betting, FloatArray]] = {}
        for mine, weight in readings.items():
            moves = own_moves(real, mine)
            if mine.over or mine.player != real.player:
                total[:, column[next(iter(moves))]] += weight
                _add(children.setdefault(next(iter(moves)), {}), mine, weight)
                continue
            probs = self._probabilities(mine, board, live)
            for real_action, actions in moves.items():
                for action in actions:
                    share = weight * probs[action]
                    total[:, column[real_action]] += share
                    _add(children.setdefault(real_action, {}), mine.apply(action), share)
        public = _public_key(self.rules.board_cards[0] > 0, real.rounds, board, self.written)
        for h in np.flatnonzero(live):
            mass = total[h].sum()
            row = total[h] / mass if mass > 0 else np.full(len(legal), 1 / len(legal))
            self.out[f"{self.names[h]}|{public}"] = dict(zip(legal, row.tolist(), strict=True))
        for real_action, after in children.items():
            self._visit(real.apply(real_action), board, after)

    def _live(self, board: tuple[tuple[int, ...], ...]) -> NDArray[np.bool_]:
        used = np.array([c for cards in board for c in cards], np.int64)
        hit: NDArray[np.bool_] = np.isin(self.hand_cards, used)
        return np.logical_not(hit.any(axis=1))

    def _probabilities(self, mine: Betting, board: tuple[tuple[int, ...], ...],
                       live: NDArray[np.bool_]) -> dict[int, FloatArray]:
        """Per action of the bot's own game at `mine`, its probability for each hand."""
        legal = mine.legal_actions()
        public = _public_key(self.rules.board_cards[0] > 0, mine.rounds, board, self.written)
        probs = {a: np.zeros(len(self.hand_cards)) for a in legal}
        for h in np.flatnonzero(live):
            row = self.policy.get(f"{self.names[h]}|{public}")
            for a in legal:
                probs[a][h] = row.get(a, 0.0) if row is not None else 1 / len(legal)
        return probs


def _add(into: dict[Betting, FloatArray], mine: Betting, weight: FloatArray) -> None:
    into[mine] = into[mine] + weight if mine in into else weight


def _public_key(board_first: bool, rounds: tuple[str, ...], board: tuple[tuple[int, ...], ...],
                written: Callable[[tuple[int, ...]], str]) -> str:
    """The public part of an information-set key (`HoldemState.public_key`): each round's board
    cards, once dealt, and its betting."""
    segments: list[str] = []
    for r, bets in enumerate(rounds):
        if r > 0 or board_first:
            segments.append(written(board[r]) if r < len(board) else "")
        segments.append(bets)
    return "|".join(segments)


__all__ = ["TranslationCost", "real_policy", "translation_cost"]

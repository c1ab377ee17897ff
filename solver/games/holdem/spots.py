"""A spot of the betting with every hand class the player to act may hold: what the explorer's
13×13 grid is drawn from when the stored solve has no public tree (an abstraction's).

The user names a board and a betting line; `class_spots` checks both against the rules (a
`ValueError` saying what is legal otherwise) and deals, for each cell of the grid, every hand
of its class that the board leaves possible to the player to act (6, 4 or 12 before the flop),
with the other player holding cards the board and that hand leave. The app asks its bot for
each position and averages a cell's hands.
"""

from __future__ import annotations

from itertools import combinations
from typing import Protocol

from solver.games.base import State
from solver.games.game_view import ClassCell, ClassSpots
from solver.games.holdem.betting import CALL, FOLD, RAISE, Betting
from solver.games.holdem.rules import HoldemRules
from solver.games.view_values import HandClasses


class HoldemGame(Protocol):
    """What a spot reads of `solver.games.holdem.game.HoldemGame`. That module imports this one
    (its `class_spots` is this module's), so the game is described here rather than imported:
    even a type-only import back would tie the two modules."""

    @property
    def definition(self) -> HoldemRules: ...
    @property
    def title(self) -> str: ...
    @property
    def card_names(self) -> tuple[str, ...]: ...
    @property
    def cards_needed(self) -> tuple[int, ...]: ...
    def initial_state(self) -> HoldemState: ...


class HoldemState(State, Protocol):
    """What a spot reads of `solver.games.holdem.game.HoldemState`, for the same reason."""

    @property
    def game(self) -> HoldemGame: ...
    @property
    def betting(self) -> Betting: ...
    def board(self) -> tuple[int, ...]: ...
    def apply_action(self, action: int) -> HoldemState: ...


LETTERS = {"f": FOLD, "c": CALL, "r": RAISE}
"""The betting line's letters: f fold, c check or call, r bet or raise."""


def _parse_line(line: str) -> tuple[int, ...]:
    packed = "".join(ch for ch in line.lower() if ch not in " |/,-")
    bad = sorted({ch for ch in packed if ch not in LETTERS})
    if bad:
        raise ValueError(f"a betting line is written with c (check or call), r (bet or raise) "
                         f"and f (fold), rounds optionally separated by |; not {''.join(bad)!r}")
    return tuple(LETTERS[ch] for ch in packed)


def _walk(game: HoldemGame, hole: tuple[int, ...], board: tuple[int, ...],
          line: tuple[int, ...]) -> HoldemState:
    """The position after dealing `hole` (both players'), then the line with the board's cards
    dealt as each round opens; `ValueError` saying what is missing or illegal."""
    state = game.initial_state()
    for card in hole:
        state = state.apply_action(card)
    left = list(board)
    for step, letter in enumerate(line):
        while state.is_chance() and left:
            state = state.apply_action(left.pop(0))
        if state.is_chance():
            raise ValueError(f"the line's action {step + 1} is in a round whose board cards "
                             f"were not given: add the next board card(s)")
        if state.is_terminal():
            raise ValueError(f"the hand is over after the line's first {step} actions")
        action = _by_letter(state, letter)
        if action not in state.legal_actions():
            legal = ", ".join(f"{_letter(a)} ({state.action_label(a)})"
                              for a in state.legal_actions())
            raise ValueError(f"illegal betting line: action {step + 1} "
                             f"({'fcr'[letter]}) is not legal there; legal: {legal}")
        state = state.apply_action(action)
    while state.is_chance() and left:
        state = state.apply_action(left.pop(0))
    if state.is_terminal():
        raise ValueError("the line ends the hand: there is no decision left to show")
    if state.is_chance():
        dealt = len(state.board())
        needed = game.cards_needed[state.betting.round] - 2 * game.definition.hole_cards
        raise ValueError(f"the betting round is over: give the board's next "
                         f"{needed - dealt} card(s) to go on (the board has {dealt})")
    if left:
        raise ValueError(f"the board has {len(left)} card(s) more than the line reaches: the "
                         f"line must finish round {state.betting.round + 1}'s betting first")
    return state


def _by_letter(state: HoldemState, letter: int) -> int:
    """The action a line's letter names (0 f, 1 c, 2 r): in no-limit, ``r`` is the raise
    where the position has one size only (push or fold's all-in), and names none otherwise."""
    if letter <= CALL or not state.game.definition.no_limit:
        return letter
    raises = [a for a in state.legal_actions() if a > CALL]
    return raises[0] if len(raises) == 1 else -1


def _letter(action: int) -> str:
    return "fcr"[min(action, 2)]


def class_spots(game: HoldemGame, classes: HandClasses | None, board: str, line: str
                ) -> ClassSpots:
    """The grid's `classes`' positions at the spot `board` (cards like ``"As Kd 7c"``, empty
    before the flop) and `line` (``"rc|cr"``) reach; `ValueError` naming what is legal
    otherwise."""
    rules = game.definition
    if classes is None or rules.hole_cards != 2:
        raise ValueError(f"{game.title} has no grid of two-card hand classes")
    try:
        cards = rules.deck.parse_cards(board)
    except ValueError as exc:
        raise ValueError(f"bad board: {exc}; write cards like As Kd 7c") from None
    counts = [sum(rules.board_cards[1:r + 1]) for r in range(rules.num_rounds)]
    if len(cards) not in counts:
        sizes = ", ".join(str(c) for c in counts[:-1]) + f" or {counts[-1]}"
        raise ValueError(f"a board has {sizes} cards (none before the flop), not {len(cards)}")
    actions = _parse_line(line)
    others = [c for c in range(rules.num_cards) if c not in cards]
    template = _walk(game, tuple(others[:4]), cards, actions)
    player = template.current_player()
    if sum(a > CALL for a in template.legal_actions()) > 1:
        raise ValueError("this spot has several raise sizes, which a line of letters cannot "
                         "tell apart: walk the strategy's tree instead")
    cells: dict[tuple[int, int], list[State]] = {}
    for a, b in combinations(others, 2):
        place = classes.cell(game.card_names[a] + game.card_names[b])
        if place is None:
            continue
        rest = [c for c in others if c not in (a, b)][:2]
        hole = (a, b, *rest) if player == 0 else (*rest, a, b)
        cells.setdefault(place, []).append(_replay(template, hole))
    back = None
    for count in reversed(counts):
        if actions and count <= len(cards):
            try:
                _walk(game, tuple(others[:4]), cards[:count], actions[:-1])
            except ValueError:
                continue
            back = (" ".join(game.card_names[c] for c in cards[:count]), _written(actions[:-1]))
            break
    size = len(classes.ranks)
    return ClassSpots(
        public=template.public_key(), player=player, line=_written(actions),
        board=" ".join(game.card_names[c] for c in cards),
        moves=tuple((_letter(a), template.action_label(a)) for a in template.legal_actions()),
        round=template.betting.round, back=back,
        cells=tuple(ClassCell(r, c, classes.label(r, c), tuple(cells.get((r, c), ())))
                    for r in range(size) for c in range(size)))


def _replay(template: HoldemState, hole: tuple[int, ...]) -> HoldemState:
    """`template`'s history with other hole cards."""
    state = template.game.initial_state()
    for step, action in enumerate(template.history):
        state = state.apply_action(hole[step] if step < len(hole) else action)
    return state


def _written(actions: tuple[int, ...]) -> str:
    return "".join("fcr"[a] for a in actions)

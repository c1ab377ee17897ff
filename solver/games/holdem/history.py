"""Heads-up limit and no-limit hold'em hands as PHH hand histories (the Poker Hand History
format that pokerkit reads and writes), so that a hand played here opens in any tool that reads
PHH.  A limit hand is variant ``FT`` (fixed-limit Texas hold'em), a no-limit one ``NT`` with each
seat's real stack and raises to the amount the player put in on that street.

PHH (as pokerkit reads it) lists the blinds from the small, but heads-up the button posts the
small blind and is the last player: ``p1`` is the big blind and ``p2`` the small blind, who
acts first before the flop. That is universal_poker's numbering too, which ours follows:
``p1`` is our player 0 and ``p2`` our player 1.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from solver.games.game_view import PlayedHand
from solver.games.holdem.betting import Betting
from solver.games.holdem.rules import HoldemRules

if TYPE_CHECKING:
    from pokerkit import HandHistory

STARTING_STACK = 1_000
"""Chips each player starts with in a limit history: more than a limit hand can cost (48)."""
_PHH_ACTIONS = {"fold": "f", "check": "cc", "call": "cc", "bet": "cbr", "raise": "cbr"}


class Replay(Protocol):
    """What a history reads of a hand (`solver.games.holdem.game.HoldemState` is one)."""

    @property
    def history(self) -> tuple[int, ...]: ...
    @property
    def cards(self) -> tuple[int, ...]: ...
    @property
    def betting(self) -> Betting: ...
    def is_chance(self) -> bool: ...
    def is_terminal(self) -> bool: ...
    def current_player(self) -> int: ...
    def action_label(self, action: int) -> str: ...
    def apply_action(self, action: int) -> Replay: ...
    def hole(self, player: int) -> tuple[int, ...]: ...
    def board(self) -> tuple[int, ...]: ...


class Table(Protocol):
    """What a history reads of the game (`solver.games.holdem.game.HoldemGame` is one): named
    by what it offers, so that the game can write its histories here without a circle."""

    @property
    def name(self) -> str: ...
    @property
    def definition(self) -> HoldemRules: ...
    @property
    def card_names(self) -> tuple[str, ...]: ...
    @property
    @property
    def phh_variant(self) -> str | None: ...
    def initial_state(self) -> Replay: ...


def phh_player(seat: int) -> str:
    return f"p{seat + 1}"


def hand_history(game: Table, state: Replay,
                 played: PlayedHand | None = None) -> HandHistory:
    """The finished (or unfinished) hand `state` as a pokerkit `HandHistory` of fixed-limit or
    no-limit Texas hold'em, numbered and its players named as `played` says; `ValueError` for a
    member of the family that PHH has no variant for (a deck other than 52 cards, say)."""
    from pokerkit import HandHistory  # a second to import: only when a history is written

    variant = game.phh_variant
    if variant is None:
        raise ValueError(f"{game.name} is not heads-up Texas hold'em (limit or no-limit): PHH "
                         f"has no variant for it")
    names = game.card_names
    d = game.definition
    actions: list[str] = []
    replay = game.initial_state()
    board_seen = 0
    street_start: tuple[int, ...] = (0, 0)  # what each player had put in at the round start
    street = 0
    streets = {d.board_dealt(r) for r in range(d.num_rounds) if d.board_cards[r]}
    for action in state.history:
        if replay.is_chance():
            replay = replay.apply_action(action)
            hole_cards = 2 * d.hole_cards
            if len(replay.cards) == hole_cards:
                actions += [f"d dh p1 {_cards(names, replay.hole(0))}",
                            f"d dh p2 {_cards(names, replay.hole(1))}"]
            board = replay.board()
            # One line per street, also when an all-in runs the board out street by street.
            if len(board) > board_seen and len(board) in streets:
                actions.append(f"d db {_cards(names, board[board_seen:])}")
                board_seen = len(board)
            continue
        player = replay.current_player()
        if replay.betting.round != street:
            street, street_start = replay.betting.round, tuple(replay.betting.spent)
        move = _PHH_ACTIONS[replay.action_label(action).split()[0]]
        replay = replay.apply_action(action)
        if move == "cbr":  # PHH names the amount raised to in this betting round
            move += f" {replay.betting.spent[player] - street_start[player]}"
        actions.append(f"{phh_player(player)} {move}")
    if replay.is_terminal() and replay.betting.folded < 0:
        for seat in (0, 1):
            actions.append(f"{phh_player(seat)} sm {_cards(names, replay.hole(seat))}")
    hand = None if played is None else played.number
    players = ["player 0", "player 1"] if played is None else list(played.players)
    if variant == "NT":
        small, big = sorted(d.blinds)
        stacks = list(d.stacks or (0, 0))
        return HandHistory(variant="NT", antes=[0, 0], blinds_or_straddles=[small, big],
                           min_bet=big, starting_stacks=stacks, actions=actions, hand=hand,
                           players=players)
    return HandHistory(variant="FT", antes=[0, 0], blinds_or_straddles=[1, 2], small_bet=2,
                       big_bet=4, starting_stacks=[STARTING_STACK, STARTING_STACK],
                       actions=actions, hand=hand, players=players)


def _cards(names: tuple[str, ...], cards: tuple[int, ...]) -> str:
    return "".join(names[c] for c in cards)

"""A member of the limit hold'em family as a game: states move for move the same as OpenSpiel's
``universal_poker`` with the same parameters.

Chance deals one card at a time from the cards left, in the deck's order (ids as in
`solver.cards.deck`, universal_poker's own): first player 0's hole cards, then player 1's, then
each round's board cards once the betting before them is closed.  Player actions are
universal_poker's ids, 0 fold, 1 check or call, 2 bet or raise.

Keys: an information set is ``<hole cards>|<public>``.  The hole cards are written high to low
in two-character notation (``As``, ``Td``: rank, then suit ``c d h s``; ``3d2c``).  The public
part is the first round's betting, then for each later round its board cards (high to low) and
its betting, all separated by ``|``: ``rc|4c|cr`` is a raise and a call, the 4c, then a check
and a bet.  A member dealing board cards before the first betting round writes them first
(``4c|rc``).  Betting is written with ACPC's letters: ``c`` check or call, ``r`` bet or raise,
``f`` fold.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from solver.cards.evaluator import evaluate
from solver.engine.tree import PublicTree
from solver.games.base import (
    CHANCE,
    TERMINAL,
    BuildPlan,
    GameDefaults,
    OpenSpielMapping,
    State,
    private_then_public_key,
)
from solver.games.holdem.betting import CALL, Betting
from solver.games.holdem.rules import (
    HOLDEM_MINI,
    HULHE,
    HUNL,
    NO_LIMIT_LEDUC,
    UNLIMITED_STACK,
    HoldemRules,
)
from solver.games.holdem.tree import HoldemEngine
from solver.games.opponents import DEEPSTACK
from solver.games.poker_style import PokerStyles


@dataclass(frozen=True, slots=True, eq=False)
class HoldemState:
    """A position: every action so far, the cards in the order dealt (player 0's hole cards,
    player 1's, then the board) and the betting."""

    game: HoldemGame
    history: tuple[int, ...]
    cards: tuple[int, ...]
    betting: Betting

    # ---- rules ----------------------------------------------------------------------------

    def current_player(self) -> int:
        betting = self.betting
        # All-in and called, no-limit: the rest of the board comes before the showdown.
        if (len(self.cards) < self.game.cards_needed[betting.round]
                and (not betting.over or betting.folded < 0)):
            return CHANCE
        return TERMINAL if betting.over else betting.player

    def is_terminal(self) -> bool:
        return self.current_player() == TERMINAL

    def is_chance(self) -> bool:
        return self.current_player() == CHANCE

    def legal_actions(self) -> tuple[int, ...]:
        player = self.current_player()
        if player == CHANCE:
            dealt = self.cards
            return tuple(c for c in range(self.game.definition.num_cards) if c not in dealt)
        return self.betting.legal_actions()

    def action_label(self, action: int) -> str:
        if self.current_player() == CHANCE:
            if not 0 <= action < self.game.definition.num_cards:
                raise ValueError(f"no card {action} in {self.game.definition.deck}")
            return self.game.card_names[action]
        if not self.betting.is_legal(action):
            raise ValueError(f"no action {action} here; legal: {self.betting.legal_words()}")
        return self.betting.label(action)

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        if not self.is_chance():
            return ()
        left = self.legal_actions()
        return tuple((c, 1.0 / len(left)) for c in left)

    def apply_action(self, action: int) -> HoldemState:
        history = self.history + (action,)
        if self.is_chance():
            if not 0 <= action < self.game.definition.num_cards or action in self.cards:
                left = " ".join(self.game.card_names[c] for c in self.legal_actions())
                raise ValueError(f"illegal card {action} at history {self.history}; legal: "
                                 f"{left}")
            return HoldemState(self.game, history, self.cards + (action,), self.betting)
        if self.betting.over:
            raise ValueError(f"the hand is over at history {self.history}; no legal actions")
        return HoldemState(self.game, history, self.cards, self.betting.apply(action))

    def hole(self, player: int) -> tuple[int, ...]:
        """`player`'s hole cards dealt so far."""
        k = self.game.definition.hole_cards
        return self.cards[player * k: (player + 1) * k]

    def board(self) -> tuple[int, ...]:
        return self.cards[2 * self.game.definition.hole_cards:]

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        winner = self.winner()
        if winner is None:
            return (0.0, 0.0)
        won = float(self.betting.won())
        return (won, -won) if winner == 0 else (-won, won)

    def winner(self) -> int | None:
        """At a terminal: the seat that takes the pot, None for a split pot."""
        folded = self.betting.folded
        if folded >= 0:
            return 1 - folded
        deck, board = self.game.definition.deck, self.board()
        v0, v1 = (evaluate(self.hole(p) + board, deck) for p in (0, 1))
        return None if v0 == v1 else 0 if v0 > v1 else 1

    # ---- keys -----------------------------------------------------------------------------

    def information_state_key(self, player: int | None = None) -> str:
        return private_then_public_key(self, player)

    def public_key(self) -> str:
        game = self.game
        board = self.board()
        segments: list[str] = []
        for r, bets in enumerate(self.betting.rounds):
            if r > 0 or game.definition.board_cards[0] > 0:
                start, end = game.board_start[r], game.board_start[r + 1]
                segments.append(game.written(board[start:end]))
            segments.append(bets)
        return "|".join(segments)

    def private_key(self, player: int) -> str:
        return self.game.written(self.hole(player))

    # ---- the pot -----------------------------------------------------------------------

    def contributions(self) -> tuple[int, int]:
        return self.betting.spent

    def betting_round(self) -> tuple[int, int]:
        return (self.betting.round + 1, self.game.definition.num_rounds)


class HoldemOpenSpiel:
    """universal_poker with the same parameters: the same chance and action ids (for a bet
    abstraction, the id universal_poker gives the size: `action_id`); its information state is
    ``[Round r][Player: p][Pot: n][Money: a b][Private: cards][Public: cards]``
    ``[Sequences: r0|r1...]`` with 0-based rounds, the pot written as twice the larger
    contribution, stacks (2**31 - 1 in a limit game) less what each has put in, and cards high
    to low (the whole board as one set)."""

    def __init__(self, definition: HoldemRules) -> None:
        self.game_string = definition.game_string
        self.stacks = definition.stacks or (UNLIMITED_STACK, UNLIMITED_STACK)
        self.bets = definition.bets

    def information_state_string(self, state: State, player: int) -> str:
        assert isinstance(state, HoldemState)
        betting = state.betting
        a, b = betting.spent
        written = state.game.written
        return (f"[Round {betting.round}][Player: {state.current_player()}]"
                f"[Pot: {2 * max(a, b)}][Money: {self.stacks[0] - a} {self.stacks[1] - b}]"
                f"[Private: {written(state.hole(player))}][Public: {written(state.board())}]"
                f"[Sequences: {'|'.join(betting.rounds)}]")

    def action_id(self, state: State, action: int) -> int:
        """universal_poker's id of `action` at `state`: the same, but for a raise under its
        ``fcpa`` abstraction, 2 for the pot-sized raise and 3 for all-in."""
        assert isinstance(state, HoldemState)
        if self.bets is None or action <= CALL or state.is_chance():
            return action
        betting = state.betting
        top = max(betting.spent)
        pot_raise_to = sum(betting.spent) + 2 * top - betting.spent[betting.player]
        return POT_BET if action == pot_raise_to else ALL_IN


POT_BET, ALL_IN = 2, 3
"""universal_poker's ids of the pot-sized raise and all-in under its ``fcpa`` abstraction."""

EARLIER_HULHE_BOTS = ("ehs2=k:128,128,128",
                      "resolving=from:4;mode:maxmargin;iterations:200;"
                      "blueprint:ehs2=k:128,128,128")
"""The abstractions the default HULHE build stored before the histogram blueprint."""


class HoldemGame(PokerStyles, GameDefaults):
    """A member of the family, by its `definition` (`HoldemRules`); `name` is how the registry
    and the store know it (a named member's name, or its ``holdem(...)`` spec)."""

    reference_value: float | None = None

    def __init__(self, definition: HoldemRules, name: str | None = None,
                 title: str | None = None) -> None:
        self.definition = definition
        self.name = name or definition.spec
        d = definition
        deck = d.deck
        kind = "No-limit" if d.no_limit else "Limit"
        self.title = title or (f"{kind} hold'em, {d.num_cards} cards, {d.num_rounds} "
                               f"round{'s' if d.num_rounds > 1 else ''}")
        self.card_names = tuple(deck.name(c) for c in range(d.num_cards))
        self.cards_needed = tuple(2 * d.hole_cards + d.board_dealt(r) for r in range(d.num_rounds))
        starts = [0]
        for count in d.board_cards:
            starts.append(starts[-1] + count)
        self.board_start = tuple(starts)
        self.openspiel: OpenSpielMapping | None = (HoldemOpenSpiel(d) if d.openspiel_loadable
                                                   else None)

    # ---- the Game interface ---------------------------------------------------------------

    def initial_state(self) -> HoldemState:
        return HoldemState(self, (), (), Betting.start(self.definition))

    def num_distinct_actions(self) -> int:
        """universal_poker's: fold, call, raise; in no-limit every raise-to amount up to the
        larger stack."""
        stacks = self.definition.stacks
        return 3 if stacks is None else max(stacks) + 1

    # ---- shared by the states -------------------------------------------------------------

    def written(self, cards: tuple[int, ...]) -> str:
        """Cards high to low, as universal_poker and our keys write them: ``3d2c``."""
        return "".join(self.card_names[c] for c in sorted(cards, reverse=True))

    # ---- sizes and the compiled tree ------------------------------------------------------

    @cached_property
    def engine(self) -> HoldemEngine:
        """The compiler of this member's public tree."""
        return HoldemEngine(self.name, self.definition)

    @property
    def build(self) -> BuildPlan:
        """HULHE is solved in its bucket abstraction (`solver.runs.hulhe`, ``python -m solver
        hulhe``, under an hour) and played by the bot that re-solves the river over it
        (`solver.resolving.kind`); HUNL likewise, its blueprint in a bet abstraction, played by
        translating every other size before the river and re-solving the river against the
        actual bet (`solver.abstractions.holdem.translated`, `solver.resolving.no_limit_bot`);
        a small member exactly,
        holdem-mini among the quick games, a no-limit one to 1e-4 chips in the background
        (minutes; no-limit Leduc then gets its DeepStack opponent, `solver.deepstack`). The
        earlier default bots
        (E[HS²] buckets by chance sampling, with or without re-solving the river) are replaced
        in the background where a store holds them."""
        if self.is_heads_up_limit_holdem:
            return BuildPlan(("hulhe", "--quiet", "--resolve-from", "4"),
                             supersedes=EARLIER_HULHE_BOTS)
        mini = self.definition == HOLDEM_MINI
        if self.definition == HUNL:
            return BuildPlan(("hulhe", "--game", self.name, "--quiet", "--resolve-from", "4"))
        if self.definition.no_limit:
            thinking = (DEEPSTACK.name,) if self.definition == NO_LIMIT_LEDUC else ()
            return BuildPlan(("solve", self.name, "--target-exploitability", "1e-4"),
                             thinking=thinking)
        return BuildPlan(("solve", self.name), background=not mini, opponents=mini)

    cache_compiled_tree = True
    """A big member takes seconds to compile: `solver.engine.compile.compile_game` caches it."""

    @property
    def phh_variant(self) -> str | None:
        """PHH's name of this member's variant: ``FT`` (fixed-limit Texas hold'em) for HULHE,
        ``NT`` (no-limit Texas hold'em) for heads-up no-limit at any stacks and any bet
        abstraction; None for the other members, which PHH has no variant for."""
        if self.is_heads_up_limit_holdem:
            return "FT"
        return "NT" if self.definition.heads_up_no_limit_texas else None

    @property
    def is_heads_up_limit_holdem(self) -> bool:
        """The standard game (52 cards, blinds 1/2, bets 2/2/4/4, four bets a round), the one
        hand-history formats know."""
        return self.definition == HULHE

    def compile_public_tree(self) -> PublicTree:
        """The compiled public tree, built directly from the rules (see
        `solver.games.holdem.tree`), not by walking the states."""
        return self.engine.public_tree()

    def sizes(self) -> dict[str, int | dict[str, int]]:
        """What `python -m solver info` prints: exact counts of the game's tree."""
        return self.engine.sizes()

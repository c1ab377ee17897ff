"""Dudo for two players with any number of dice each (1 to 5), 1s wild, optionally with calzo.

``dudo`` is the course exercise, one six-sided die each; ``dudo-AvB`` gives the first player A
dice and the second B.  Bids are ids ``0 .. 6(A+B) - 1`` in increasing strength, so "a stronger
bid" is just "a higher id" and a state is nothing but its history: cheap to extend.  The order
is the real game's: for each quantity q the faces 2..6, and a bid of n x 1 just above
(2n - 1) x 6 and below 2n x 2, since a 1 is about half as likely as "that face or a wild 1"
(bids on 1s beyond the total's range close the list).  For one die each that is the course's
order 1x2 .. 1x6, 1x1, 2x2 .. 2x6, 2x1, with dudo 12 and calzo 13.

Each player's roll is one chance event whose outcome is the *multiset* of its dice (sorted
faces, ``"16"``), with its multinomial probability: the order of a player's dice is nothing
anybody can use, and one event per roll keeps the tree as small as the information sets.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement
from math import factorial, prod
from typing import TYPE_CHECKING

from solver.games.base import (
    CHANCE,
    TERMINAL,
    ActionGroup,
    Die,
    GameDefaults,
    LabelPart,
    Piece,
    PieceKind,
    PublicView,
    State,
    StyleCounts,
    StyleStat,
    private_then_public_key,
)
from solver.games.dudo_style import DUDO_STYLE, add_round

if TYPE_CHECKING:
    from solver.public_tree import PublicTree

MAX_DICE = 5
"""Dice a player starts a full match with, and the most a Dudo game here gives a player."""
FACES = 6


@dataclass(frozen=True, slots=True)
class DudoRules:
    """What makes one Dudo game: each player's dice, the faces of a die (6; tests use fewer to
    keep generic walks small) and whether calzo may be called."""

    dice: tuple[int, int] = (1, 1)
    faces: int = FACES
    calzo: bool = False

    def __post_init__(self) -> None:
        if not all(1 <= d <= MAX_DICE for d in self.dice):
            raise ValueError(f"each player has 1 to {MAX_DICE} dice, got {self.dice}")
        if not 2 <= self.faces <= 9:
            raise ValueError(f"a die has 2 to 9 faces, got {self.faces}")

    @property
    def total(self) -> int:
        return self.dice[0] + self.dice[1]

    @property
    def num_bids(self) -> int:
        return self.faces * self.total

    @property
    def dudo(self) -> int:
        """The action id of dudo: one past the strongest bid."""
        return self.num_bids

    @property
    def calzo_action(self) -> int:
        return self.num_bids + 1


def bid_order(total: int, faces: int = FACES) -> tuple[tuple[int, int], ...]:
    """Every bid ``(quantity, face)`` on `total` dice, weakest first (see the module's doc)."""
    bids: list[tuple[int, int]] = []
    for quantity in range(1, total + 1):
        bids.extend((quantity, face) for face in range(2, faces + 1))
        if quantity % 2 == 1:
            bids.append(((quantity + 1) // 2, 1))
    bids.extend((n, 1) for n in range(1, total + 1) if 2 * n - 1 > total)
    return tuple(bids)


def bid_labels(total: int, faces: int = FACES) -> tuple[str, ...]:
    return tuple(f"{q}x{f}" for q, f in bid_order(total, faces))


@cache
def rolls(count: int, faces: int = FACES) -> tuple[tuple[tuple[int, ...], float], ...]:
    """The multisets of `count` dice (sorted faces, in lexicographic order) with their
    probabilities: ``count! / prod(multiplicities!) / faces**count``."""
    out = []
    for dice in combinations_with_replacement(range(1, faces + 1), count):
        ways = factorial(count) // prod(factorial(dice.count(f)) for f in set(dice))
        out.append((dice, ways / faces**count))
    return tuple(out)


def count_matching(dice: tuple[int, ...], face: int) -> int:
    """Dice showing `face` or a wild 1; a bid on 1s counts only the 1s."""
    return sum(1 for d in dice if d == face or (d == 1 and face != 1))


def bluff_test(bids: tuple[tuple[int, int], ...], dice: tuple[int, ...]
               ) -> Callable[[int], bool | None]:
    """For the style figures: None for a call (an id past the bids), else whether the bid was
    more than `dice` (both rolls) made."""

    def bluff(move: int) -> bool | None:
        if move >= len(bids):
            return None
        quantity, face = bids[move]
        return count_matching(dice, face) < quantity

    return bluff


def dice_text(dice: tuple[int, ...]) -> str:
    """``"16"``: a roll as its private key, faces sorted."""
    return "".join(map(str, sorted(dice)))


@dataclass(frozen=True, slots=True)
class _Tables:
    bids: tuple[tuple[int, int], ...]
    labels: tuple[str, ...]  # bids, then "dudo" (and "calzo")
    rolls: tuple[tuple[tuple[tuple[int, ...], float], ...], tuple[tuple[tuple[int, ...],
                                                                          float], ...]]
    outcomes: tuple[tuple[tuple[int, float], ...], tuple[tuple[int, float], ...]]
    opening: tuple[int, ...]
    after_bid: tuple[tuple[int, ...], ...]


@cache
def tables(rules: DudoRules) -> _Tables:
    """Everything about `rules` that states look up, computed once."""
    bids = bid_order(rules.total, rules.faces)
    calls = (rules.dudo, rules.calzo_action) if rules.calzo else (rules.dudo,)
    each = (rolls(rules.dice[0], rules.faces), rolls(rules.dice[1], rules.faces))
    return _Tables(
        bids=bids,
        labels=(*(f"{q}x{f}" for q, f in bids), "dudo", *(("calzo",) if rules.calzo else ())),
        rolls=each,
        outcomes=(tuple((i, p) for i, (_, p) in enumerate(each[0])),
                  tuple((i, p) for i, (_, p) in enumerate(each[1]))),
        opening=tuple(range(len(bids))),
        after_bid=tuple(tuple(range(last + 1, len(bids))) + calls for last in range(len(bids))),
    )


def call_result(rules: DudoRules, dice: tuple[tuple[int, ...], tuple[int, ...]], bid: int,
                call: int) -> tuple[int, int]:
    """``(count, winner's seat relative to the caller: 0 the caller, 1 the bidder)`` of a call
    on `bid`: dudo wins if fewer dice match, calzo if exactly as many."""
    quantity, face = tables(rules).bids[bid]
    count = count_matching(dice[0] + dice[1], face)
    caller_wins = count < quantity if call == rules.dudo else count == quantity
    return count, 0 if caller_wins else 1


def describe_count(dice: tuple[int, ...], face: int) -> str:
    """``"one 5 and a wild 1 make 2"``: how the dice count for a bid on `face`."""
    plain = sum(1 for d in dice if d == face)
    wild = sum(1 for d in dice if d == 1) if face != 1 else 0
    if plain + wild == 0:
        return f"no {face} and no wild 1" if face != 1 else "no 1 at all"
    parts = [f"{_count_word(plain)} {face}" + ("s" if plain > 1 else "")] if plain else []
    if wild:
        parts.append(f"{'a' if wild == 1 else _count_word(wild)} wild 1"
                     + ("s" if wild > 1 else ""))
    verb = "makes" if len(parts) == 1 and plain + wild == 1 else "make"
    return f"{' and '.join(parts)} {verb} {plain + wild}"


def _count_word(n: int) -> str:
    words = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
    return words[n] if n < len(words) else str(n)


def explain_call(rules: DudoRules, dice: tuple[tuple[int, ...], tuple[int, ...]],
                 moves: tuple[int, ...], names: tuple[str, str], stake: str,
                 show_dice: bool | None = None) -> tuple[str, int]:
    """Why a round that ended with `moves` (bids, then the call) went as it did, naming the
    seats `names`; and the loser's seat.  `stake` says what the loser pays (``"1"``, ``"a
    die"``).  With one die each it is the course's sentence; with more (or `show_dice`) it
    shows the dice."""
    caller = (len(moves) - 1) % 2
    bidder = 1 - caller
    bid, call = moves[-2], moves[-1]
    quantity, face = tables(rules).bids[bid]
    count, winner_role = call_result(rules, dice, bid, call)
    winner = caller if winner_role == 0 else bidder
    counted = describe_count(dice[0] + dice[1], face)
    word = "dudo" if call == rules.dudo else "calzo"
    label = tables(rules).labels[bid]
    text = f"{names[caller].capitalize()} called {word} on {label}: "
    if show_dice or (show_dice is None and rules.dice != (1, 1)):
        text += (f"{_possessive(names[0])} dice {_faces(dice[0])}, {_possessive(names[1])} "
                 f"{_faces(dice[1])}; ")
    if call == rules.dudo:
        verdict = "the bid stands" if count >= quantity else "the bid fails"
    else:
        verdict = "exactly right" if count == quantity else f"not exactly {quantity}"
    loser = 1 - winner
    if stake == "1":
        tail = f"1 to {names[winner]}"
    else:
        tail = f"{names[loser]} {'lose' if names[loser] == 'you' else 'loses'} {stake}"
    return f"{text}{counted}, {verdict}: {tail}.", loser


def _possessive(name: str) -> str:
    return "your" if name == "you" else f"{name}'s"


def _faces(dice: tuple[int, ...]) -> str:
    return " ".join(map(str, sorted(dice)))


def _illegal(state: DudoState, action: int) -> ValueError:
    legal = ", ".join(f"{a} ({state.action_label(a)})" for a in state.legal_actions()) or "none"
    return ValueError(f"illegal action {action} at history {state.history}; legal actions: {legal}")


@dataclass(frozen=True, slots=True)
class DudoState:
    """A Dudo position: the history is the two rolls (multiset indices, see `rolls`) followed
    by the moves."""

    rules: DudoRules = DudoRules()
    history: tuple[int, ...] = ()

    def current_player(self) -> int:
        h = self.history
        if len(h) < 2:
            return CHANCE
        if len(h) > 2 and h[-1] >= self.rules.dudo:
            return TERMINAL
        return len(h) % 2

    def is_terminal(self) -> bool:
        h = self.history
        return len(h) > 2 and h[-1] >= self.rules.dudo

    def is_chance(self) -> bool:
        return len(self.history) < 2

    def legal_actions(self) -> tuple[int, ...]:
        h = self.history
        t = tables(self.rules)
        if len(h) < 2:
            return tuple(o for o, _ in t.outcomes[len(h)])
        if len(h) == 2:
            return t.opening
        last = h[-1]
        if last >= self.rules.dudo:
            return ()
        return t.after_bid[last]

    def action_label(self, action: int) -> str:
        t = tables(self.rules)
        n = len(self.history)
        if n < 2:
            if not 0 <= action < len(t.rolls[n]):
                raise ValueError(f"no roll {action} for player {n}: 0..{len(t.rolls[n]) - 1} "
                                 f"for {', '.join(dice_text(d) for d, _ in t.rolls[n])}")
            return dice_text(t.rolls[n][action][0])
        if 0 <= action < len(t.labels):
            return t.labels[action]
        raise ValueError(f"no action {action} in {describe_rules(self.rules)}")

    def chance_outcomes(self) -> tuple[tuple[int, float], ...]:
        n = len(self.history)
        return tables(self.rules).outcomes[n] if n < 2 else ()

    def apply_action(self, action: int) -> DudoState:
        h = self.history
        n = len(h)
        rules = self.rules
        if n < 2:
            ok = 0 <= action < len(tables(rules).rolls[n])
        elif n == 2:
            ok = 0 <= action < rules.num_bids
        else:
            last = h[-1]
            ok = last < rules.dudo and (last < action < rules.num_bids or action == rules.dudo
                                        or (action == rules.calzo_action and rules.calzo))
        if not ok:
            raise _illegal(self, action)
        return DudoState(rules, h + (action,))

    def dice(self, player: int) -> tuple[int, ...]:
        """`player`'s dice, faces sorted; empty before its roll."""
        if player >= len(self.history):
            return ()
        return tables(self.rules).rolls[player][self.history[player]][0]

    def returns(self) -> tuple[float, float]:
        if not self.is_terminal():
            return (0.0, 0.0)
        h = self.history
        moves = h[2:]
        caller = (len(moves) - 1) % 2
        _, winner_role = call_result(self.rules, (self.dice(0), self.dice(1)), moves[-2],
                                     moves[-1])
        winner = caller if winner_role == 0 else 1 - caller
        u = 1.0 if winner == 0 else -1.0
        return (u, -u)

    def moves(self) -> tuple[int, ...]:
        """The moves after the rolls: bids, then possibly dudo or calzo."""
        return self.history[2:]

    def round_position(self, player: int) -> tuple[str, tuple[int, int], str, tuple[str, ...]]:
        """What a player remembering only some bids keys its strategy by
        (`solver.games.dudo_recall`)."""
        labels = tables(self.rules).labels
        bids = tuple(labels[m] for m in self.moves() if m < self.rules.dudo)
        return "", self.rules.dice, self.private_key(player), bids

    def information_state_key(self, player: int | None = None) -> str:
        """``"16|1x2,2x5"``: own dice (faces sorted), then the bids so far."""
        return private_then_public_key(self, player)

    def public_key(self) -> str:
        """The moves so far, comma-joined labels (a final ``dudo``/``calzo`` included)."""
        labels = tables(self.rules).labels
        return ",".join([labels[a] for a in self.history[2:]])

    def private_key(self, player: int) -> str:
        return dice_text(self.dice(player))

    def private_view(self, player: int) -> str:
        return self.private_key(player)

    def private_pieces(self, player: int) -> tuple[Piece, ...]:
        return tuple(Die(face) for face in self.dice(player))

    def public_view(self) -> PublicView:
        bids = tuple(tables(self.rules).labels[m] for m in self.moves() if m < self.rules.dudo)
        held = None if self.rules.dice == (1, 1) else self.rules.dice
        return PublicView(bids=bids, last_bid=bids[-1] if bids else None, pieces_held=held)

    def action_groups(self) -> tuple[ActionGroup, ...]:
        return bid_groups(self.rules)

    def outcome_text(self, names: tuple[str, str]) -> str:
        if not self.is_terminal():
            return ""
        return explain_call(self.rules, (self.dice(0), self.dice(1)), self.moves(), names,
                            "1")[0]


def bid_groups(rules: DudoRules) -> tuple[ActionGroup, ...]:
    """The bid grid, a row per quantity and a column per face with the 1s last, in a column of
    their own (a bid on 1s ranks between quantities, so in the order of the bids the rows of
    a grid would not line up by face once more than two dice are in play); then the calls."""
    labels = tables(rules).labels
    faces = (*range(2, rules.faces + 1), 1)
    grid = tuple(f"{q}x{f}" for q in range(1, rules.total + 1) for f in faces)
    return (ActionGroup("Bids", grid, columns=len(faces)),
            ActionGroup("Calls", labels[rules.num_bids:]))


def describe_rules(rules: DudoRules) -> str:
    game = "Dudo with calzo" if rules.calzo else "Dudo"
    if rules.dice != (1, 1):
        game += f" {rules.dice[0]}v{rules.dice[1]}"
    return game + (f" ({rules.faces}-faced dice)" if rules.faces != FACES else "")


# The course's game, one die each: its tables as module constants (tests and tools use them).
NUM_BIDS = 12
DUDO = 12
"""Challenge the last bid: it is checked against the dice."""
CALZO = 13
"""Claim the last bid is exactly right (calzo variant only)."""
BID_FACES = (2, 3, 4, 5, 6, 1)
"""Face of bid ``b`` with one die each is ``BID_FACES[b % 6]``; its quantity ``b // 6 + 1``."""
BID_LABELS: tuple[str, ...] = bid_labels(2)
"""``1x2, 1x3, ..., 1x6, 1x1, 2x2, ..., 2x1``."""


class DudoOpenSpiel:
    """OpenSpiel's ``liars_dice`` (one die each): its wild face is its highest (6), placed
    last within each quantity, so bid and "Liar" ids coincide with ours and only the roll
    outcomes move (our face 1 is its 6, our face r its r - 1). Its information state is
    ``"<its face> <q-f> <q-f> ..."`` with bids in its labelling.  (With more dice its order
    keeps the wild bids inside each quantity, unlike ours: no mapping then.)"""

    game_string = "liars_dice"

    def information_state_string(self, state: State, player: int) -> str:
        assert isinstance(state, DudoState)
        moves = "".join(f" {b // 6 + 1}-{b % 6 + 1}" for b in state.moves())
        return f"{openspiel_face(state.history[player] + 1)}{moves}"

    def action_id(self, state: State, action: int) -> int:
        # Our roll outcome is face - 1; OpenSpiel's is its face - 1.
        return openspiel_face(action + 1) - 1 if state.is_chance() else action


def openspiel_face(face: int) -> int:
    """Our die face -> liars_dice's face (its wild 6 is our wild 1)."""
    return 6 if face == 1 else face - 1


def game_name(dice: tuple[int, int], calzo: bool = False, faces: int = FACES) -> str:
    """``dudo``, ``dudo-calzo``, ``dudo-1v2``, ``dudo-2v2-calzo``, ``dudo-2v2-d3``."""
    name = "dudo" if dice == (1, 1) else f"dudo-{dice[0]}v{dice[1]}"
    return name + ("-calzo" if calzo else "") + (f"-d{faces}" if faces != FACES else "")


def _dice_word(n: int) -> str:
    return "1 die" if n == 1 else f"{n} dice"


class DudoGame(GameDefaults):
    """Dudo with `dice` for the first and second player, plain or with calzo; a plain class
    because `Game` declares settable fields."""

    name: str
    title: str
    rules: str
    reference_value: float | None
    pieces: PieceKind = "dice"
    history_legend = "History: the bids so far, quantity x face."
    history_example = "e.g. 1x2,1x6"

    def __init__(self, calzo: bool = False, dice: tuple[int, int] = (1, 1),
                 faces: int = FACES) -> None:
        self.dudo_rules = DudoRules(dice, faces, calzo)
        self.calzo = calzo
        self.name = game_name(dice, calzo, faces)
        # The lobby shows one die each, with and without calzo, and two each; the other
        # variants once a solve of them is stored.
        self.listed = dice in ((1, 1), (2, 2)) and faces == FACES
        exact = sum(dice) <= 3  # 2^18 bid sequences at most: solved as it is
        self._build = (("solve", self.name) if exact
                       else ("recall", self.name, "--memory", "3", "--quiet"))
        if dice == (1, 1):
            self.title = "Dudo with calzo" if calzo else "Dudo"
            held = "One secret die each"
        else:
            self.title = (f"Dudo, {_dice_word(dice[0])} against {_dice_word(dice[1])}"
                          + (" with calzo" if calzo else ""))
            held = f"Secret dice: {dice[0]} for the opener, {dice[1]} for the other"
        extra = " or calzo (exactly right)" if calzo else ""
        on = "both dice" if dice == (1, 1) else f"all {dice[0] + dice[1]} dice"
        self.rules = (
            f"{held}, 1s wild. Bid 'quantity x face' on {on}, each bid stronger than the last.\n"
            f"Or call dudo (the bid is wrong){extra}: the loser of the call pays 1."
        )
        self.reference_value = -7.0 / 258.0 if dice == (1, 1) and not calzo and faces == 6 \
            else None
        self.openspiel = DudoOpenSpiel() if dice == (1, 1) and not calzo and faces == 6 \
            else None
        self.notes = (
            "A bid 'q x f' says that at least q of all the dice show f or a 1: 1s are wild.",
            "A bid must be stronger than the last: more dice, or as many on a higher face. "
            + ("Each row of bids ends with the 1s: a bid on 1s counts only 1s, so it outranks "
               "the same quantity of any other face." if dice == (1, 1) else
               "The grid has a row per quantity and the 1s in a column of their own: a bid on "
               "1s counts only 1s, so n x 1 ranks just above (2n - 1) x 6 and below 2n x 2 "
               "(the bids still open to you are the ones not greyed out)."),
            "Dudo: you doubt the last bid. If fewer dice match, its bidder loses; otherwise you "
            "lose." + (" Calzo: you claim the last bid is exactly right; you win if it is, "
                       "and lose otherwise." if calzo else ""),
        )

    def label_parts(self, label: str) -> tuple[LabelPart, ...]:
        return dice_label_parts(label)

    def describe_history(self, public: str) -> str:
        return f"Bids: {public.replace(',', ', ')}" if public else "Opening bid"

    def initial_state(self) -> DudoState:
        return DudoState(self.dudo_rules)

    def num_distinct_actions(self) -> int:
        return self.dudo_rules.num_bids + (2 if self.calzo else 1)

    style_stats: tuple[StyleStat, ...] = DUDO_STYLE

    def style_counts(self, state: State, seat: int) -> StyleCounts:
        assert isinstance(state, DudoState)
        counts: StyleCounts = {}
        add_round(counts, seat, state.moves(), lambda i: i % 2,
                  bluff_test(tables(self.dudo_rules).bids, state.dice(0) + state.dice(1)))
        return counts

    def forfeit_payoff(self, state: State, seat: int) -> float:
        return -1.0  # the round lost, as a lost call

    @property
    def build_command(self) -> tuple[str, ...]:
        """Exact up to three dice in play (2^18 bid sequences); beyond, remembering the last
        three bids (`python -m solver recall`): 2v2's exact tree needs far more memory than a
        machine has (`python -m solver info dudo-2v2`)."""
        return self._build

    def compile_public_tree(self) -> PublicTree:
        """The public tree built as arrays (`solver.dudo_tree`), not walked."""
        from solver.dudo_tree import compile_dudo

        return compile_dudo(self.name, self.dudo_rules)

    def sizes(self) -> dict[str, int | dict[str, int]]:
        """Exact counts without building anything (`solver.dudo_tree.tree_sizes`)."""
        from solver.dudo_tree import tree_sizes

        return dict(tree_sizes(self.dudo_rules))

    def __repr__(self) -> str:
        return f"DudoGame(calzo={self.calzo}, dice={self.dudo_rules.dice})"


def dice_label_parts(label: str) -> tuple[LabelPart, ...]:
    """``"2x5"`` as 2 x a die, a roll ``"16"`` as its dice, anything else as text."""
    quantity, sep, face = label.partition("x")
    if sep and quantity.isdigit() and face.isdigit():
        return (f"{quantity}×", Die(int(face)))
    if label.isdigit() and "0" not in label:
        return tuple(Die(int(c)) for c in label)
    return (label,)

"""The limit hold'em family: parameters and names, betting, payoffs, keys and how a player sees
a hand (universal_poker agreement is in test_holdem_openspiel.py)."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from solver.games import game_names, get_game, get_view, legal_labels, named_games, play
from solver.games.holdem import HOLDEM_MINI, HULHE, HoldemGame, HoldemRules, HoldemState
from solver.games.holdem.betting import count_sequences
from solver.games.holdem.rules import from_spec, parse
from solver.games.view_values import Card

# holdem-mini's cards: id = rank * 2 + suit.
C2, D2, C3, D3, C4, D4, C5, D5 = range(8)
F, C, R = 0, 1, 2
NAMES = ("you", "the bot")


def mini(*history: int) -> HoldemState:
    state = play(get_game("holdem-mini"), history)
    assert isinstance(state, HoldemState)
    return state


def test_named_members_and_the_lobby() -> None:
    assert "holdem-mini" in game_names()
    assert "holdem" in game_names() and get_game("holdem").listed  # its abstraction bot
    assert "holdem" not in named_games()
    hulhe, mini = get_game("holdem"), get_game("holdem-mini")
    assert isinstance(hulhe, HoldemGame) and isinstance(mini, HoldemGame)
    assert hulhe.definition == HULHE
    assert mini.definition == HOLDEM_MINI
    # A member named by its parameters, either way, is the named game when there is one.
    assert get_game(HOLDEM_MINI.game_string) is get_game("holdem-mini")
    assert get_game("holdem(numSuits=2,numRanks=4,numBoardCards=0 1,raiseSize=2 4,"
                    "maxRaises=3 3)") is get_game("holdem-mini")
    assert get_game("holdem()") is get_game("holdem")
    other = get_game("holdem(numRanks=6, numSuits=2, numBoardCards=0 1 1)")
    assert other.name == "holdem(numSuits=2,numRanks=6,numBoardCards=0 1 1)"
    assert get_game(other.name).name == other.name
    with pytest.raises(KeyError,
                       match=r"holdem-mini, pushfold-5bb, .*, holdem, .*holdem\(\.\.\.\)"):
        get_game("texas")


def test_specs_take_hulhe_for_what_they_leave_out() -> None:
    rules = from_spec("holdem(numRanks=6,numSuits=2,numBoardCards=0 1 1)")
    assert rules == HoldemRules(num_ranks=6, num_suits=2, board_cards=(0, 1, 1),
                                raise_sizes=(2, 2, 4), max_raises=(3, 4, 4),
                                first_player=(1, 0, 0))
    assert parse(rules.spec) == rules and parse(rules.game_string) == rules
    assert HULHE.spec == "holdem()"
    # A member whose lists are HULHE's first rounds still names its number of rounds.
    three = from_spec("holdem(numRanks=6,numBoardCards=0 3 1,raiseSize=2 2 4,maxRaises=3 4 4)")
    assert three.num_rounds == 3 and parse(three.spec) == three
    assert HOLDEM_MINI.spec == ("holdem(numSuits=2,numRanks=4,numBoardCards=0 1,raiseSize=2 4,"
                                "maxRaises=3 3)")


@pytest.mark.parametrize(("text", "message"), [
    ("universal_poker(betting=pot,numPlayers=2,maxRaises=1 1)", "betting must be limit or nolimit"),
    ("universal_poker(betting=limit,numPlayers=3,maxRaises=1 1)", "numPlayers=2"),
    ("universal_poker(betting=limit,numPlayers=2)", "maxRaises is required"),
    ("holdem(numRanks=6,stacks=9)", "unknown parameters stacks"),
    ("holdem(numBoardCards=0 1,raiseSize=2 2 4)", "raiseSize needs one entry per round"),
    ("holdem(numRounds=3,numBoardCards=0 1)", "numRounds=3 but numBoardCards has 2"),
    ("holdem(numHoleCards=3)", "numHoleCards must be 1 or 2"),
    ("holdem(numBoardCards=0 3 1 2)", "at most 7 hole and board cards"),
    ("holdem(numRanks=2,numSuits=2)", "cannot deal"),
    ("holdem(bettingAbstraction=fc)", "a limit game has no bet abstraction"),
    ("holdem(betting=nolimit,raiseSize=2 2 4 4)", "a no-limit game has no raiseSize"),
    ("holdem(betting=nolimit,stack=100 20000)", "each stack must be more than its blind"),
    ("holdem(betting=nolimit,stack=500)", "stack needs one amount per player"),
    ("holdem(betting=nolimit,bettingAbstraction=p a 3x)", "bet size '3x' is not one of"),
    ("holdem(numRanks=x)", "numRanks must be an integer"),
])
def test_bad_parameters_are_named(text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse(text)


def test_betting_sequences() -> None:
    assert count_sequences(HULHE) == 6_378
    # Three bets at most in every round (two raises of the big blind): 2,286.
    assert count_sequences(HoldemRules(max_raises=(2, 3, 3, 3))) == 2_286


def test_preflop_and_postflop_betting() -> None:
    state = mini(C2, D3, D4, D5)
    assert state.current_player() == 1  # the small blind first
    assert legal_labels(state) == ["fold", "call", "raise"]
    assert legal_labels(state.apply_action(C)) == ["check", "raise"]  # the big blind's option
    capped = mini(C2, D3, D4, D5, R, R, R)
    assert legal_labels(capped) == ["fold", "call"]  # the blind and three raises
    flop = mini(C2, D3, D4, D5, C, C)
    assert flop.is_chance() and flop.legal_actions() == (D2, C3, C4, C5)
    turn = flop.apply_action(C4)
    assert turn.current_player() == 0 and legal_labels(turn) == ["check", "bet"]
    assert legal_labels(turn.apply_action(R)) == ["fold", "call", "raise"]
    with pytest.raises(ValueError, match=r"legal actions: 1 \(check\), 2 \(bet\)"):
        turn.apply_action(F)
    with pytest.raises(ValueError, match=r"illegal card 0 .* legal: 2d 3c 3d"):
        mini(C2).apply_action(C2)


def test_returns() -> None:
    assert mini(C2, D3, D4, D5, F).returns() == (1.0, -1.0)  # the small blind folds
    assert mini(C2, D3, D4, D5, R, F).returns() == (-2.0, 2.0)  # the big blind folds to 4
    # 3d2c against 5d4d on 4c: a pair of Fours; rrrc then crc: 8 + 4 each.
    assert mini(C2, D3, D4, D5, R, R, R, C, C4, C, R, C).returns() == (-12.0, 12.0)
    # 5c3c against 5d2d on 3d: a pair of Threes beats Five high.
    assert mini(C5, C3, D5, D2, C, C, D3, C, C).returns() == (2.0, -2.0)
    # 5c2c against 5d2d on 3c: the same hand, a split pot.
    assert mini(C5, C2, D5, D2, C, C, C3, C, R, C).returns() == (0.0, 0.0)
    assert mini(C5, C2, D5, D2, C, C, C3, C, R, F).returns() == (-2.0, 2.0)


def test_keys() -> None:
    state = mini(C2, D3)
    assert state.private_key(0) == "3d2c" and state.private_key(1) == ""
    state = mini(C2, D3, D5, D4, R, C)
    assert state.is_chance() and state.public_key() == "rc||"  # round 2 begun, no card yet
    state = state.apply_action(C4).apply_action(C)
    assert state.information_state_key() == "5d4d|rc|4c|c"
    assert state.information_state_key(0) == "3d2c|rc|4c|c"
    assert mini(C2, D3, D5, D4).information_state_key() == "5d4d|"
    hulhe = play(get_game("holdem"), [51, 48, 0, 1, C, C, 20, 12, 40])
    assert hulhe.information_state_key() == "AsAc|cc|Qc7c5c|"


def test_how_a_hand_is_seen() -> None:
    state = mini(C2, D3, D4, D5, R, R, R, C, C4, C, R)
    view = get_view("holdem-mini").public_view(state)
    assert (view.pot, view.contributions, view.round, view.rounds) == (20, (8, 12), 2, 2)
    assert view.betting == "rrrc/cr" and view.board_slots == 1
    assert view.board == (Card("4", "c"),)
    assert get_view("holdem-mini").private_pieces(state, 1) == (Card("5", "d"), Card("4", "d"))
    assert get_view("holdem-mini").outcome_text(state.apply_action(C), NAMES) == (
        "Showdown: a pair of Fours beats Four high: 12 to the bot.")
    assert get_view("holdem-mini").outcome_text(state.apply_action(F), NAMES) == (
        "You folded: 8 to the bot.")
    assert get_view("holdem-mini").outcome_text(mini(C5, C3, D5, D2, C, C, D3, C, C), NAMES) == (
        "Showdown: a pair of Threes beats Five high: 2 to you.")
    assert get_view("holdem-mini").outcome_text(mini(C5, C2, D5, D2, C, C, C3, C, C), NAMES) == (
        "Showdown: both play Five high, the pot is split.")
    # 5c3c against 5d2d on 4c: Five-Four-Three against Five-Four-Two.
    assert get_view("holdem-mini").outcome_text(mini(C5, C3, D5, D2, C, C, C4, C, C),
                                                ("the bot", "you")) == (
        "Showdown: Five high beats Five high on the kicker, Three against Two: 2 to the bot.")
    game = get_game("holdem-mini")
    assert get_view(game.name).label_parts("3d2c") == (Card("3", "d"), Card("2", "c"))
    assert get_view(game.name).label_parts("raise") == ("raise",)
    # In words: the small blind faces the big blind's extra chip, so its c calls and its r
    # raises; after the board nobody faces a bet until somebody bets.
    assert get_view(game.name).describe_history("rrrc|4c|cr") == (
        "Round 1: raise, raise, raise, call; Round 2 (4♣): check, bet")
    assert get_view("holdem").describe_history("rc|Ks7d2c|cr|9h|") == (
        "Preflop: raise, call; Flop (K♠ 7♦ 2♣): check, bet; Turn (9♥): nothing yet")
    assert get_view("holdem").describe_history("cr|Ks7d2c|rrf") == (
        "Preflop: call, raise; Flop (K♠ 7♦ 2♣): bet, raise, fold")


def test_hands_by_name() -> None:
    from solver.cards.deck import STANDARD
    from solver.games.holdem.names import name_hand

    def named(cards: str) -> str:
        return name_hand(STANDARD.parse_cards(cards), STANDARD).text

    assert named("AsKsQsJsTs2c3d") == "a royal flush"
    assert named("5s4s3s2sAs9d9h") == "a straight flush, Five high"
    assert named("9c9d9h9s2c") == "four of a kind, Nines"
    assert named("9c9d9h2s2c3d") == "a full house, Nines full of Twos"
    assert named("Ah9h7h4h2hKd") == "a flush, Ace high"
    assert named("As2d3h4c5s") == "a straight, Five high"
    assert named("7c7d7h") == "three of a kind, Sevens"
    assert named("7c7d2h2s") == "two pair, Sevens and Twos"
    assert named("KcQd") == "King high"


def test_hand_classes_make_poker_s_grid_of_169() -> None:
    """The 1,326 two-card hands of 52 cards fall into 13 pairs of 6 combinations, 78 suited
    classes of 4 and 78 offsuit of 12, each in its own cell of the 13×13 grid."""
    game = get_game("holdem")
    assert isinstance(game, HoldemGame)
    classes = get_view(game.name).hand_classes
    assert classes is not None and classes.ranks == "AKQJT98765432"
    counts = Counter(classes.cell(game.written(pair))
                     for pair in itertools.combinations(range(52), 2))
    assert len(counts) == 169 and None not in counts
    cells = {cell: n for cell, n in counts.items() if cell is not None}
    combos = Counter(
        (6 if r == c else 4 if r < c else 12) == n for (r, c), n in cells.items())
    assert combos == {True: 169}
    assert classes.label(0, 0) == "AA" and classes.label(0, 1) == "AKs"
    assert classes.label(1, 0) == "AKo" and classes.label(12, 11) == "32o"
    assert classes.cell("AsKs") == (0, 1) and classes.cell("KsAd") == (1, 0)
    assert classes.cell("As") is None and classes.cell("Xs2d") is None
    unit = get_view(game.name).result_unit
    assert unit is not None and unit.name == "mbb/hand" and unit.per_chip == 500

"""The service layer directly: results math, seeded and scripted decks, bot sampling, owners."""

from __future__ import annotations

import math
import random
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy.orm import Session

from app import services
from app.core import errors
from app.db import hand_store
from app.db.engine import create_tables, make_engine, make_sessionmaker
from app.db.hand_store import Finish
from app.schemas import HandView
from app.services.analysis import results
from app.services.bots.strategy_source import StrategySource
from app.services.play.hands import _sample
from solver.games import Game, State, game_names


class ScriptedRandom(random.Random):
    """``random()`` returns the given numbers in order: a stacked deck."""

    def __init__(self, values: list[float]) -> None:
        super().__init__(0)
        self.values = list(values)

    def random(self) -> float:
        if not self.values:
            raise AssertionError("the script ran out of numbers")
        return self.values.pop(0)


@dataclass
class Env:
    session: Session
    source: StrategySource
    bot: services.Bot

    def match(self, game: str, owner: str | None = None) -> tuple[str, services.Access]:
        created = services.create_match(self.session, self.source, game, owner)
        access = (services.OwnerAccess(owner) if owner is not None
                  else services.TokenAccess(created.token))
        return created.match_id, access

    def deal(self, match: tuple[str, services.Access], rng: random.Random) -> HandView:
        return services.start_hand(self.session, self.source, self.bot, match[0], match[1],
                                   rng=rng)

    def act(self, match: tuple[str, services.Access], view: HandView, label: str,
            rng: random.Random) -> HandView:
        return services.act(self.session, self.source, self.bot, view.hand_id, match[1], label,
                            seq=view.seq, rng=rng).view


@pytest.fixture
def env(tmp_path: Path, store_path: Path) -> Iterator[Env]:
    engine = make_engine(f"sqlite:///{tmp_path / 'play.sqlite'}")
    create_tables(engine)
    source = StrategySource(store_path)
    assert source.open() is None
    with make_sessionmaker(engine)() as session:
        yield Env(session, source, services.StoredStrategyBot(source))
    source.close()
    engine.dispose()


# ---- results math ----------------------------------------------------------------------------

T_3 = 3.182446305284263
"""Student's t, two-sided 95%, 3 degrees of freedom (any table: 3.182)."""
T_4 = 2.7764451051977934
"""And 4 degrees of freedom (any table: 2.776)."""


def test_results_math_against_a_hand_computed_example() -> None:
    # payoffs 1, -2, 3, 0: total 2, mean 0.5; squared deviations 0.25 + 6.25 + 6.25 + 0.25 = 13,
    # s^2 = 13 / 3, s = 2.0816659994661326; half width t(3) * s / 2 = 3.3124035679...
    stats = results.summarize([1.0, -2.0, 3.0, 0.0])
    assert stats.n == 4 and stats.total == 2.0 and stats.mean == 0.5
    assert stats.std == pytest.approx(2.0816659994661326, rel=1e-12)
    half = T_3 * 2.0816659994661326 / 2
    assert stats.ci95_low == pytest.approx(0.5 - half, rel=1e-9)
    assert stats.ci95_high == pytest.approx(0.5 + half, rel=1e-9)
    # The same from the running totals a match keeps (sum 2, sum of squares 14).
    assert results.from_totals(4, 2.0, 14.0) == stats
    assert results.t_quantile(1) == pytest.approx(12.706204736174707, rel=1e-9)
    assert results.t_quantile(10_000) == pytest.approx(1.96, abs=1e-3)


def test_results_math_edge_cases() -> None:
    none = results.summarize([])
    assert (none.n, none.total, none.mean, none.std, none.ci95_low) == (0, 0.0, None, None, None)
    one = results.summarize([3.0])
    assert (one.mean, one.std, one.ci95_low, one.ci95_high) == (3.0, None, None, None)
    same = results.summarize([2.0, 2.0])
    assert (same.std, same.ci95_low, same.ci95_high) == (0.0, 2.0, 2.0)


def test_two_wins_give_no_verdict() -> None:
    """Two wins against a uniform Rock-Paper-Scissors bot: no spread, no verdict."""
    two_wins = results.summarize([1.0, 1.0])
    verdict = results.verdict(two_wins, 0.0)
    assert verdict.kind == "too_few_hands" and "28 more hands" in verdict.text
    thirty_wins = results.summarize([1.0] * 30)
    assert results.verdict(thirty_wins, 0.0).kind == "too_few_hands"  # zero width
    spread = results.summarize([1.0, -1.0, 0.0] * 10)
    assert results.verdict(spread, 0.0).kind == "consistent"
    assert results.verdict(spread, 0.9).kind == "worse"
    assert results.verdict(spread, -0.9).kind == "better"
    assert results.verdict(spread, None).kind == "no_expectation"


def test_match_results_from_finished_hands(env: Env) -> None:
    match = env.match("kuhn")
    row = hand_store.find_match(env.session, match[0])
    for number, (seat, payoff) in enumerate([(0, 1.0), (0, -2.0), (1, 3.0), (0, 0.0)], 1):
        hand = hand_store.new_hand(row, number, seat)
        hand_store.insert_hand(env.session, hand, [], Finish(payoff))
    # Four results: the interval waits for a fifth (the hand-computed one is above).
    early = services.match_results(env.session, env.source, *match)
    assert early.hands_played == 4 and early.std == pytest.approx(2.0816659994661326, rel=1e-12)
    assert early.ci95_low is early.ci95_high is None and "after 5 hands" in str(early.ci95_note)
    hand = hand_store.new_hand(row, 5, 1)
    hand_store.insert_hand(env.session, hand, [], Finish(-2.0))
    current = hand_store.insert_hand(env.session, hand_store.new_hand(row, 6, 0), [], None)
    value = env.source.solve("kuhn").value
    out = services.match_results(env.session, env.source, *match)
    # payoffs 1, -2, 3, 0, -2: total 0, mean 0; squared deviations 1 + 4 + 9 + 0 + 4 = 18,
    # s^2 = 18 / 4, s = 2.1213203435596424; half width t(4) * s / sqrt(5)
    assert out.hands_played == 5 and out.total == 0.0 and out.mean == 0.0
    assert out.std == pytest.approx(2.1213203435596424, rel=1e-12)
    half = T_4 * 2.1213203435596424 / math.sqrt(5)
    assert out.ci95_low == pytest.approx(-half, rel=1e-9)
    assert out.ci95_high == pytest.approx(half, rel=1e-9)
    assert out.ci95_note is None
    assert out.game_value == value
    assert out.expected_total == pytest.approx(value)
    assert out.verdict == "too_few_hands"
    assert [p.cumulative for p in out.series] == [1.0, -1.0, 2.0, 2.0, 0.0]
    assert [p.expected_cumulative for p in out.series] == pytest.approx(
        [value, 2 * value, value, 2 * value, value])
    assert [h.number for h in out.hands] == [6, 5, 4, 3, 2, 1]
    assert out.current_hand_id == current.public_id == out.hands[0].hand_id
    page = services.match_results(env.session, env.source, *match, limit=2)
    assert [h.number for h in page.hands] == [6, 5] and page.next_cursor == 5
    older = services.match_results(env.session, env.source, *match, limit=2, before=4)
    assert [h.number for h in older.hands] == [3, 2] and older.next_cursor == 2
    last = services.match_results(env.session, env.source, *match, limit=2, before=2)
    assert [h.number for h in last.hands] == [1] and last.next_cursor is None


def test_long_match_series_is_sampled(env: Env) -> None:
    match = env.match("rps")
    row = hand_store.find_match(env.session, match[0])
    payoffs = [float((i * 7) % 3 - 1) for i in range(1_234)]
    for number, payoff in enumerate(payoffs, 1):
        hand_store.insert_hand(env.session, hand_store.new_hand(row, number, (number - 1) % 2),
                               [], Finish(payoff))
    out = services.match_results(env.session, env.source, *match)
    assert len(out.series) <= 500
    assert out.series[-1].number == 1_234
    running = [sum(payoffs[:p.number]) for p in out.series]
    assert [p.cumulative for p in out.series] == pytest.approx(running)
    assert out.total == pytest.approx(sum(payoffs)) and len(out.hands) == 50


def test_series_read_again_after_more_hands_is_the_whole_sample(env: Env) -> None:
    """The process remembers the sampled rows of a match (`app.services.play.series`) and reads only
    the hands finished since: after 5, 3 and 2 more hands (the stride stays 3 from 999 hands
    to 1,494) the series is the one a first read gives, every third hand and the last."""
    match = env.match("rps")
    row = hand_store.find_match(env.session, match[0])
    payoffs = [float((i * 5) % 3 - 1) for i in range(1_010)]
    done = 0
    for upto in (1_000, 1_005, 1_008, 1_010, 1_010):
        for number in range(done + 1, upto + 1):
            hand_store.insert_hand(env.session,
                                   hand_store.new_hand(row, number, (number - 1) % 2), [],
                                   Finish(payoffs[number - 1]))
        done = upto
        out = services.match_results(env.session, env.source, *match)
        wanted = [n for n in range(1, upto + 1) if n % 3 == 0 or n == upto]
        assert [p.number for p in out.series] == wanted
        assert [p.cumulative for p in out.series] == pytest.approx(
            [sum(payoffs[:n]) for n in wanted])


# ---- dealing and the bot ---------------------------------------------------------------------


def test_sample_follows_the_cumulative_distribution() -> None:
    assert _sample(ScriptedRandom([0.0]), [0.2, 0.3, 0.5]) == 0
    assert _sample(ScriptedRandom([0.1999]), [0.2, 0.3, 0.5]) == 0
    assert _sample(ScriptedRandom([0.2]), [0.2, 0.3, 0.5]) == 1
    assert _sample(ScriptedRandom([0.9999]), [0.2, 0.3, 0.5]) == 2
    assert _sample(ScriptedRandom([0.5]), [0.0, 1.0, 0.0]) == 1
    assert _sample(ScriptedRandom([0.9999999999]), [0.5, 0.5 - 1e-12, 0.0]) == 1
    with pytest.raises(ValueError):
        _sample(ScriptedRandom([0.5]), [0.0, 0.0])


def test_stacked_kuhn_deck(env: Env) -> None:
    """Human (seat 0) gets K, the bot Q; the bot's fold/call is decided by where the scripted
    number falls in its stored strategy at Q facing a bet."""
    fold = env.source.infoset("kuhn", "Q|b")
    assert fold is not None and fold.labels == ("fold", "call")
    p_fold = fold.probabilities[0]
    assert 0.01 < p_fold < 0.99
    for r, expected, payoff in ((p_fold - 1e-6, "fold", 1.0), (p_fold + 1e-6, "call", 2.0)):
        match = env.match("kuhn")
        # Deal: 0.9 of (J, Q, K) -> K to seat 0; 0.9 of (J, Q) -> Q to seat 1.
        deck = ScriptedRandom([0.9, 0.9, r])
        view = env.deal(match, deck)
        assert view.human_seat == 0 and view.private_view == "K"
        assert view.legal_actions == ["check", "bet"]
        assert [e.hidden for e in view.events] == [False, True]
        assert view.bot_pieces_hidden == 1
        view = env.act(match, view, "bet", deck)
        assert deck.values == []
        assert view.status == "finished"
        assert view.outcome is not None
        assert view.outcome.bot_private_view == "Q"
        (decision,) = view.outcome.bot_decisions
        assert decision.infoset == "Q|b" and decision.chosen == expected
        assert [p.probability for p in decision.probabilities] == list(fold.probabilities)
        assert view.outcome.human_payoff == payoff
        assert view.outcome.explanation == (
            "The bot folded to the bet: 1 to you." if expected == "fold"
            else "Showdown: K beats Q: 2 to you.")


def test_leduc_board_card_is_dealt_when_round_one_closes(env: Env) -> None:
    match = env.match("leduc")
    # Cards Js Jh Qs Qh Ks Kh: 0.99 -> Kh to the human; 0.0 -> Js to the bot.
    check = env.source.infoset("leduc", "Js|c")
    assert check is not None and check.labels == ("check", "bet")
    deck = ScriptedRandom([0.99, 0.0])
    view = env.deal(match, deck)
    assert view.private_view == "Kh"
    assert [(p.kind, p.rank, p.suit) for p in view.private_pieces] == [("card", "K", "h")]
    # The bot checks behind (r = 0), then the board: 0.5 of the four left (Jh Qs Qh Ks) -> Qh.
    deck.values = [0.0, 0.5]
    view = env.act(match, view, "check", deck)
    assert [e.label for e in view.new_events] == ["check", "check", "Qh"]
    assert [p.text for p in view.public.board] == ["Qh"] and view.public.round == 2
    assert view.legal_actions == ["check", "bet"]


def test_same_seed_same_hands_and_the_default_is_the_os(env: Env) -> None:
    def hands(seed: int) -> list[list[str | None]]:
        match = env.match("dudo")
        rng, out = random.Random(seed), []
        for _ in range(5):
            view = env.deal(match, rng)
            while view.status == "in_progress":
                view = env.act(match, view, view.legal_actions[-1], rng)
            out.append([e.label for e in view.events])
        return out

    assert hands(5) == hands(5)
    assert hands(5) != hands(6)
    assert isinstance(services.system_rng(), secrets.SystemRandom)


@pytest.mark.slow
def test_bot_follows_its_strategy_in_frequency(env: Env) -> None:
    """Over many hands, the bot's first move in Kuhn seat 0 matches the stored strategy."""
    match = env.match("kuhn")
    rng = random.Random(2024)
    counts: dict[str, list[int]] = {}
    for _ in range(300):
        hand = env.deal(match, rng)
        if hand.human_seat == 1:
            card = hand.private_view
            view = env.act(match, hand, "fold" if "fold" in hand.legal_actions else "check",
                           rng)
            assert view.outcome is not None
            bot_card = view.outcome.bot_private_view
            first = view.outcome.bot_decisions[0]
            tally = counts.setdefault(bot_card, [0, 0])
            tally[first.chosen == "bet"] += 1
            assert card != bot_card
        else:
            view = env.act(match, hand, "bet", rng)
            assert view.status == "finished"
    for card, (checks, bets) in counts.items():
        stored = env.source.infoset("kuhn", f"{card}|")
        assert stored is not None
        p_bet = stored.probabilities[1]
        n = checks + bets
        sd = math.sqrt(max(p_bet * (1 - p_bet), 1e-4) / n)
        assert abs(bets / n - p_bet) < 4 * sd + 1e-9, (card, bets, n, p_bet)


class AlwaysLast:
    """A bot of the test's own: always the last legal action."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def value(self, game: Game) -> float | None:
        return None  # no values: no coach

    def policy(self, game: Game, state: State) -> services.Policy:
        labels = tuple(state.action_label(a) for a in state.legal_actions())
        self.asked.append(state.information_state_key())
        return services.Policy(labels, tuple(float(i == len(labels) - 1)
                                             for i in range(len(labels))))


def test_the_bot_is_injected(env: Env) -> None:
    """The services play whatever bot they are given."""
    bot = AlwaysLast()
    match = env.match("kuhn")
    view = services.start_hand(env.session, env.source, bot, *match, rng=random.Random(3))
    view = services.act(env.session, env.source, bot, view.hand_id, match[1], "check",
                        seq=view.seq, rng=random.Random(3)).view
    assert view.legal_actions == ["fold", "call"]  # the bot bet
    view = services.act(env.session, env.source, bot, view.hand_id, match[1], "fold",
                        seq=view.seq, rng=random.Random(3)).view
    assert view.outcome is not None
    assert [d.chosen for d in view.outcome.bot_decisions] == ["bet"]
    assert bot.asked == [view.outcome.bot_decisions[0].infoset]
    assert view.outcome.coach is None and view.outcome.adjusted_payoff is None


# ---- matches, owners and tokens --------------------------------------------------------------


def test_owner_and_token(env: Env) -> None:
    mine = env.match("kuhn", owner="alice")
    env.match("leduc", owner="bob")
    created = services.create_match(env.session, env.source, "kuhn")
    token = services.TokenAccess(created.token)
    row = hand_store.find_match(env.session, created.match_id)
    assert created.token not in (row.token_hash, row.public_id)
    assert services.match_results(env.session, env.source, created.match_id, token).hands == []
    for bad, error in ((services.TokenAccess(None), errors.AuthenticationError),
                       (services.TokenAccess(created.token + "x"),
                        errors.PermissionDeniedError),
                       (services.OwnerAccess("alice"), errors.PermissionDeniedError)):
        with pytest.raises(error):
            services.match_results(env.session, env.source, created.match_id, bad)
    with pytest.raises(errors.PermissionDeniedError):
        services.match_results(env.session, env.source, mine[0], services.OwnerAccess("bob"))
    view = env.deal(mine, random.Random(1))
    listed = services.list_matches(env.session, "alice")
    assert [m.match_id for m in listed] == [mine[0]]
    assert listed[0].current_hand_id == view.hand_id and listed[0].hands == 1
    assert services.current_hand(env.session, *mine) == (view.hand_id, False)
    assert services.list_matches(env.session, "carol") == []


def test_unknown_and_unsolved(env: Env, store_without_leduc: Path) -> None:
    with pytest.raises(errors.NotFoundError, match="unknown game 'chess'; the games: rps, "):
        services.create_match(env.session, env.source, "chess")
    access = services.TokenAccess("anything")
    with pytest.raises(errors.NotFoundError):
        services.match_results(env.session, env.source, "nope", access)
    with pytest.raises(errors.NotFoundError):
        services.hand_view(env.session, env.bot, "nope", access)
    partial = StrategySource(store_without_leduc)
    try:
        with pytest.raises(errors.GameNotReadyError, match="no solved strategy"):
            services.create_match(env.session, partial, "leduc")
        games = {g.name: g for g in services.list_games(partial)}
        assert not games["leduc"].available and games["kuhn"].available
    finally:
        partial.close()


def test_catalog(env: Env) -> None:
    games = services.list_games(env.source)
    assert [g.name for g in games][:6] == ["rps", "kuhn", "leduc", "dudo", "dudo-calzo",
                                          "holdem-mini"]
    assert [g.name for g in games] == list(game_names())
    dudo = services.game_detail(env.source, "dudo")
    assert dudo.infosets == 24_576 and dudo.available
    assert dudo.reference_value == pytest.approx(-7 / 258)
    assert dudo.value == pytest.approx(-7 / 258, abs=1e-3)
    assert dudo.pieces == "dice" and dudo.openspiel == "liars_dice" and dudo.notes
    page = services.strategy(env.source, "dudo", prefix="3|", contains="2x1", limit=3)
    assert page.total > 3 and len(page.infosets) == 3
    assert all(i.key.startswith("3|") and "2x1" in i.key for i in page.infosets)
    by_parts = services.strategy(env.source, "dudo", private="3", history="1x2,", limit=5)
    # After 1x2 and at least one more of the 11 stronger bids: 2^11 - 1 bid sequences.
    assert by_parts.total == 2 ** 11 - 1 and len(by_parts.infosets) == 5
    assert all(i.key.startswith("3|1x2,") for i in by_parts.infosets)
    trace = services.convergence(env.source, "kuhn")
    solve = services.game_detail(env.source, "kuhn").solve
    assert solve is not None
    assert trace.points and trace.solve_id == solve.solve_id


def test_concurrent_actions_on_one_hand(tmp_path: Path, store_path: Path) -> None:
    """Eight simultaneous "bet"s in one hand, in eight threads, each with the view's ``seq``:
    exactly one is played and the seven others are refused (busy or stale); what was answered
    as played is exactly what the database holds."""
    engine = make_engine(f"sqlite:///{tmp_path / 'race.sqlite'}")
    create_tables(engine)
    factory = make_sessionmaker(engine)
    source = StrategySource(store_path)
    bot = services.StoredStrategyBot(source)
    with factory() as session:
        created = services.create_match(session, source, "leduc")
        access = services.TokenAccess(created.token)
        view = services.start_hand(session, source, bot, created.match_id, access,
                                   rng=random.Random(4))
    barrier = threading.Barrier(8)
    outcomes: list[object] = []

    def play_bet() -> None:
        with factory() as session:
            barrier.wait()
            try:
                outcomes.append(services.act(session, source, bot, view.hand_id, access, "bet",
                                             seq=view.seq, rng=random.Random()).view)
            except errors.ConflictError as exc:
                outcomes.append(exc)

    threads = [threading.Thread(target=play_bet) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    played = [o for o in outcomes if isinstance(o, HandView)]
    assert len(outcomes) == 8 and len(played) == 1, outcomes
    assert all(isinstance(o, errors.HandBusyError | errors.StaleHandError)
               for o in outcomes if o is not played[0]), outcomes
    with factory() as session:
        final = services.hand_view(session, bot, view.hand_id, access)
    assert [e.seq for e in final.events] == list(range(len(final.events)))
    assert final.seq == len(final.events)
    mine = [e for e in final.events if e.actor == "you"]
    assert [e.label for e in mine] == ["bet"]
    assert played[0].new_events[0].seq == mine[0].seq
    source.close()
    engine.dispose()

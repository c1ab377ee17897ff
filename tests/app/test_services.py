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
from app.db import create_tables, make_engine, make_sessionmaker
from app.models import FINISHED, IN_PROGRESS, Hand
from app.schemas import HandView
from app.services import results
from app.services.play import _sample
from app.services.strategy_source import StrategySource


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


@pytest.fixture
def env(tmp_path: Path, store_path: Path) -> Iterator[Env]:
    engine = make_engine(f"sqlite:///{tmp_path / 'play.sqlite'}")
    create_tables(engine)
    source = StrategySource(store_path)
    assert source.open() is None
    with make_sessionmaker(engine)() as session:
        yield Env(session, source)
    source.close()
    engine.dispose()


# ---- results math ----------------------------------------------------------------------------


def test_results_math_against_a_hand_computed_example() -> None:
    # payoffs 1, -2, 3, 0: total 2, mean 0.5; squared deviations 0.25 + 6.25 + 6.25 + 0.25 = 13,
    # s^2 = 13 / 3, s = 2.0816659994661326; half width 1.96 * s / 2 = 2.0400326794768100.
    stats = results.summarize([1.0, -2.0, 3.0, 0.0])
    assert stats.n == 4 and stats.total == 2.0 and stats.mean == 0.5
    assert stats.std == pytest.approx(2.0816659994661326, rel=1e-12)
    assert stats.ci95_low == pytest.approx(0.5 - 2.04003267947681, rel=1e-12)
    assert stats.ci95_high == pytest.approx(0.5 + 2.04003267947681, rel=1e-12)
    assert results.cumulative([1.0, -2.0, 3.0, 0.0]) == [1.0, -1.0, 2.0, 2.0]
    # Seats 0, 0, 1, 0 with seat-0 value -0.25: -0.25 - 0.25 + 0.25 - 0.25 = -0.5.
    assert results.expected_total([0, 0, 1, 0], -0.25) == -0.5


def test_results_math_edge_cases() -> None:
    none = results.summarize([])
    assert (none.n, none.total, none.mean, none.std, none.ci95_low) == (0, 0.0, None, None, None)
    one = results.summarize([3.0])
    assert (one.mean, one.std, one.ci95_low, one.ci95_high) == (3.0, None, None, None)
    same = results.summarize([2.0, 2.0])
    assert (same.std, same.ci95_low, same.ci95_high) == (0.0, 2.0, 2.0)
    assert results.expected_total([], 1.0) == 0.0


def test_match_results_from_recorded_hands(env: Env) -> None:
    match, _ = services.create_match(env.session, env.source, "kuhn")
    for number, (seat, payoff) in enumerate([(0, 1.0), (0, -2.0), (1, 3.0), (0, 0.0)], 1):
        env.session.add(Hand(match=match, number=number, human_seat=seat, status=FINISHED,
                             human_payoff=payoff))
    env.session.add(Hand(match=match, number=5, human_seat=0, status=IN_PROGRESS))
    env.session.commit()
    value = env.source.solve("kuhn").value
    out = services.match_results(env.session, env.source, match)
    assert out.hands_played == 4 and out.total == 2.0 and out.mean == 0.5
    assert out.std == pytest.approx(2.0816659994661326, rel=1e-12)
    assert out.ci95_low == pytest.approx(-1.54003267947681, rel=1e-12)
    assert out.ci95_high == pytest.approx(2.54003267947681, rel=1e-12)
    assert out.game_value == value
    assert out.expected_total == pytest.approx(2 * value)
    assert [p.cumulative for p in out.series] == [1.0, -1.0, 2.0, 2.0]
    assert [p.expected_cumulative for p in out.series] == pytest.approx(
        [value, 2 * value, value, 2 * value])
    assert [h.number for h in out.hands] == [5, 4, 3, 2, 1]
    assert out.current_hand_id == out.hands[0].hand_id


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
        match, _ = services.create_match(env.session, env.source, "kuhn")
        # Deal: 0.9 of (J, Q, K) -> K to seat 0; 0.9 of (J, Q) -> Q to seat 1.
        deck = ScriptedRandom([0.9, 0.9, r])
        view = services.start_hand(env.session, env.source, match, rng=deck)
        assert view.human_seat == 0 and view.private_view == "K"
        assert view.legal_actions == ["check", "bet"]
        assert [e.hidden for e in view.events] == [False, True]
        view = services.act(env.session, env.source, services.get_hand(env.session,
                                                                       view.hand_id),
                            "bet", rng=deck)
        assert deck.values == []
        assert view.status == "finished"
        assert view.outcome is not None
        assert view.outcome.bot_private_view == "Q"
        (decision,) = view.outcome.bot_decisions
        assert decision.infoset == "Q|b" and decision.chosen == expected
        assert [p.probability for p in decision.probabilities] == list(fold.probabilities)
        assert view.outcome.human_payoff == payoff


def test_leduc_board_card_is_dealt_when_round_one_closes(env: Env) -> None:
    match, _ = services.create_match(env.session, env.source, "leduc")
    # Cards Js Jh Qs Qh Ks Kh: 0.99 -> Kh to the human; 0.0 -> Js to the bot.
    check = env.source.infoset("leduc", "Js|c")
    assert check is not None and check.labels == ("check", "bet")
    deck = ScriptedRandom([0.99, 0.0])
    view = services.start_hand(env.session, env.source, match, rng=deck)
    assert view.private_view == "K♥"
    # The bot checks behind (r = 0), then the board: 0.5 of the four left (Jh Qs Qh Ks) -> Qh.
    deck.values = [0.0, 0.5]
    hand = services.get_hand(env.session, view.hand_id)
    view = services.act(env.session, env.source, hand, "check", rng=deck)
    assert [e.label for e in view.new_events] == ["check", "check", "Qh"]
    assert view.public.board == "Q♥" and view.public.round == 2
    assert view.legal_actions == ["check", "bet"]


def test_same_seed_same_hands_and_the_default_is_the_os(env: Env) -> None:
    def hands(seed: int) -> list[list[str | None]]:
        match, _ = services.create_match(env.session, env.source, "dudo")
        rng, out = random.Random(seed), []
        for _ in range(5):
            view = services.start_hand(env.session, env.source, match, rng=rng)
            while view.status == "in_progress":
                hand = services.get_hand(env.session, view.hand_id)
                view = services.act(env.session, env.source, hand, view.legal_actions[-1],
                                    rng=rng)
            out.append([e.label for e in view.events])
        return out

    assert hands(5) == hands(5)
    assert hands(5) != hands(6)
    assert isinstance(services.system_rng(), secrets.SystemRandom)


def test_bot_follows_its_strategy_in_frequency(env: Env) -> None:
    """Over many hands, the bot's first move in Kuhn seat 0 matches the stored strategy."""
    match, _ = services.create_match(env.session, env.source, "kuhn")
    rng = random.Random(2024)
    counts: dict[str, list[int]] = {}
    for _ in range(300):
        hand = services.start_hand(env.session, env.source, match, rng=rng)
        if hand.human_seat == 1:
            card = hand.private_view
            view = services.act(env.session, env.source,
                                services.get_hand(env.session, hand.hand_id), "fold"
                                if "fold" in hand.legal_actions else "check", rng=rng)
            assert view.outcome is not None
            bot_card = view.outcome.bot_private_view
            first = view.outcome.bot_decisions[0]
            tally = counts.setdefault(bot_card, [0, 0])
            tally[first.chosen == "bet"] += 1
            assert card != bot_card
        else:
            view = services.act(env.session, env.source,
                                services.get_hand(env.session, hand.hand_id), "bet", rng=rng)
            assert view.status == "finished"
    for card, (checks, bets) in counts.items():
        stored = env.source.infoset("kuhn", f"{card}|")
        assert stored is not None
        p_bet = stored.probabilities[1]
        n = checks + bets
        sd = math.sqrt(max(p_bet * (1 - p_bet), 1e-4) / n)
        assert abs(bets / n - p_bet) < 4 * sd + 1e-9, (card, bets, n, p_bet)


# ---- matches, owners and tokens --------------------------------------------------------------


def test_owner_and_token(env: Env) -> None:
    mine, token = services.create_match(env.session, env.source, "kuhn", owner="alice")
    services.create_match(env.session, env.source, "leduc", owner="bob")
    services.check_owner(mine, "alice")
    with pytest.raises(services.PermissionDeniedError):
        services.check_owner(mine, "bob")
    with pytest.raises(services.PermissionDeniedError):
        services.check_owner(mine, None)
    services.check_token(mine, token)
    with pytest.raises(services.AuthenticationError):
        services.check_token(mine, None)
    with pytest.raises(services.PermissionDeniedError):
        services.check_token(mine, token + "x")
    assert token not in (mine.token_hash, mine.public_id)
    view = services.start_hand(env.session, env.source, mine, rng=random.Random(1))
    listed = services.list_matches(env.session, "alice")
    assert [m.match_id for m in listed] == [mine.public_id]
    assert listed[0].current_hand_id == view.hand_id and listed[0].hands == 1
    assert services.current_hand(env.session, mine) is not None
    assert services.list_matches(env.session, "carol") == []


def test_unknown_and_unsolved(env: Env, store_without_leduc: Path) -> None:
    with pytest.raises(services.NotFoundError, match="valid games"):
        services.create_match(env.session, env.source, "chess")
    with pytest.raises(services.NotFoundError):
        services.get_match(env.session, "nope")
    with pytest.raises(services.NotFoundError):
        services.get_hand(env.session, "nope")
    partial = StrategySource(store_without_leduc)
    try:
        with pytest.raises(services.StrategyUnavailableError, match="no solved strategy"):
            services.create_match(env.session, partial, "leduc")
        games = {g.name: g for g in services.list_games(partial)}
        assert not games["leduc"].available and games["kuhn"].available
    finally:
        partial.close()


def test_catalog(env: Env) -> None:
    games = services.list_games(env.source)
    assert [g.name for g in games] == ["rps", "kuhn", "leduc", "dudo", "dudo-calzo"]
    dudo = services.game_detail(env.source, "dudo")
    assert dudo.infosets == 24_576 and dudo.available
    assert dudo.reference_value == pytest.approx(-7 / 258)
    assert dudo.value == pytest.approx(-7 / 258, abs=1e-3)
    page = services.strategy(env.source, "dudo", prefix="3|", contains="2x1", limit=3)
    assert page.total > 3 and len(page.infosets) == 3
    assert all(i.key.startswith("3|") and "2x1" in i.key for i in page.infosets)
    trace = services.convergence(env.source, "kuhn")
    solve = services.game_detail(env.source, "kuhn").solve
    assert solve is not None
    assert trace.points and trace.solve_id == solve.solve_id


@pytest.mark.parametrize("with_seq", [True, False])
def test_concurrent_actions_on_one_hand(tmp_path: Path, store_path: Path, with_seq: bool) -> None:
    """Eight simultaneous "bet"s in one hand, in eight threads. With the view's ``seq`` exactly
    one is played and the seven others are refused (409-type errors: busy or stale). Without it,
    those that arrive while another is being played are refused; one that arrives after it may
    be played as the next move. Either way what was answered as played is exactly what the
    database holds, and nothing else happens (no other error)."""
    engine = make_engine(f"sqlite:///{tmp_path / 'race.sqlite'}")
    create_tables(engine)
    factory = make_sessionmaker(engine)
    source = StrategySource(store_path)
    with factory() as session:
        match, _ = services.create_match(session, source, "leduc")
        view = services.start_hand(session, source, match, rng=random.Random(4))
    barrier = threading.Barrier(8)
    outcomes: list[object] = []

    def play_bet() -> None:
        with factory() as session:
            hand = services.get_hand(session, view.hand_id)
            barrier.wait()
            try:
                outcomes.append(services.act(session, source, hand, "bet", rng=random.Random(),
                                             expected_seq=view.seq if with_seq else None))
            except services.ConflictError as exc:  # IllegalActionError is one too
                outcomes.append(exc)

    threads = [threading.Thread(target=play_bet) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    played = [o for o in outcomes if isinstance(o, HandView)]
    assert len(outcomes) == 8 and len(played) >= 1, outcomes
    if with_seq:
        assert len(played) == 1, outcomes
        assert all(isinstance(o, services.HandBusyError | services.StaleHandError)
                   for o in outcomes if o is not played[0]), outcomes
    assert all(isinstance(o, HandView | services.ConflictError) for o in outcomes)
    with factory() as session:
        final = services.hand_view(session, source, services.get_hand(session, view.hand_id))
    assert [e.seq for e in final.events] == list(range(len(final.events)))
    assert final.seq == len(final.events)
    mine = [e for e in final.events if e.actor == "you"]
    assert [e.label for e in mine] == ["bet"] * len(played)
    assert sorted(p.new_events[0].seq for p in played) == [e.seq for e in mine]
    source.close()
    engine.dispose()

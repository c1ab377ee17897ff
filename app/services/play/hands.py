"""Playing hands against the bot: deal, act, look, resume.

Every action (chance outcomes included) is committed, so the state of a hand is always
``play(game, its action ids)``: a restart mid-hand resumes where it stopped. The bot answers at
once: after a hand starts and after each human action, chance nodes are sampled and the bot
samples its move from its strategy, until it is the human's turn or the hand is over; the
human's action and these replies are committed together, in one transaction guarded by the
hand's ``version`` (`hand_store.save`).

Every action is played exactly once: it must come with the ``seq`` of the view it was chosen
on (a stale one is refused) or with an idempotency key (a retry gets the first answer again).
Looking at a hand never writes.
"""

from __future__ import annotations

import hashlib
import math
import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from sqlalchemy.orm import Session

from app.core.errors import (
    BotStalledError,
    HandBusyError,
    HandFinishedError,
    HandInProgressError,
    IdempotencyKeyReuseError,
    IllegalActionError,
    IllegalAmountError,
    StaleHandError,
    StrategyUnavailableError,
    UnguardedActionError,
)
from app.db import analysis_store, hand_store
from app.db.hand_store import BUSY, Finish, HandRow, IdempotentAnswer, Recorded
from app.db.models import FINISHED, IN_PROGRESS
from app.db.player_totals import style_rows
from app.schemas import HandReplay, HandView
from app.services.analysis import analyse, coach
from app.services.analysis.trace import Trace
from app.services.bots.bot import Bot, Policy, for_match, solve_figures, valuers_of
from app.services.bots.strategy_source import StrategySource
from app.services.play import views
from app.services.play.tokens import (
    Access,
    kind_after_action,
    kind_of_play,
    open_hand,
    open_match,
)
from solver.games import (
    CHANCE,
    AmountChoice,
    GameView,
    State,
    action_from_label,
    get_game,
    get_view,
    legal_words,
    offered_labels,
)

_SYSTEM_RANDOM = secrets.SystemRandom()
"""Dealing uses the OS's secure randomness unless a caller injects its own rng."""


def system_rng() -> random.Random:
    return _SYSTEM_RANDOM


def human_seat_for(number: int) -> int:
    """Seats alternate: hand 1 the human is seat 0 (first to act), hand 2 seat 1, ..."""
    return (number - 1) % 2


@dataclass(frozen=True, slots=True)
class Played:
    """The answer to an action; `replayed` if it is the kept answer to an earlier request
    with the same idempotency key (nothing was played this time)."""

    view: HandView
    replayed: bool = False


def start_hand(session: Session, source: StrategySource, bot: Bot, match_id: str,
               access: Access, rng: random.Random | None = None, hint: bool = False
               ) -> HandView:
    """Deal the next hand of the match and play until the human's turn (or the end).

    `HandInProgressError` if the previous hand is unfinished, `StrategyUnavailableError`
    if the game has no solved strategy."""
    match = open_match(session, match_id, access)
    source.require(match.game)
    last = hand_store.last_hand(session, match.id)
    number = 1
    if last is not None:
        public_id, last_number, status = last
        if status == IN_PROGRESS:
            raise HandInProgressError(
                f"hand {public_id} (number {last_number}) of this match is still in progress; "
                "finish it before dealing a new one", public_id)
        number = last_number + 1
    hand = hand_store.new_hand(match, number, human_seat_for(number),
                               kind_of_play(access, match))
    trace = Trace(get_game(match.game))

    def write(rows: list[Recorded], finish: Finish | None, _view: HandView) -> HandRow:
        return hand_store.insert_hand(session, hand, rows, finish)

    return _play_out(session, bot, hand, trace, 0, rng, hint, write).view


def act(session: Session, source: StrategySource, bot: Bot, hand_id: str, access: Access,
        label: str, *, amount: int | None = None, seq: int | None = None,
        idempotency_key: str | None = None, rng: random.Random | None = None,
        hint: bool = False) -> Played:
    """Play the human's action `label` and the bot's replies, all in one transaction. With an
    `amount`, `label` names a move whose size the player chooses (``raise``: the view's
    `amount_choice`) and the amount its size; `IllegalAmountError`, naming the range, if it
    is not legal.

    `seq` is the ``seq`` of the view the action was chosen on: if the hand has changed since
    (a double click, two tabs, a retry), nothing is played (`StaleHandError`). With an
    `idempotency_key` instead (or as well), a request repeated with the same key gets the
    first one's answer (`Played.replayed`), and the same key with another request is an
    `IdempotencyKeyReuseError`.
    Without either, nothing is played (`UnguardedActionError`). An action that arrives
    while another one on the same hand is being played is refused (`HandBusyError`).

    `IllegalActionError` (carrying the legal labels) if the hand is over, it is not the
    human's turn or the label is not legal here; `BotStalledError` if the bot has no strategy
    (the action is kept)."""
    with hand_store.claim(hand_id) as held:
        hand = open_hand(session, hand_id, access)
        if seq is None and idempotency_key is None:
            raise UnguardedActionError(
                "an action needs the seq of the hand view it was chosen on, or an idempotency "
                "key, so that a retry or a double submission is never played twice; nothing "
                "was played")
        if not held:
            raise HandBusyError(BUSY)
        fingerprint = _fingerprint(hand_id, label if amount is None else f"{label} {amount}",
                                   seq)
        # The key is looked up after the hand's version was read: if the first request with
        # this key commits in between, it is found here; if later, the version guard stops us.
        if idempotency_key is not None:
            kept = hand_store.idempotent_answer(session, hand.match, idempotency_key)
            if kept is not None:
                if kept[0] != fingerprint:
                    raise IdempotencyKeyReuseError(
                        "this idempotency key was already used for another action of this "
                        "match; use a new key for each new action")
                return Played(HandView.model_validate_json(kept[1]), replayed=True)
        trace = Trace.replay(get_game(hand.match.game), hand_store.recorded(session, hand))
        state = trace.state
        if seq is not None and seq != trace.seq:
            mine = not state.is_terminal() and state.current_player() == hand.human_seat
            drawn = get_view(hand.match.game)
            legal = offered_labels(drawn, state) if mine else []
            now = ("it is over" if state.is_terminal() else
                   f"your legal actions now: {legal_words(drawn, state)}" if legal else
                   "it is not your turn")
            raise StaleHandError(
                f"hand {hand.public_id} has changed since the view this action was chosen on "
                f"(seq {seq}, now {trace.seq}): a double click, another tab or a retry? The "
                f"action was not played; look at the hand again ({now})", legal, trace.seq)
        if hand.status == FINISHED or state.is_terminal():
            if hand.status != FINISHED:  # record the end it missed
                hand_store.save(session, hand, [], _finish_of(session, bot, trace, hand))
            raise HandFinishedError(f"hand {hand.public_id} is finished", hand.match.public_id)
        if state.current_player() != hand.human_seat:
            # Only after an interruption (a failed store) between your move and the bot's:
            # the bot moves now, and you see its move before acting.
            view = _play_out(session, bot, hand, trace, trace.seq, rng, False,
                             _saver(session, hand)).view
            raise IllegalActionError(
                "it was not your turn: the bot has just moved; look at the hand again and "
                f"choose among the legal actions: {', '.join(view.legal_actions) or 'none'}",
                view.legal_actions)
        drawn = get_view(hand.match.game)
        choice = drawn.amount_choice(state)
        if amount is not None or (choice is not None and label in choice.verbs):
            label = _sized(choice, label, amount, drawn, state)
        try:
            action = action_from_label(state, label)
        except ValueError:
            raise IllegalActionError(f"illegal action {label!r}; legal actions: "
                                     f"{legal_words(drawn, state)}",
                                     offered_labels(drawn, state)) from None
        since = trace.seq
        trace.append(Recorded(since, hand.human_seat, action, state.action_label(action), None))
        hand = replace(hand, player_kind=kind_after_action(access, hand.player_kind))
        # Your action is kept even if the bot could not answer: it answers once it can.
        key = (idempotency_key, fingerprint) if idempotency_key is not None else None
        return _play_out(session, bot, hand, trace, since, rng, hint,
                         _saver(session, hand, key))


def _sized(choice: AmountChoice | None, verb: str, amount: int | None, drawn: GameView,
           state: State) -> str:
    """The label of the move `verb` to `amount` (``raise`` to 300: ``raise to 300``)."""
    if choice is None:
        raise IllegalAmountError(
            "there is no amount to choose here; choose among the legal actions: "
            f"{legal_words(drawn, state)}", offered_labels(drawn, state))
    if verb not in choice.verbs:
        raise IllegalAmountError(
            f"an amount goes with {' or '.join(repr(v) for v in choice.verbs)}, not {verb!r}: "
            f"{choice.range_words}", offered_labels(drawn, state))
    if amount is None:
        raise IllegalAmountError(f"say how much: {choice.range_words}; nothing was played",
                                 offered_labels(drawn, state))
    if not choice.allows(amount):
        raise IllegalAmountError(f"{amount} is not a legal amount: {choice.range_words}; "
                                 "nothing was played", offered_labels(drawn, state))
    return choice.label(amount)


def hand_view(session: Session, bot: Bot, hand_id: str, access: Access, hint: bool = False
              ) -> HandView:
    """The hand as the human sees it (read only)."""
    hand = open_hand(session, hand_id, access)
    trace = Trace.replay(get_game(hand.match.game), hand_store.recorded(session, hand))
    review, pending = _kept_review(session, hand)
    return views.hand_view(hand, trace, trace.seq, _hint(bot, trace, hand, hint), review,
                           pending=pending, figures=solve_figures(bot, trace.game))


def hand_replay(session: Session, bot: Bot, hand_id: str, access: Access) -> HandReplay:
    """A finished hand step by step, both hands shown, with the bot's probabilities and the
    coach's figures; `HandInProgressError` while the hand is in progress (the bot's cards are
    still hidden)."""
    hand = open_hand(session, hand_id, access)
    trace = Trace.replay(get_game(hand.match.game), hand_store.recorded(session, hand))
    if not trace.state.is_terminal() and hand.status != FINISHED:  # a forfeit is finished
        raise HandInProgressError(f"hand {hand.public_id} is still in progress: it can be "
                                  "replayed once it is over", hand.public_id)
    review, pending = _kept_review(session, hand)
    return views.hand_replay(hand, trace, review, pending=pending,
                             figures=solve_figures(bot, trace.game))


def resume_hand(session: Session, bot: Bot, hand_id: str, access: Access,
                rng: random.Random | None = None, hint: bool = False) -> HandView:
    """Let chance and the bot move if an interruption (the store failing) left them to
    move; otherwise the hand as it is."""
    with hand_store.claim(hand_id) as held:
        hand = open_hand(session, hand_id, access)
        if not held:
            raise HandBusyError(BUSY)
        trace = Trace.replay(get_game(hand.match.game), hand_store.recorded(session, hand))
        state = trace.state
        waiting = state.is_terminal() or state.current_player() != hand.human_seat
        if hand.status == FINISHED or not waiting:
            review, pending = _kept_review(session, hand)
            return views.hand_view(hand, trace, trace.seq, _hint(bot, trace, hand, hint),
                                   review, pending=pending,
                                   figures=solve_figures(bot, trace.game))
        return _play_out(session, bot, hand, trace, trace.seq, rng, hint,
                         _saver(session, hand)).view


def current_hand(session: Session, match_id: str, access: Access) -> tuple[str, bool] | None:
    """(id, finished) of the match's latest hand; None before the first deal. No replay."""
    match = open_match(session, match_id, access)
    last = hand_store.last_hand(session, match.id)
    return (last[0], last[2] == FINISHED) if last is not None else None


def latest_hand_view(session: Session, bot: Bot, match_id: str, access: Access,
                     hint: bool = False) -> HandView | None:
    """The match's hand in progress, else its last hand; None before the first deal."""
    latest = current_hand(session, match_id, access)
    return hand_view(session, bot, latest[0], access, hint) if latest is not None else None


# ---- one move of the human and the replies -------------------------------------------------

Writer = Callable[[list[Recorded], Finish | None, HandView], HandRow]


def _play_out(session: Session, bot: Bot, hand: HandRow, trace: Trace, since: int,
              rng: random.Random | None, hint: bool, write: Writer) -> Played:
    """Advance chance and the bot until the human's turn or the end, write what was played
    since `since` in one transaction (with the hand's analysis where it is quick, see
    `app.services.analysis.analyse`), then raise the bot's failure if it could not move, or return
    the view."""
    failure = _advance(_playing(bot, hand), trace, hand.human_seat, rng)
    finish = _finish_of(session, bot, trace, hand)
    review = analyse.review_of(finish.analysis) if finish is not None else None
    view = views.hand_view(hand, trace, since, _hint(bot, trace, hand, hint), review,
                           pending=finish is not None and finish.pending,
                           figures=solve_figures(bot, trace.game))
    write(trace.recorded_since(since), finish, view)
    if failure is not None:
        raise BotStalledError(f"{failure.message}; what was played so far is kept and the "
                              "bot moves when the hand is resumed", hand.public_id) from failure
    return Played(view)


def _saver(session: Session, hand: HandRow, key: tuple[str, str] | None = None) -> Writer:
    def write(rows: list[Recorded], finish: Finish | None, view: HandView) -> HandRow:
        answer = (IdempotentAnswer(key[0], key[1], view.model_dump_json())
                  if key is not None else None)
        return hand_store.save(session, hand, rows, finish, answer)

    return write


def _advance(bot: Bot, trace: Trace, human_seat: int, rng: random.Random | None
             ) -> StrategyUnavailableError | None:
    """Sample chance and the bot until the human's turn or the end, appending their moves to
    the trace (nothing is written). If the bot has no usable strategy, the error, for the
    caller to save what was played and then raise it."""
    rng = rng if rng is not None else _SYSTEM_RANDOM
    state = trace.state
    try:
        while not state.is_terminal() and state.current_player() != human_seat:
            player = state.current_player()
            probabilities: dict[str, float] | None = None
            if player == CHANCE:
                outcomes = state.chance_outcomes()
                action = outcomes[_sample(rng, [p for _, p in outcomes])][0]
            else:
                policy = bot.policy(trace.game, state)
                action = action_from_label(state, policy.labels[_sample(rng,
                                                                        policy.probabilities)])
                probabilities = policy.as_dict()
            state = trace.append(Recorded(trace.seq, player, action, state.action_label(action),
                                          probabilities))
    except StrategyUnavailableError as exc:
        return exc
    return None


def _playing(bot: Bot, hand: HandRow) -> Bot:
    """The bot that plays `hand`: the equilibrium, or the match's exploitable opponent."""
    return for_match(bot, hand.match.opponent)


def _finish_of(session: Session, bot: Bot, trace: Trace, hand: HandRow) -> Finish | None:
    """The end of the hand if it is over, with its analysis (or pending) where the bot has a
    value function (against the equilibrium, or the best reply to the match's exploitable
    opponent) and the style counts where the match has a player to count them for."""
    state = trace.state
    if not state.is_terminal():
        return None
    payoff = float(state.returns()[hand.human_seat])
    style = (style_rows(trace.game.style_counts(state, hand.human_seat))
             if hand.match.account_id is not None else ())
    return analyse.finish(session, valuers_of(bot), trace, hand, payoff, style=style)


def _kept_review(session: Session, hand: HandRow) -> tuple[coach.HandReview | None, bool]:
    """The finished hand's kept analysis, and whether it is still being computed."""
    if hand.status != FINISHED:
        return None, False
    record, pending = analysis_store.record_of(session.connection(), hand.id)
    return analyse.review_of(record), pending


def _hint(bot: Bot, trace: Trace, hand: HandRow, wanted: bool) -> Policy | None:
    state = trace.state
    if not wanted or state.is_terminal() or state.current_player() != hand.human_seat:
        return None
    try:
        return bot.policy(trace.game, state)
    except StrategyUnavailableError:
        return None


def _sample(rng: random.Random, weights: Sequence[float]) -> int:
    total = math.fsum(weights)
    if not total > 0 or any(w < 0 for w in weights):
        raise ValueError(f"not a probability distribution: {list(weights)}")
    r = rng.random() * total
    acc = 0.0
    for i, w in enumerate(weights):
        acc += w
        if r < acc:
            return i
    return max(i for i, w in enumerate(weights) if w > 0)  # r rounded up to the total


def _fingerprint(hand_id: str, label: str, seq: int | None) -> str:
    return hashlib.sha256(f"{hand_id}\x1f{label}\x1f{seq}".encode()).hexdigest()


__all__ = ["Played", "act", "current_hand", "hand_replay", "hand_view", "human_seat_for",
           "latest_hand_view", "resume_hand", "start_hand", "system_rng"]

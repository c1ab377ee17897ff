"""What the human may see of a hand, drawn from its trace through the game's own description.

The rule that keeps the bot's secrets: an event's label is shown mid-hand only if it is public
(it changed the public key, like a board card, or it is a bet everybody sees) or private to
the human. Whether a move is private is read off the game itself: a chance outcome that leaves
the public key unchanged is a private deal to whoever's private key changed, and a move that
changes its own player's private key (a Rock-Paper-Scissors choice) is secret too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from app.db.hand_store import HandRow
from app.db.models import FINISHED
from app.schemas import (
    ActionGroupOut,
    ActionProbability,
    ActionValue,
    AmountChoiceOut,
    BotDecision,
    CoachDecision,
    Event,
    HandOutcome,
    HandReplay,
    HandView,
    NamedAmount,
    PieceOut,
    PublicState,
    ReplayStep,
    ResultPart,
    RoundOut,
)
from app.schemas.hands import PartName
from app.services.analysis.coach import NEGLIGIBLE, HandReview, Judged, Parts
from app.services.analysis.results import signed
from app.services.analysis.trace import Step, Trace
from app.services.bots.bot import Policy
from solver.games import (
    CHANCE,
    AmountChoice,
    Card,
    Die,
    Game,
    GameView,
    Piece,
    State,
    get_view,
    offered_labels,
)

SEAT_NAMES = ("you", "the bot")
FORFEIT = ("You left this hand unfinished for too long, so it was settled as a forfeit at "
           "your decision: a fold where the game has one, its worst result otherwise.")
"""How the games' outcome texts name the human and the bot (human first)."""


def piece_out(piece: Piece) -> PieceOut:
    if isinstance(piece, Card):
        return PieceOut(kind="card", text=str(piece), rank=piece.rank, suit=piece.suit or None)
    if isinstance(piece, Die):
        return PieceOut(kind="die", text=str(piece), face=piece.face)
    return PieceOut(kind="move", text=str(piece))


def pieces_out(pieces: tuple[Piece, ...]) -> list[PieceOut]:
    return [piece_out(p) for p in pieces]


def _owner_of_secret(step: Step) -> int | None:
    """The seat a step is secret to, or None if it is public."""
    if step.recorded.actor == CHANCE:
        if step.after.public_key() != step.before.public_key():
            return None
        for seat in (0, 1):
            if step.after.private_key(seat) != step.before.private_key(seat):
                return seat
        return -1  # changes nothing anybody sees: keep it hidden from both
    actor = step.recorded.actor
    if step.after.private_key(actor) != step.before.private_key(actor):
        return actor
    return None


def event_for(game: Game, step: Step, human_seat: int, reveal_all: bool) -> Event:
    """The event as the human sees it (everything once `reveal_all`, at the end of the hand)."""
    secret_of = _owner_of_secret(step)
    hidden = not reveal_all and secret_of is not None and secret_of != human_seat
    label = None if hidden else step.recorded.label
    shown = "hidden" if hidden else step.recorded.label
    view = get_view(game.name)
    round_ = view.public_view(step.before).round
    if step.recorded.actor == CHANCE:
        seat = secret_of if secret_of is not None and secret_of >= 0 else None
        if seat is None:
            text = f"Board: {shown}"
        else:
            verb = "Rolled for" if view.pieces == "dice" else "Dealt to"
            text = f"{verb} {SEAT_NAMES[seat != human_seat]}: {shown}"
        return Event(seq=step.recorded.seq, actor="chance", seat=seat, label=label,
                     hidden=hidden, text=text, round=round_)
    mine = step.recorded.actor == human_seat
    return Event(seq=step.recorded.seq, actor="you" if mine else "bot",
                 seat=step.recorded.actor, label=label, hidden=hidden,
                 text=f"{'You' if mine else 'Bot'}: {shown}", round=round_)


def public_state(game: Game, state: State, human_seat: int,
                 figures: Mapping[str, Any] | None = None) -> PublicState:
    """What both players see, with the human's chance of winning the whole game where the
    game knows it from its solve's `figures`."""
    drawn = get_view(game.name)
    view = drawn.public_view(state)
    chances = drawn.win_chances(state, figures or {})
    names = _names(human_seat)
    return PublicState(
        pot=view.pot,
        contributions=list(view.contributions) if view.contributions else None,
        round=view.round,
        rounds=view.rounds,
        board=pieces_out(view.board),
        board_slots=view.board_slots,
        bids=list(view.bids) if view.bids is not None else None,
        last_bid=view.last_bid,
        pieces_held=list(view.pieces_held) if view.pieces_held else None,
        betting=view.betting,
        finished_rounds=[RoundOut(number=r.number,
                                  your_pieces=pieces_out(r.pieces[human_seat]),
                                  bot_pieces=pieces_out(r.pieces[1 - human_seat]),
                                  lost_by="you" if r.loser == human_seat else "bot",
                                  explanation=r.explain(names))
                         for r in view.finished_rounds],
        your_win_chance=chances[human_seat] if chances else None,
    )


def result_parts(game: Game, parts: Parts) -> list[ResultPart]:
    """A hand's luck-adjusted result in its terms, each named for what it is (the decisions'
    always, the others where they are not zero); they add up to the result."""
    pieces = get_view(game.name).pieces
    dealt = f"your {pieces}" if pieces in ("cards", "dice") else "the deal"
    judged = ("the best reply to the bot" if parts.reference == "best_reply" else
              "the equilibrium's mix")
    start = {
        "value": ("what the best reply to this bot wins in your seat"
                  if parts.reference == "best_reply" else
                  "what equilibrium play expects in your seat"),
        "first_decision": (f"what your position was worth at your first decision: the luck of "
                           f"{dealt} and of the bot's moves before it is still in this figure"),
        "result": "your result: there was no decision of yours to judge and no exact value "
                  "to start from",
    }[parts.start_from]
    terms: list[tuple[PartName, float, str]] = [
        ("start", parts.start, start),
        ("decisions", parts.decisions,
         f"what your decisions gained or gave up against {judged}: the coach's figures for "
         "them, added up"),
        ("bot", parts.bot, "the luck of the bot's moves that it works out at the table, taken "
                           "out"),
        ("opening", parts.opening,
         f"the luck of the opening ({dealt} and the bot's first moves) taken out, as far as "
         "the match's earlier hands with the same opening tell it"),
        ("habits", parts.habits, "the luck of where your own habits led, taken out with the "
                                 "habits of your earlier hands"),
    ]
    return [ResultPart(name=name, value=value, words=words) for name, value, words in terms
            if name in ("start", "decisions") or value != 0.0]


def _hidden_pieces(view: GameView, state: State, seat: int) -> int:
    """How many face-down pieces to draw for `seat`: as many as it holds, once dealt."""
    return len(view.private_pieces(state, seat))


def hand_view(hand: HandRow, trace: Trace, since: int, hint: Policy | None,
              review: HandReview | None = None, *, pending: bool = False,
              figures: Mapping[str, Any] | None = None) -> HandView:
    """The hand as the human sees it; `since` is where the events of this request start;
    `review`, the coach's, once the hand is over (`pending` while it is being computed);
    `figures`, those of the bot's solve (`public_state`)."""
    game = trace.game
    view = get_view(game.name)
    human, bot = hand.human_seat, 1 - hand.human_seat
    state = trace.state
    forfeited = hand.status == FINISHED and not state.is_terminal()
    finished = state.is_terminal() or forfeited
    events = [event_for(game, step, human, finished) for step in trace.steps]
    player = state.current_player()
    to_act: Literal["you", "bot", "chance"] | None = (
        None if finished else "chance" if player == CHANCE else "you" if player == human
        else "bot")
    mine = to_act == "you"
    outcome = None
    if finished:
        outcome = HandOutcome(
            human_payoff=float(hand.human_payoff or 0.0) if forfeited
            else float(state.returns()[human]),
            adjusted_payoff=review.adjusted if review is not None else None,
            adjusted_parts=result_parts(game, review.parts)
            if review is not None and review.parts is not None else None,
            coach=[coach_decision(d) for d in review.decisions] if review is not None else None,
            analysis="done" if review is not None else "pending" if pending else "none",
            human_private_view=view.private_view(state, human),
            bot_private_view=view.private_view(state, bot),
            human_pieces=pieces_out(view.private_pieces(state, human)),
            bot_pieces=pieces_out(view.private_pieces(state, bot)),
            explanation=FORFEIT if forfeited else view.outcome_text(state, _names(human)),
            bot_decisions=[_decision(step, bot) for step in trace.steps
                           if step.recorded.actor == bot],
        )
    return HandView(
        hand_id=hand.public_id,
        match_id=hand.match.public_id,
        game=game.name,
        number=hand.number,
        human_seat=human,
        bot_seat=bot,
        status="finished" if finished else "in_progress",
        to_act=to_act,
        private_view=view.private_view(state, human),
        private_pieces=pieces_out(view.private_pieces(state, human)),
        bot_pieces_hidden=0 if finished else _hidden_pieces(view, state, bot),
        public=public_state(game, state, human, figures),
        events=events,
        new_events=events[since:],
        legal_actions=offered_labels(view, state) if mine else [],
        openspiel_information_state=game.openspiel.information_state_string(state, human)
        if mine and game.openspiel is not None else None,
        action_groups=[ActionGroupOut(title=g.title, labels=list(g.labels), columns=g.columns)
                       for g in view.action_groups(state)] if mine else [],
        amount_choice=amount_choice_out(view.amount_choice(state)) if mine else None,
        hint=[ActionProbability(label=label, probability=p)
              for label, p in zip(hint.labels, hint.probabilities, strict=True)]
        if hint is not None and mine else None,
        outcome=outcome,
        seq=trace.seq,
    )


def amount_choice_out(choice: AmountChoice | None) -> AmountChoiceOut | None:
    if choice is None:
        return None
    return AmountChoiceOut(
        action=choice.verbs[-1], min=choice.low, max=choice.high, words=choice.range_words,
        prompt=choice.template.replace("{}", "").strip(),
        quick=[NamedAmount(name=name, amount=amount, label=choice.label(amount))
               for name, amount in choice.quick])


def coach_decision(judged: Judged) -> CoachDecision:
    policy = judged.policy
    assert policy.values is not None and policy.value is not None
    return CoachDecision(
        seq=judged.seq,
        infoset=judged.infoset,
        chosen=judged.chosen,
        actions=[ActionValue(label=label, probability=p, value=q) for label, p, q
                 in zip(policy.labels, policy.probabilities, policy.values, strict=True)],
        value=policy.value,
        lost_vs_equilibrium=judged.lost_vs_equilibrium,
        lost_vs_best_reply=judged.lost_vs_best_reply,
        judged_against=judged.against,
        best_reply=list(judged.best_reply),
        advice=advice(judged),
        pot=judged.pot,
        share_of_pot_lost=judged.lost_vs_equilibrium / judged.pot if judged.pot else None,
        accurate=judged.accurate,
        exact=judged.exact,
    )


def advice(judged: Judged) -> str:
    """Against an exploitable bot, the judgement in a sentence: ``The best reply to this bot
    plays bet here (worth +0.500); you chose check and gave up 0.400.``  Empty against the
    equilibrium, whose words the pages write beside its mix."""
    if judged.against != "best_reply":
        return ""
    best = judged.best_reply
    worth = judged.policy.value
    assert worth is not None
    if judged.lost_vs_best_reply < NEGLIGIBLE:
        return (f"You played as the best reply to this bot does here: {judged.chosen}, worth "
                f"{signed(worth)}; nothing given up.")
    return (f"The best reply to this bot plays {' or '.join(best)} here (worth {signed(worth)}); "
            f"you chose {judged.chosen} and gave up {judged.lost_vs_best_reply:.3f}.")


def _names(human: int) -> tuple[str, str]:
    """Seat names in seat order for the game's texts."""
    return (SEAT_NAMES[0], SEAT_NAMES[1]) if human == 0 else (SEAT_NAMES[1], SEAT_NAMES[0])


def _decision(step: Step, bot: int) -> BotDecision:
    return BotDecision(
        seq=step.recorded.seq,
        infoset=step.before.information_state_key(bot),
        chosen=step.recorded.label,
        probabilities=[ActionProbability(label=label, probability=float(p))
                       for label, p in (step.recorded.probabilities or {}).items()],
    )


def hand_replay(hand: HandRow, trace: Trace, review: HandReview | None, *,
                pending: bool = False, figures: Mapping[str, Any] | None = None
                ) -> HandReplay:
    """A finished hand, step by step, with both players' pieces shown."""
    view = hand_view(hand, trace, trace.seq, None, review, pending=pending, figures=figures)
    assert view.outcome is not None
    coached = {d.seq: d for d in view.outcome.coach or []}
    bot = 1 - hand.human_seat
    steps = []
    for step, event in zip(trace.steps, view.events, strict=True):
        probabilities = step.recorded.probabilities if step.recorded.actor == bot else None
        steps.append(ReplayStep(
            seq=step.recorded.seq, actor=event.actor, label=step.recorded.label,
            text=event.text, public=public_state(trace.game, step.after, hand.human_seat,
                                                 figures),
            bot_probabilities=[ActionProbability(label=label, probability=float(p))
                               for label, p in probabilities.items()]
            if probabilities is not None else None,
            coach=coached.get(step.recorded.seq)))
    return HandReplay(hand_id=hand.public_id, match_id=hand.match.public_id,
                      game=trace.game.name, number=hand.number, human_seat=hand.human_seat,
                      human_pieces=view.outcome.human_pieces,
                      bot_pieces=view.outcome.bot_pieces, steps=steps, outcome=view.outcome)

"""The domain's errors: what the services (and the stores under them) refuse, and why.

Each carries a message fit for a player and the facts a front end needs to word it its own
way; none names a response's status, path or header: the API and the pages map each to its
status once (`app.api.errors.STATUS`) and add the words of their own.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base class; ``str(error)`` is a message fit for the player."""


    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFoundError(ServiceError):
    """Unknown game, match, hand or information set."""



class NoSuchSpotError(NotFoundError):
    """A board and a betting line, well written, that name no spot of the game's betting:
    a card it has not got or given twice, more or fewer cards than the line reaches, an
    illegal bet, a line that ends the hand. Like an unknown id, the name is well formed and
    nothing is called so."""


class AuthenticationError(ServiceError):
    """No credentials where the match needs them."""



class PermissionDeniedError(ServiceError):
    """Credentials that do not open this match."""



class InvalidRequestError(ServiceError):
    """A request the service cannot act on as sent (it names what is missing or wrong)."""



class UnguardedActionError(InvalidRequestError):
    """An action with neither the ``seq`` of the view it was chosen on nor an idempotency
    key: a retry of it could not be told from a second action, so it is not played."""


class IdempotencyKeyReuseError(InvalidRequestError):
    """An idempotency key already used for another request of this match."""


class SignInError(ServiceError):
    """Wrong user name or password (the same words whichever it was)."""


class TooManyAttemptsError(ServiceError):
    """Too many attempts at something that checks a password (or costs one to check) in a
    while; `retry_after` is the number of seconds until the next one is counted afresh."""


    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class ConflictError(ServiceError):
    """The request does not fit the current state (e.g. a concurrent update)."""



class IllegalActionError(ConflictError):
    """Illegal action or not the player's turn; carries the legal labels."""

    def __init__(self, message: str, legal_actions: list[str]) -> None:
        super().__init__(message)
        self.legal_actions = legal_actions


class IllegalAmountError(IllegalActionError):
    """An amount outside the legal range (or where the position has none to choose); its
    message names the range."""


class HandFinishedError(IllegalActionError):
    """An action in a hand that is over; `match_id` names where the next hand is dealt."""

    def __init__(self, message: str, match_id: str) -> None:
        super().__init__(message, [])
        self.match_id = match_id


class StaleHandError(IllegalActionError):
    """The action was chosen on a view of the hand that is out of date (its ``seq`` is not the
    number of recorded actions): a double click, a second tab or a client's retry."""

    def __init__(self, message: str, legal_actions: list[str], seq: int) -> None:
        super().__init__(message, legal_actions)
        self.seq = seq


class HandBusyError(ConflictError):
    """Another request is playing in this hand at this very moment; this one was not applied."""


class HandInProgressError(ConflictError):
    """A new hand was requested while the previous one is still being played."""

    def __init__(self, message: str, hand_id: str) -> None:
        super().__init__(message)
        self.hand_id = hand_id


class StrategyUnavailableError(ServiceError):
    """No usable solved strategy for the game (store missing, corrupt or without the game)."""



class GameNotReadyError(StrategyUnavailableError):
    """A game the lobby offers whose strategy is not built yet: being built in the background
    (`building` says how far it has come), waiting its turn, failed, or not started. The game
    exists and the server is up; the game cannot be played or read until its build is done."""


    def __init__(self, message: str, game: str, building: dict[str, Any] | None,
                 why: str | None = None) -> None:
        super().__init__(message)
        self.game = game
        self.building = building
        self.why = why or message
        """The message without the name the API knows the game by: for a player."""


class BotStalledError(StrategyUnavailableError):
    """The bot could not answer (no usable strategy) after what was played was saved: the
    hand waits for it, and resuming the hand lets it move once it can."""

    def __init__(self, message: str, hand_id: str) -> None:
        super().__init__(message)
        self.hand_id = hand_id

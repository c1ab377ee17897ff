"""Domain errors of the service layer.

Each carries a message fit for a player and the facts a front end needs to word it its own
way; none names an HTTP path or header (the API and the pages add those). `status_code` is the
HTTP status the API answers with.
"""

from __future__ import annotations

from typing import Any


class ServiceError(Exception):
    """Base class; ``str(error)`` is a message fit for the player."""

    status_code = 400

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFoundError(ServiceError):
    """Unknown game, match, hand or information set."""

    status_code = 404


class AuthenticationError(ServiceError):
    """No credentials where the match needs them."""

    status_code = 401


class PermissionDeniedError(ServiceError):
    """Credentials that do not open this match."""

    status_code = 403


class InvalidRequestError(ServiceError):
    """A request the service cannot act on as sent (it names what is missing or wrong)."""

    status_code = 422


class UnguardedActionError(InvalidRequestError):
    """An action with neither the ``seq`` of the view it was chosen on nor an idempotency
    key: a retry of it could not be told from a second action, so it is not played."""


class IdempotencyKeyReuseError(InvalidRequestError):
    """An idempotency key already used for another request of this match."""


class ConflictError(ServiceError):
    """The request does not fit the current state (e.g. a concurrent update)."""

    status_code = 409


class IllegalActionError(ConflictError):
    """Illegal action or not the player's turn; carries the legal labels."""

    def __init__(self, message: str, legal_actions: list[str]) -> None:
        super().__init__(message)
        self.legal_actions = legal_actions


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

    status_code = 503


class GameNotReadyError(StrategyUnavailableError):
    """A game the lobby offers whose strategy is not built yet: being built in the background
    (`building` says how far it has come), waiting its turn, failed, or not started.

    409, not 503: the server is up and the game exists (its description answers), but it is
    not in a state to be played or read yet; the answer says why and how far its build has
    come, and the client tries again later. 503 would tell monitors and clients the server is
    down, 404 that the game does not exist, and 425/423 mean other things (TLS early data,
    WebDAV locks)."""

    status_code = 409

    def __init__(self, message: str, game: str, building: dict[str, Any] | None) -> None:
        super().__init__(message)
        self.game = game
        self.building = building


class BotStalledError(StrategyUnavailableError):
    """The bot could not answer (no usable strategy) after what was played was saved: the
    hand waits for it, and resuming the hand lets it move once it can."""

    def __init__(self, message: str, hand_id: str) -> None:
        super().__init__(message)
        self.hand_id = hand_id

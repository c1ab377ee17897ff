"""Domain errors of the service layer; the API maps each to one HTTP status."""

from __future__ import annotations


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
    """No credentials where the endpoint needs them."""

    status_code = 401


class PermissionDeniedError(ServiceError):
    """Credentials that do not open this match."""

    status_code = 403


class ConflictError(ServiceError):
    """The request does not fit the current state (e.g. a concurrent update)."""

    status_code = 409


class IllegalActionError(ConflictError):
    """Illegal action, not the player's turn, or the hand is over; carries the legal labels."""

    def __init__(self, message: str, legal_actions: list[str]) -> None:
        super().__init__(message)
        self.legal_actions = legal_actions


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

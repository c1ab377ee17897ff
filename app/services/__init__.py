"""The service layer: everything the HTML pages and the REST API do, in one place.

Functions take a SQLAlchemy ``Session`` (the play database), a :class:`StrategySource` (the
solved strategies) and, where cards are dealt or the bot moves, an optional ``random.Random``
(default: the OS's secure randomness). They return frozen pydantic models from
:mod:`app.schemas` and raise the :mod:`app.services.errors` (each maps to one HTTP status).
"""

from app.services.catalog import convergence, game_detail, game_or_404, list_games, strategy
from app.services.errors import (
    AuthenticationError,
    ConflictError,
    HandBusyError,
    HandInProgressError,
    IllegalActionError,
    NotFoundError,
    PermissionDeniedError,
    ServiceError,
    StaleHandError,
    StrategyUnavailableError,
)
from app.services.play import (
    act,
    check_owner,
    check_token,
    create_match,
    current_hand,
    get_hand,
    get_match,
    hand_for_token,
    hand_view,
    human_seat_for,
    list_matches,
    match_created,
    match_for_token,
    match_results,
    require_token,
    start_hand,
    system_rng,
)
from app.services.strategy_source import StoreStatus, StrategySource

__all__ = [
    "AuthenticationError",
    "ConflictError",
    "HandBusyError",
    "HandInProgressError",
    "IllegalActionError",
    "NotFoundError",
    "PermissionDeniedError",
    "ServiceError",
    "StaleHandError",
    "StoreStatus",
    "StrategySource",
    "StrategyUnavailableError",
    "act",
    "check_owner",
    "check_token",
    "convergence",
    "create_match",
    "current_hand",
    "game_detail",
    "game_or_404",
    "get_hand",
    "get_match",
    "hand_for_token",
    "hand_view",
    "human_seat_for",
    "list_games",
    "list_matches",
    "match_created",
    "match_for_token",
    "match_results",
    "require_token",
    "start_hand",
    "strategy",
    "system_rng",
]

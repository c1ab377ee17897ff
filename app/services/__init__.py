"""The service layer: everything the HTML pages and the REST API do, in one place.

Functions take a SQLAlchemy ``Session`` (the play database), a :class:`StrategySource` (the
solved strategies), a :class:`Bot` and, where cards are dealt or the bot moves, an optional
``random.Random`` (default: the OS's secure randomness). Matches and hands are opened by id
through an :data:`Access` (a token or a browser). They return frozen pydantic models from
:mod:`app.schemas`, never database rows, and raise the :mod:`app.services.errors`.

=====================  =====================================================================
``catalog``            the games, their strategies and convergence (read only)
``matches``            creating, listing and summing up matches
``play``               dealing, acting, looking at and resuming hands
``bot``                what the bot plays (the stored equilibrium)
``tokens``             who may open a match
``hand_store``         the play database's rows and its guarded writes
``trace``/``views``    a hand replayed, and what the human may see of it
``results``            statistics and the verdict
=====================  =====================================================================
"""

from app.services.bot import Bot, Policy, StoredStrategyBot
from app.services.catalog import (
    convergence,
    game_description,
    game_detail,
    game_or_404,
    list_games,
    lobby_games,
    offered_game,
    ready_solve,
    strategy,
    tree_node,
)
from app.services.errors import (
    AuthenticationError,
    BotStalledError,
    ConflictError,
    GameNotReadyError,
    HandBusyError,
    HandFinishedError,
    HandInProgressError,
    IdempotencyKeyReuseError,
    IllegalActionError,
    InvalidRequestError,
    NotFoundError,
    PermissionDeniedError,
    ServiceError,
    StaleHandError,
    StrategyUnavailableError,
    UnguardedActionError,
)
from app.services.explorer import spot_grid
from app.services.matches import (
    create_match,
    export_hand_histories,
    export_hands,
    list_matches,
    match_results,
)
from app.services.play import (
    Played,
    act,
    current_hand,
    hand_replay,
    hand_view,
    human_seat_for,
    latest_hand_view,
    resume_hand,
    start_hand,
    system_rng,
)
from app.services.strategy_source import StoreStatus, StrategySource
from app.services.tokens import Access, OwnerAccess, TokenAccess, require_token

__all__ = [
    "Access",
    "AuthenticationError",
    "Bot",
    "BotStalledError",
    "ConflictError",
    "GameNotReadyError",
    "HandBusyError",
    "HandFinishedError",
    "HandInProgressError",
    "IdempotencyKeyReuseError",
    "IllegalActionError",
    "InvalidRequestError",
    "NotFoundError",
    "OwnerAccess",
    "PermissionDeniedError",
    "Played",
    "Policy",
    "ServiceError",
    "StaleHandError",
    "StoreStatus",
    "StoredStrategyBot",
    "StrategySource",
    "StrategyUnavailableError",
    "TokenAccess",
    "UnguardedActionError",
    "act",
    "convergence",
    "create_match",
    "current_hand",
    "export_hand_histories",
    "export_hands",
    "game_description",
    "game_detail",
    "game_or_404",
    "hand_replay",
    "hand_view",
    "human_seat_for",
    "latest_hand_view",
    "list_games",
    "list_matches",
    "lobby_games",
    "match_results",
    "offered_game",
    "ready_solve",
    "require_token",
    "resume_hand",
    "spot_grid",
    "start_hand",
    "strategy",
    "system_rng",
    "tree_node",
]

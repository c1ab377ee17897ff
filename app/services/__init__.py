"""The service layer: everything the HTML pages and the REST API do, in one place.

Functions take a SQLAlchemy ``Session`` (the play database), a :class:`StrategySource` (the
solved strategies), a :class:`Bot` and, where cards are dealt or the bot moves, an optional
``random.Random`` (default: the OS's secure randomness). Matches and hands are opened by id
through an :data:`Access` (a token or a browser). They return frozen pydantic models from
:mod:`app.schemas`, never database rows, and raise the domain's errors (:mod:`app.core.errors`).

============  ===============================================================================
``bots``      the solved strategies, what the bot plays, its values and its strength
``analysis``  a finished hand replayed, judged by the coach, its luck taken out; statistics
``play``      the games on offer, matches and hands, who may open them, what a player sees
``players``   accounts, passwords, API keys, profiles and leaderboards
============  ===============================================================================

Each room imports only those above it in this table; the play database is `app.db`. The names
below are what the front ends call; each room's own functions are imported from it.
"""

from app.db.credentials import is_api_key
from app.services.bots.bot import Bot, Policy, StoredStrategyBot
from app.services.bots.strategy_source import StoreStatus, StrategySource
from app.services.play.catalog import (
    convergence,
    game_description,
    game_detail,
    known_game,
    list_games,
    lobby_games,
    offered_game,
    ready_solve,
    strategy,
    strategy_json,
    tree_node,
)
from app.services.play.explorer import spot_grid
from app.services.play.hands import (
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
from app.services.play.matches import (
    create_match,
    export_hand_histories,
    export_hands,
    list_matches,
    match_results,
)
from app.services.play.tokens import Access, OwnerAccess, TokenAccess, require_token

__all__ = [
    "Access",
    "Bot",
    "OwnerAccess",
    "Played",
    "Policy",
    "StoreStatus",
    "StoredStrategyBot",
    "StrategySource",
    "TokenAccess",
    "act",
    "convergence",
    "create_match",
    "current_hand",
    "export_hand_histories",
    "export_hands",
    "game_description",
    "game_detail",
    "hand_replay",
    "hand_view",
    "human_seat_for",
    "is_api_key",
    "known_game",
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
    "strategy_json",
    "system_rng",
    "tree_node",
]

"""The ``/api/v1`` router."""

from fastapi import APIRouter

from app.api.errors import MALFORMED_HTTP, TOO_LARGE
from app.api.routes import games, hands, matches, players

# Every route may answer 413 (app.core.security.BodySizeLimitMiddleware) and 422 (invalid input),
# and the HTTP server refuses a request that is not valid HTTP with a plain 400.
api_router = APIRouter(responses=TOO_LARGE | MALFORMED_HTTP)
# FastAPI tries the routes in the order they were included: the ones a game is played with
# come first (the docs list the tags in API_TAGS order instead).
api_router.include_router(hands.router)
api_router.include_router(matches.router)
api_router.include_router(games.router)
api_router.include_router(players.router)

API_TAGS = [
    {"name": "games", "description": "The games, their solved strategies and convergence."},
    {"name": "matches", "description": "Create a match (and get its token), deal hands, "
                                       "see the results."},
    {"name": "hands", "description": "Look at a hand, act in it."},
    {"name": "players", "description": "Your profile (with a personal API key) and the "
                                       "leaderboards."},
    {"name": "health", "description": "Is the app up, and which games can the bot play."},
]

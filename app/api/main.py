"""The ``/api/v1`` router."""

from fastapi import APIRouter

from app.api.errors import TOO_LARGE
from app.api.routes import games, hands, matches

# Every route may answer 413 (app.security.BodySizeLimitMiddleware) and 422 (invalid input).
api_router = APIRouter(responses=TOO_LARGE)
api_router.include_router(games.router)
api_router.include_router(matches.router)
api_router.include_router(hands.router)

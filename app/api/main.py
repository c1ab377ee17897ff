"""The ``/api/v1`` router."""

from fastapi import APIRouter

from app.api.routes import games, hands, matches

api_router = APIRouter()
api_router.include_router(games.router)
api_router.include_router(matches.router)
api_router.include_router(hands.router)

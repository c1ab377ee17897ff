"""Who may open a match: the bearer token of an API client, or the browser that created it.

A match is opened through an `Access`: the API hands in the token it was sent, the pages the
id of the browser's session. Ids alone open nothing; only the token's SHA-256 is stored and it
is compared in constant time.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.services import hand_store
from app.services.errors import AuthenticationError, PermissionDeniedError
from app.services.hand_store import HandRow, MatchRow


@dataclass(frozen=True, slots=True)
class TokenAccess:
    """An API client, holding (or not) the match's bearer token."""

    token: str | None


@dataclass(frozen=True, slots=True)
class OwnerAccess:
    """A browser, by the player id kept in its signed session cookie."""

    owner: str


Access = TokenAccess | OwnerAccess


def new_token() -> str:
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def require_token(token: str | None) -> str:
    """The token itself; `AuthenticationError` without one, before any lookup, so that a
    request without a token learns nothing about what exists."""
    if not token:
        raise AuthenticationError("this match can only be opened with its token")
    return token


def check_access(access: Access, token_hash: str, owner: str | None) -> None:
    """401 without a token, 403 with a token or a browser that does not open the match."""
    if isinstance(access, TokenAccess):
        if not hmac.compare_digest(hash_token(require_token(access.token)), token_hash):
            raise PermissionDeniedError("the token does not open this match")
        return
    if owner is None or not hmac.compare_digest(access.owner, owner):
        raise PermissionDeniedError("this match belongs to another player")


def open_match(session: Session, match_id: str, access: Access) -> MatchRow:
    """The match `match_id` if `access` opens it: 404 if there is no such match, 401/403 if
    it does not open it. Without a token, 401 comes before any lookup."""
    if isinstance(access, TokenAccess):
        require_token(access.token)
    match = hand_store.find_match(session, match_id)
    check_access(access, match.token_hash, match.owner)
    return match


def open_hand(session: Session, hand_id: str, access: Access) -> HandRow:
    """The hand `hand_id` if `access` opens its match (404, 401, 403 as `open_match`)."""
    if isinstance(access, TokenAccess):
        require_token(access.token)
    hand = hand_store.find_hand(session, hand_id)
    check_access(access, hand.match.token_hash, hand.match.owner)
    return hand

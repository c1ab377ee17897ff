"""Who may open a match: the bearer token of an API client, or the browser that created it.

A match is opened through an `Access`: the API hands in the token it was sent, the pages the
id of the browser's session. Ids alone open nothing; only the token's SHA-256 is stored and it
is compared in constant time.

A match that belongs to an account (`app.services.players.accounts`) is opened by its match token,
by a personal API key of the account, or by a browser signed in to the account, and no longer by
the browser id that created it: a copy of a cookie from before signing out opens nothing.

How a hand is played follows from the access that plays it (`kind_of_play`): over the API it
is a program's, through the pages a person's or a guest's.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass

from sqlalchemy.orm import Session

from app.core.errors import AuthenticationError, PermissionDeniedError
from app.db import credentials, hand_store
from app.db.hand_store import HandRow, MatchRow
from app.db.models import GUEST, PERSON, PROGRAM


@dataclass(frozen=True, slots=True)
class TokenAccess:
    """An API client, holding (or not) the match's bearer token."""

    token: str | None


@dataclass(frozen=True, slots=True)
class OwnerAccess:
    """A browser, by the player id kept in its signed session cookie, and the id of its
    signed-in session if it is signed in to an account."""

    owner: str
    session_id: str | None = None


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


def check_access(session: Session, access: Access, match: MatchRow) -> None:
    """`AuthenticationError` without a token, `PermissionDeniedError` with a token or a
    browser that does not open the match."""
    if isinstance(access, TokenAccess):
        token = require_token(access.token)
        if hmac.compare_digest(hash_token(token), match.token_hash):
            return
        if match.account_id is not None and credentials.is_api_key(token):
            key = credentials.key_owner(session.connection(), token)
            if key is not None and key.account_id == match.account_id:
                return
        raise PermissionDeniedError("the token does not open this match")
    if match.account_id is not None:
        if credentials.session_account(session.connection(),
                                       access.session_id) == match.account_id:
            return
    elif match.owner is not None and hmac.compare_digest(access.owner, match.owner):
        return
    raise PermissionDeniedError("this match belongs to another player")


def kind_of_play(access: Access, match: MatchRow) -> str:
    """How a hand dealt through `access` is played: over the API (a key, whatever it was made
    for, or a match token) it is a program's; through the pages it is a person's if the match
    is an account's (the browser is then signed in to it, `check_access`), else a guest's."""
    if isinstance(access, TokenAccess):
        return PROGRAM
    return PERSON if match.account_id is not None else GUEST


def kind_after_action(access: Access, kind: str) -> str:
    """How a hand played as `kind` is played once `access` has acted in it: a program's from
    the first action over the API; an action through the pages changes nothing (a guest's hand
    stays a guest's in a match claimed since it was dealt)."""
    return PROGRAM if isinstance(access, TokenAccess) else kind


def open_match(session: Session, match_id: str, access: Access) -> MatchRow:
    """The match `match_id` if `access` opens it: `NotFoundError` if there is no such match,
    refused as by `check_access` if it does not open it; without a token, before any lookup."""
    if isinstance(access, TokenAccess):
        require_token(access.token)
    match = hand_store.find_match(session, match_id)
    check_access(session, access, match)
    return match


def open_hand(session: Session, hand_id: str, access: Access) -> HandRow:
    """The hand `hand_id` if `access` opens its match (refused as by `open_match`)."""
    if isinstance(access, TokenAccess):
        require_token(access.token)
    hand = hand_store.find_hand(session, hand_id)
    check_access(session, access, hand.match)
    return hand

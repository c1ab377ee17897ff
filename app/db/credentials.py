"""Who a credential belongs to: a signed-in browser's session id, or a personal API key.

Both are random strings the database keeps only as SHA-256 (they carry 256 bits of randomness,
so a fast hash is safe, unlike a password's): a stolen database opens nothing. A key reads
``sbk_<public id>_<secret>`` so that it is recognised (and a leaked one found by a scanner)
without a lookup.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from typing import cast

from sqlalchemy import Connection, Table, bindparam, select

from app.db.models import AccountSession, ApiKey

KEY_PREFIX = "sbk_"
_SESSIONS = cast(Table, AccountSession.__table__)
_KEYS = cast(Table, ApiKey.__table__)
_SESSION_ACCOUNT = select(_SESSIONS.c.account_id).where(
    _SESSIONS.c.sid_hash == bindparam("sid_hash"))
_KEY_ACCOUNT = select(_KEYS.c.account_id).where(
    _KEYS.c.key_hash == bindparam("key_hash"))


@dataclass(frozen=True, slots=True)
class KeyOwner:
    account_id: int


def digest(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def new_secret() -> str:
    return secrets.token_urlsafe(32)


def is_api_key(token: str | None) -> bool:
    return bool(token) and str(token).startswith(KEY_PREFIX)


def session_account(connection: Connection, sid: str | None) -> int | None:
    """The account a browser's session id is signed in to; None if it is signed out (the
    session was ended, by signing out or a password change) or was never signed in."""
    if not sid:
        return None
    row = connection.execute(_SESSION_ACCOUNT, {"sid_hash": digest(sid)}).first()
    return int(row[0]) if row is not None else None


def key_owner(connection: Connection, token: str | None) -> KeyOwner | None:
    """The account of an API key; None if there is no such key (or it was revoked)."""
    if not is_api_key(token):
        return None
    row = connection.execute(_KEY_ACCOUNT, {"key_hash": digest(str(token))}).first()
    return KeyOwner(int(row[0])) if row is not None else None

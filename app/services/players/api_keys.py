"""Personal API keys: made and revoked on the profile page, shown once, kept as SHA-256.

A key opens every match of its account and creates matches that belong to it. Whatever is
played with a key is a program's (`app.services.play.tokens.kind_of_play`), on the programs' boards:
the server cannot tell who types the requests, so a key does not say. Match tokens keep working
beside keys.
"""

from __future__ import annotations

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.core.errors import AuthenticationError, InvalidRequestError, NotFoundError
from app.db import credentials
from app.db.engine import write_lock
from app.db.models import ApiKey, new_public_id
from app.schemas.players import ApiKeyCreated, ApiKeyOut
from app.services.play.tokens import OwnerAccess
from app.services.players.accounts import require_account

MAX_KEYS = 20
NAME_MAX = 40


def _out(key: ApiKey) -> ApiKeyOut:
    return ApiKeyOut(key_id=key.public_id, name=key.name, created=key.created)


def create_key(session: Session, access: OwnerAccess, name: str) -> ApiKeyCreated:
    """A new key of the signed-in account; the answer is the only place the key appears."""
    account = require_account(session, access)
    name = " ".join(name.split())[:NAME_MAX] or "key"
    count = session.scalar(select(func.count()).where(ApiKey.account_id == account.id)) or 0
    if count >= MAX_KEYS:
        raise InvalidRequestError(f"an account has at most {MAX_KEYS} keys: revoke one first")
    public_id = new_public_id()[:16]
    token = f"{credentials.KEY_PREFIX}{public_id}_{credentials.new_secret()}"
    key = ApiKey(public_id=public_id, account_id=account.id, name=name,
                 key_hash=credentials.digest(token))
    session.add(key)
    with write_lock(session):
        session.commit()
    return ApiKeyCreated(**_out(key).model_dump(), key=token)


def list_keys(session: Session, account_id: int) -> list[ApiKeyOut]:
    keys = session.scalars(select(ApiKey).where(ApiKey.account_id == account_id)
                           .order_by(ApiKey.created.desc(), ApiKey.id.desc()))
    return [_out(key) for key in keys]


def revoke_key(session: Session, access: OwnerAccess, key_id: str) -> None:
    """Delete one of the account's keys: it opens nothing from now on."""
    account = require_account(session, access)
    with write_lock(session):
        gone = session.execute(delete(ApiKey).where(
            (ApiKey.account_id == account.id) & (ApiKey.public_id == key_id)))
        session.commit()
    if not getattr(gone, "rowcount", 0):
        raise NotFoundError(f"no key {key_id[:40]!r} of yours")


def require_key_owner(session: Session, token: str) -> credentials.KeyOwner:
    """The owner of an API key sent as a bearer token; `AuthenticationError` for a key
    that does not exist."""
    owner = credentials.key_owner(session.connection(), token)
    if owner is None:
        raise AuthenticationError("this API key is not valid (revoked?)")
    return owner

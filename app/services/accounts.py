"""Accounts: a user name and a password, created at any time, never needed to play.

* **Passwords** are hashed with Argon2id through pwdlib (the FastAPI documentation's choice),
  at its recommended cost; a hash made with older parameters is replaced at the next sign-in.
* **Sessions**: signing up or in starts a new server-side session, a random id whose SHA-256
  the database keeps (`app.models_players.AccountSession`); the browser's cookie is emptied
  and refilled (a new player id, a new CSRF token, the new session id), so nothing from before
  signing in carries over. Signing out deletes the session: a copy of the old cookie opens
  nothing. Changing the password ends every other session of the account.
* **Sign-in** answers the same, and takes about as long, whether the name exists or not (a
  missing account's password is checked against a dummy hash), and is rate-limited per account
  name and per address, counted in the database (`rate_limit`) so that it holds across
  workers and instances. Signing up necessarily says when a name is taken.
* The matches the browser played before signing up or in become the account's
  (`player_totals.add_matches` adds them to its totals).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import cache
from typing import cast

from pwdlib import PasswordHash
from sqlalchemy import Table, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.db import write_lock
from app.models import Action, Hand, IdempotentAction, Match, utcnow
from app.models_players import (
    Account,
    AccountSession,
    ApiKey,
    PlayerDay,
    PlayerStyle,
    PlayerTotals,
)
from app.services import credentials, player_totals, rate_limit
from app.services.errors import (
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    ServiceError,
)
from app.services.tokens import OwnerAccess
from solver.games import get_game, play

NAME_RULE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,31}")
NAME_HELP = ("3 to 32 letters, digits, dots, dashes or underscores, starting with a letter or "
             "a digit")
PASSWORD_MIN, PASSWORD_MAX = 8, 256
ACCOUNT_ATTEMPTS = 5
"""Sign-in attempts allowed per account name in a window."""
ADDRESS_ATTEMPTS = 20
"""Sign-in attempts allowed per address in a window (several people may share one)."""
WINDOW = timedelta(minutes=15)
WRONG = "wrong user name or password"

_ACCOUNTS = cast(Table, Account.__table__)
_SESSIONS = cast(Table, AccountSession.__table__)
_MATCHES = cast(Table, Match.__table__)


class SignInError(ServiceError):
    """Wrong user name or password (the same words whichever it was)."""

    status_code = 401


class TooManyAttemptsError(ServiceError):
    status_code = 429


@dataclass(frozen=True, slots=True)
class AccountRow:
    id: int
    username: str
    on_boards: bool
    created: datetime


@dataclass(frozen=True, slots=True)
class SignedIn:
    account: AccountRow
    sid: str
    """The new session's id, for the browser's cookie (the database keeps its SHA-256)."""


@cache
def hasher() -> PasswordHash:
    return PasswordHash.recommended()


@cache
def _dummy_hash() -> str:
    """What a missing account's password is checked against, so that it costs the same."""
    hashed: str = hasher().hash("a password nobody has")
    return hashed


def name_key(username: str) -> str:
    return username.strip().casefold()


def _check_new(username: str, password: str) -> str:
    name = username.strip()
    if not NAME_RULE.fullmatch(name):
        raise InvalidRequestError(f"a user name has {NAME_HELP}")
    _check_password(password)
    return name


def _check_password(password: str) -> None:
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        raise InvalidRequestError(
            f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters")


def _row(account: Account) -> AccountRow:
    return AccountRow(account.id, account.username, account.on_boards, account.created)


def sign_up(session: Session, username: str, password: str, *, owner: str | None
            ) -> SignedIn:
    """A new account, signed in, with the browser's matches (`owner`) made its own; 409 if
    the name is taken, 422 for a name or password that breaks the rules."""
    name = _check_new(username, password)
    hashed = hasher().hash(password)  # slow on purpose: before any lock is taken
    account = Account(username=name, username_key=name_key(name), password_hash=hashed)
    session.add(account)
    with write_lock(session):
        try:
            session.flush()
        except IntegrityError:
            session.rollback()
            raise ConflictError(f"the user name {name!r} is taken; choose another") from None
        signed = _start_session(session, account, owner)
        session.commit()
    return signed


def sign_in(session: Session, username: str, password: str, *, address: str,
            owner: str | None, now: datetime | None = None) -> SignedIn:
    """Sign in: a new session, the browser's matches made the account's. The same 401
    whether the name exists or not; 429 once the account name or the address has used up
    its attempts for the window (counted before the password is checked)."""
    now = now or utcnow()
    key = name_key(username)[:64]
    with write_lock(session):
        connection = session.connection()
        by_account = rate_limit.hit(connection, f"account:{key}", now, WINDOW)
        by_address = rate_limit.hit(connection, f"address:{address[:64]}", now, WINDOW)
        session.commit()
    if by_account > ACCOUNT_ATTEMPTS or by_address > ADDRESS_ATTEMPTS:
        minutes = int(WINDOW.total_seconds() // 60)
        raise TooManyAttemptsError(
            f"too many sign-in attempts; wait {minutes} minutes and try again")
    account = session.scalars(select(Account).where(Account.username_key == key)).first()
    valid, updated = hasher().verify_and_update(
        password[:PASSWORD_MAX], account.password_hash if account else _dummy_hash())
    if account is None or not valid:
        raise SignInError(WRONG)
    with write_lock(session):
        if updated is not None:
            account.password_hash = updated
        rate_limit.forget(session.connection(), f"account:{key}")
        signed = _start_session(session, account, owner)
        session.commit()
    return signed


def _start_session(session: Session, account: Account, owner: str | None) -> SignedIn:
    """A new session row and the browser's unowned matches claimed (no commit)."""
    sid = credentials.new_secret()
    connection = session.connection()
    connection.execute(_SESSIONS.insert().values(
        account_id=account.id, sid_hash=credentials.digest(sid), created=utcnow()))
    if owner:
        claimed = connection.execute(
            update(_MATCHES).where((_MATCHES.c.owner == owner)
                                   & _MATCHES.c.account_id.is_(None))
            .values(account_id=account.id).returning(_MATCHES.c.id)).scalars().all()
        player_totals.add_matches(connection, account.id, claimed, _style_of)
    return SignedIn(_row(account), sid)


def _style_of(game: str, seat: int, actions: list[int]) -> player_totals.StyleRows:
    """The style counts of a finished hand of `game` from its actions."""
    played = get_game(game)
    return player_totals.style_rows(played.style_counts(play(played, actions), seat))


def signed_in(session: Session, access: OwnerAccess) -> AccountRow | None:
    """The account the browser is signed in to, if it is."""
    account_id = credentials.session_account(session.connection(), access.session_id)
    if account_id is None:
        return None
    account = session.get(Account, account_id)
    return _row(account) if account is not None else None


def require_account(session: Session, access: OwnerAccess) -> Account:
    account_id = credentials.session_account(session.connection(), access.session_id)
    account = session.get(Account, account_id) if account_id is not None else None
    if account is None:
        raise AuthenticationError("sign in first")
    return account


def sign_out(session: Session, access: OwnerAccess) -> None:
    """End the browser's session: its id opens nothing any more."""
    if access.session_id:
        with write_lock(session):
            session.execute(delete(AccountSession).where(
                AccountSession.sid_hash == credentials.digest(access.session_id)))
            session.commit()


def change_password(session: Session, access: OwnerAccess, current: str, new: str
                    ) -> SignedIn:
    """A new password (the current one confirms it is the player); every session of the
    account ends, and this browser gets a new one."""
    account = require_account(session, access)
    if not hasher().verify(current[:PASSWORD_MAX], account.password_hash):
        raise SignInError("the current password is wrong")
    _check_password(new)
    hashed = hasher().hash(new)
    with write_lock(session):
        account.password_hash = hashed
        session.execute(delete(AccountSession).where(AccountSession.account_id == account.id))
        signed = _start_session(session, account, None)
        session.commit()
    return signed


def set_on_boards(session: Session, access: OwnerAccess, on_boards: bool) -> AccountRow:
    """Show the player on the leaderboards, or keep them off."""
    account = require_account(session, access)
    with write_lock(session):
        account.on_boards = on_boards
        session.commit()
    return _row(account)


def delete_account(session: Session, access: OwnerAccess, password: str) -> None:
    """Delete the account and everything of it: its matches with their hands and actions,
    its totals, keys and sessions. The password confirms it."""
    account = require_account(session, access)
    if not hasher().verify(password[:PASSWORD_MAX], account.password_hash):
        raise SignInError("the password is wrong; nothing was deleted")
    matches = select(Match.id).where(Match.account_id == account.id).scalar_subquery()
    hands = select(Hand.id).where(Hand.match_id.in_(matches)).scalar_subquery()
    with write_lock(session):
        for statement in (
                delete(Action).where(Action.hand_id.in_(hands)),
                delete(Hand).where(Hand.match_id.in_(matches)),
                delete(IdempotentAction).where(IdempotentAction.match_id.in_(matches)),
                delete(Match).where(Match.account_id == account.id),
                *(delete(table).where(table.account_id == account.id)
                  for table in (PlayerTotals, PlayerDay, PlayerStyle, ApiKey, AccountSession)),
                delete(Account).where(Account.id == account.id)):
            session.execute(statement)
        rate_limit.forget(session.connection(), f"account:{account.username_key}")
        session.commit()

"""Accounts: a user name and a password, created at any time, never needed to play.

* **Passwords** are hashed with Argon2id through pwdlib (the FastAPI documentation's choice),
  at its recommended cost; a hash made with older parameters is replaced at the next sign-in.
  A new one must pass `passwords.password_problem` (NIST SP 800-63B: long enough, not common,
  not a pattern, not the user name). Everything cheap (the rules, the limits, a taken name) is
  checked before anything is hashed.
* **Sessions**: signing up or in starts a new server-side session, a random id whose SHA-256
  the database keeps (`app.db.models.AccountSession`); the browser's cookie is emptied
  and refilled (a new player id, a new CSRF token, the new session id), so nothing from before
  signing in carries over. Signing out deletes the session: a copy of the old cookie opens
  nothing. Changing the password ends every other session of the account.
* **Sign-in** answers the same, and takes about as long, whether the name exists or not (a
  missing account's password is checked against a dummy hash). It is throttled without
  letting anybody lock the owner out (`throttle`: a browser that signed in before keeps its
  own allowance), counted in the database so that it holds across workers and instances.
  Signing up, changing the password and deleting the account are limited too. Signing up
  necessarily says when a name is taken.
* The matches the browser played before signing up or in become the account's
  (`player_totals.add_matches` adds them to its totals).
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from typing import cast

from pwdlib import PasswordHash
from sqlalchemy import Table, delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.errors import (
    AuthenticationError,
    ConflictError,
    InvalidRequestError,
    SignInError,
)
from app.db import credentials, player_totals
from app.db.engine import write_lock
from app.db.models import (
    Account,
    AccountSession,
    Action,
    ApiKey,
    Hand,
    IdempotentAction,
    Match,
    PlayerDay,
    PlayerStyle,
    PlayerTotals,
    utcnow,
)
from app.services.play.tokens import OwnerAccess
from app.services.players import throttle
from app.services.players.passwords import PASSWORD_MAX, password_problem
from solver.games import get_game, play

NAME_RULE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{2,31}")
NAME_HELP = ("3 to 32 letters, digits, dots, dashes or underscores, starting with a letter or "
             "a digit")
WRONG = "wrong user name or password"

_ACCOUNTS = cast(Table, Account.__table__)
_SESSIONS = cast(Table, AccountSession.__table__)
_MATCHES = cast(Table, Match.__table__)


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
    device: str
    """A new device id for this browser and user name (`throttle`: its own allowance of
    sign-in attempts from now on)."""


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
    _check_password(password, name)
    return name


def _check_password(password: str, username: str) -> None:
    if (problem := password_problem(password, username)) is not None:
        raise InvalidRequestError(problem)


def _counted(session: Session, counters: tuple[throttle.Counter, ...],
             now: datetime | None = None) -> None:
    """Count an attempt on `counters` (committed at once, so that a refused or failed attempt
    stays counted); `TooManyAttemptsError` if one of them is spent."""
    with write_lock(session):
        refusal = throttle.count(session.connection(), counters, now or utcnow())
        session.commit()
    if refusal is not None:
        raise refusal


def _row(account: Account) -> AccountRow:
    return AccountRow(account.id, account.username, account.on_boards, account.created)


def sign_up(session: Session, username: str, password: str, *, address: str,
            owner: str | None) -> SignedIn:
    """A new account, signed in, with the browser's matches (`owner`) made its own; a
    `ConflictError` if the name is taken, an `InvalidRequestError` for a name or password that
    breaks the rules, `TooManyAttemptsError` once `address`
    has tried too many (all of them checked before the password is hashed)."""
    name = _check_new(username, password)
    _counted(session, (throttle.sign_up_counter(address[:64]),))
    if session.scalar(select(Account.id).where(Account.username_key == name_key(name))):
        raise _taken(name)
    hashed = hasher().hash(password)  # slow on purpose: before any lock is taken
    account = Account(username=name, username_key=name_key(name), password_hash=hashed)
    session.add(account)
    with write_lock(session):
        try:
            session.flush()
        except IntegrityError:
            session.rollback()
            raise _taken(name) from None
        signed = _start_session(session, account, owner)
        session.commit()
    return signed


def _taken(name: str) -> ConflictError:
    return ConflictError(f"the user name {name!r} is taken; choose another")


def sign_in(session: Session, username: str, password: str, *, address: str,
            device: str | None = None, owner: str | None,
            now: datetime | None = None) -> SignedIn:
    """Sign in: a new session, the browser's matches made the account's. The same
    `SignInError` whether the name exists or not; `TooManyAttemptsError` once this browser
    (`device`: the id its device cookie holds for this user name, if it has one), or else its
    address or the name, has
    used up its attempts (counted before the password is checked, see `throttle`)."""
    key = name_key(username)[:64]
    address = address[:64]
    _counted(session, throttle.sign_in_counters(key, address, device), now)
    account = session.scalars(select(Account).where(Account.username_key == key)).first()
    valid, updated = hasher().verify_and_update(
        password[:PASSWORD_MAX], account.password_hash if account else _dummy_hash())
    if account is None or not valid:
        raise SignInError(WRONG)
    with write_lock(session):
        if updated is not None:
            account.password_hash = updated
        throttle.signed_in(session.connection(), key, address, device)
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
    return SignedIn(_row(account), sid, secrets.token_urlsafe(16))


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
    account ends, and this browser gets a new one. `TooManyAttemptsError` after too many wrong
    current ones."""
    account = require_account(session, access)
    _check_password(new, account.username)
    _confirm(session, account, current, "the current password is wrong")
    hashed = hasher().hash(new)
    with write_lock(session):
        account.password_hash = hashed
        session.execute(delete(AccountSession).where(AccountSession.account_id == account.id))
        signed = _start_session(session, account, None)
        session.commit()
    return signed


def _confirm(session: Session, account: Account, password: str, wrong: str) -> None:
    """Check the account's password (`wrong` if it is not), counted against its limit."""
    counter = throttle.confirm_counter(account.id)
    _counted(session, (counter,))
    if not hasher().verify(password[:PASSWORD_MAX], account.password_hash):
        raise SignInError(wrong)
    with write_lock(session):
        throttle.forget(session.connection(), counter)
        session.commit()


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
    _confirm(session, account, password, "the password is wrong; nothing was deleted")
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
        session.commit()

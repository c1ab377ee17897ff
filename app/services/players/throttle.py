"""How often a password may be tried, and by whom: guessing is slowed down, and nobody can lock
an account's owner out of it.

A limit per user name alone lets anybody lock the owner out: five wrong passwords typed by
anyone, anywhere, and the right one is refused too. A limit per address alone lets whoever has
many addresses guess without end. So sign-ins are counted as OWASP's *device cookies* propose
("Slow Down Online Guessing Attacks with Device Cookies"), by who makes them:

* **A browser that has signed in with this user name before** carries a signed device cookie
  naming it (`app.web.devices`; the cookie cannot be forged without the app's secret). Only
  its own attempts count against it: 10 in 15 minutes. Nobody else's failures touch that
  allowance, so no attack on a name keeps its owner out of a browser they have used.
* **Any other browser** is counted three ways, and refused when one is spent: per address (20
  failures in 15 minutes, whatever the names: one password tried on many names), per user name
  and address (5 in 15 minutes: a guesser at one address is slowed down, the owner at another
  is not touched), and per user name over every new browser together (100 failures a day: the
  slow global back-off that bounds a guesser with many addresses, after NIST SP 800-63B's "no
  more than 100 consecutive failed attempts"). A guesser who keeps at it spends that last
  allowance (in five hours from one address, in minutes from twenty), and then only new
  browsers are refused: the owner still signs in from one used before, and from a new one on
  the next day.

The counts live in the database (`rate_limit`), shared by every worker and instance, and are
taken before the password is checked, so a refused attempt costs no password hash. They are
kept per user name whether an account has it or not, and the refusal reads the same, so being
throttled says nothing about the name. A successful sign-in forgets the failures of its browser
(and of its name at its address), and counts against neither its address nor the name's daily
allowance: those count failures.

The other routes that check or hash a password are limited too: signing up (20 attempts in 15
minutes per address) and confirming with the current password, to change it or to delete the
account (5 in 15 minutes per account).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from sqlalchemy import Connection

from app.core.errors import TooManyAttemptsError
from app.db import rate_limit

QUARTER_HOUR = timedelta(minutes=15)


@dataclass(frozen=True, slots=True)
class Limit:
    attempts: int
    window: timedelta
    refusal: str
    """What the player is told, with ``{wait}`` for how long until they may try again."""


DEVICE = Limit(10, QUARTER_HOUR, "too many wrong passwords from this browser; try again in "
                                 "{wait}")
ADDRESS = Limit(20, QUARTER_HOUR, "too many sign-in attempts from your network; try again in "
                                  "{wait}")
NAME_AND_ADDRESS = Limit(
    5, QUARTER_HOUR,
    "too many sign-in attempts with this user name from your network; try again in {wait}, "
    "or sign in from a browser you have signed in with before")
NAME = Limit(
    100, timedelta(days=1),
    "too many sign-in attempts with this user name from browsers it has not signed in with; "
    "a browser you have signed in with before still can, or try again in {wait}")
SIGN_UP = Limit(20, QUARTER_HOUR, "too many accounts tried from your network; try again in "
                                  "{wait}")
CONFIRM = Limit(5, QUARTER_HOUR, "too many wrong passwords; try again in {wait}")


@dataclass(frozen=True, slots=True)
class Counter:
    key: str
    limit: Limit


def wait_words(seconds: int) -> str:
    """How long `seconds` is, rounded up, in words."""
    minutes = max(1, math.ceil(seconds / 60))
    if minutes < 90:
        return "a minute" if minutes == 1 else f"{minutes} minutes"
    return f"{math.ceil(minutes / 60)} hours"


def count(connection: Connection, counters: Sequence[Counter], now: datetime
          ) -> TooManyAttemptsError | None:
    """Count one attempt on each counter in turn, and stop at the first whose limit it passes:
    its refusal (the counters after it are not counted). None if every one had room."""
    for counter in counters:
        counted = rate_limit.hit(connection, counter.key, now, counter.limit.window)
        if counted.attempts > counter.limit.attempts:
            wait = max(1, math.ceil((counted.resets - now).total_seconds()))
            return TooManyAttemptsError(counter.limit.refusal.format(wait=wait_words(wait)),
                                        retry_after=wait)
    return None


def sign_in_counters(name: str, address: str, device: str | None) -> tuple[Counter, ...]:
    """What a sign-in with the user name `name` (its key) from `address` is counted on: the
    browser's own allowance if it holds a device cookie for the name (`device`), else the
    address's, the name's at that address and the name's over every new browser."""
    if device is not None:
        return (Counter(f"sign-in:device:{device}", DEVICE),)
    return (Counter(f"sign-in:address:{address}", ADDRESS),
            Counter(f"sign-in:name-address:{name}|{address}", NAME_AND_ADDRESS),
            Counter(f"sign-in:name:{name}", NAME))


def signed_in(connection: Connection, name: str, address: str, device: str | None) -> None:
    """After a successful sign-in: its browser's failures (and its name's at its address) are
    forgotten, and it counts against neither the address nor the name's daily allowance."""
    if device is not None:
        rate_limit.forget(connection, f"sign-in:device:{device}")
        return
    rate_limit.forget(connection, f"sign-in:name-address:{name}|{address}")
    rate_limit.release(connection, f"sign-in:address:{address}")
    rate_limit.release(connection, f"sign-in:name:{name}")


def sign_up_counter(address: str) -> Counter:
    return Counter(f"sign-up:address:{address}", SIGN_UP)


def confirm_counter(account_id: int) -> Counter:
    """Attempts at the current password of a signed-in account (changing it, deleting it)."""
    return Counter(f"confirm:account:{account_id}", CONFIRM)


def forget(connection: Connection, counter: Counter) -> None:
    """Start `counter` afresh (its attempts were the player's, who has now got it right)."""
    rate_limit.forget(connection, counter.key)

"""What a new password must be, after NIST SP 800-63B (section 3.1.1.2 of revision 4): long
enough, and not among the first guesses an attacker makes; no composition rules.

* **8 to 256 characters**, any characters (spaces and every script included). No rule asks for
  a digit, a capital or a symbol: such rules make passwords harder to remember, not to guess.
* **Not a common password**: not on the list of the 30,000 most common passwords that the
  ``zxcvbn`` package ships (Dropbox's password strength estimator, its Python port kept by Daniel
  Wolf, MIT licence), counted by Dropbox from Xato's corpus of ten million leaked passwords.
  Compared without regard to case or spaces, and also without up to five digits and symbols
  added at the end (``Baseball2024!`` is ``baseball``: an attacker's rules add those first).
  The list comes from a maintained package rather than a file copied into this repository, so
  that an update of the package is an update of the list.
* **Not a pattern**: only spaces, one character or one group repeated (``aaaaaaaa``,
  ``abcabcabc``), or one run of consecutive characters (``abcdefgh``, ``98765432``): the first
  patterns a guesser tries, and not all on the list (zxcvbn leaves out of its list what its own
  pattern matchers find).
* **Not the context**: at least 8 characters besides the user name and the site's name (NIST's
  "context-specific words": ``alice2024`` is refused to alice).

The list is read once per process, on the first password checked (loading it takes about a
tenth of a second); every check is a few set look-ups.
"""

from __future__ import annotations

import itertools
import re
from functools import cache

PASSWORD_MIN, PASSWORD_MAX = 8, 256
SITE_NAMES = ("solved bots", "solvedbots")
_ADDED_AT_THE_END = re.compile(r"[\d\W_]{1,5}$")
_SPACES = re.compile(r"\s+")


@cache
def common_passwords() -> frozenset[str]:
    """The common passwords of zxcvbn's list that are long enough to be chosen here."""
    from zxcvbn.frequency_lists import FREQUENCY_LISTS  # 0.1 s, 12 MB: at first use only

    return frozenset(word for word in FREQUENCY_LISTS["passwords"]
                     if len(word) >= PASSWORD_MIN // 2)


def is_common(password: str) -> bool:
    """On the list, without regard to case and spaces, or once up to five digits and symbols
    at its end are taken away."""
    plain = _SPACES.sub("", password).casefold()
    stem = _ADDED_AT_THE_END.sub("", plain)
    common = common_passwords()
    return plain in common or (len(stem) >= PASSWORD_MIN // 2 and stem in common)


def is_pattern(password: str) -> bool:
    """Only spaces, one group of characters repeated, or one run of consecutive characters."""
    if not password.strip():
        return True
    if (password + password).find(password, 1) < len(password):
        return True  # the password is a shorter string repeated
    steps = {ord(b) - ord(a) for a, b in itertools.pairwise(password)}
    return steps in ({1}, {-1})


def mostly_context(password: str, username: str) -> bool:
    """Fewer than `PASSWORD_MIN` characters left once the user name and the site's name are
    taken out."""
    rest = password.casefold()
    for word in sorted({username.strip().casefold(), *SITE_NAMES}, key=len, reverse=True):
        if word:
            rest = rest.replace(word, "")
    return len(rest) < PASSWORD_MIN


def password_problem(password: str, username: str) -> str | None:
    """Why `password` may not be chosen by `username`, in words for the player; None if it
    may."""
    if not PASSWORD_MIN <= len(password) <= PASSWORD_MAX:
        return f"a password has {PASSWORD_MIN} to {PASSWORD_MAX} characters"
    if is_pattern(password):
        return ("this password is a pattern (only spaces, a character or a group repeated, or "
                "a run like abcdefgh): those are among the first guesses; choose another, "
                "a few unrelated words make a good one")
    if mostly_context(password, username):
        return (f"this password is mostly your user name or the site's name: it needs at least "
                f"{PASSWORD_MIN} characters besides them")
    if is_common(password):
        return ("this password is on a list of the most common ones, which attackers try "
                "first; choose another, a few unrelated words make a good one")
    return None

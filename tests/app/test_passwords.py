"""A new password follows NIST SP 800-63B (`app.services.players.passwords`): 8 to 256 characters of
any kind and no composition rules, but not a common password (zxcvbn's list), a pattern, or mostly
the user name; refused with a 422 that says why, at sign-up and at a change of password."""

from __future__ import annotations

import random
import string

import pytest
from fastapi.testclient import TestClient

from app.services.players.passwords import common_passwords, password_problem
from tests.app.conftest import AppFactory
from tests.app.test_accounts import PASSWORD, signin, signup
from tests.app.test_pages import csrf, parse

REFUSED = {
    " " * 8: "pattern",
    "\t \u3000  \n  ": "pattern",
    "password": "most common",
    "PassWord": "most common",
    "pass word": "most common",
    "Baseball2024!": "most common",
    "trustno1": "most common",
    "qwertyuiop": "most common",
    "aaaaaaaaaaaa": "pattern",
    "abcabcabc": "pattern",
    "abcdefghij": "pattern",
    "98765432": "pattern",
    "alice2024!": "user name",
    "Alice-alice": "user name",
    "solvedbots12": "site's name",
    "short": "8 to 256",
    "x" * 7: "8 to 256",
    "xy" * 129: "8 to 256",
}
ACCEPTED = ["correct horse battery", "xkqzvbmw", "Tr0ub4dor&3", "alice in wonderland!",
            "pass8273645192", "ünïcødé pässwörd", "мой пароль длинный",
            "".join(random.Random(1).choices(string.printable[:95], k=256))]


@pytest.mark.parametrize(("password", "why"), REFUSED.items())
def test_weak_passwords_are_refused_with_the_reason(password: str, why: str) -> None:
    problem = password_problem(password, "alice")
    assert problem is not None and why in problem, (password, problem)


@pytest.mark.parametrize("password", ACCEPTED)
def test_no_composition_rules(password: str) -> None:
    assert password_problem(password, "alice") is None


def test_the_list_is_zxcvbns_common_passwords() -> None:
    listed = common_passwords()
    assert len(listed) > 10_000
    assert {"password", "12345678", "iloveyou", "sunshine"} <= listed


def test_the_pages_refuse_a_weak_password_and_say_why(make_app: AppFactory) -> None:
    web = make_app()
    refused = signup(web.client, "alice", " " * 8)
    assert refused.status_code == 422
    message = parse(refused.text).first("div", id="account-message")
    assert message is not None and "pattern" in message.text
    refused = signup(web.client, "alice", "password")
    assert refused.status_code == 422
    message = parse(refused.text).first("div", id="account-message")
    assert message is not None and "list of the most common" in message.text
    assert signup(web.client, "alice").status_code == 303
    changed = web.client.post("/account/password", data={
        **csrf(web.client), "current": PASSWORD, "new": "alice12345"})
    assert changed.status_code == 422
    message = parse(changed.text).first("div", id="profile-message")
    assert message is not None and "user name" in message.text
    assert signin(TestClient(web.app)).status_code == 303  # the password is unchanged

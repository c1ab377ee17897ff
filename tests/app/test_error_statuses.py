"""The domain's errors name no HTTP status: the services and the stores under them speak of what
was refused and why, and the API and the pages map each error to its status once
(`app.api.errors.STATUS`)."""

from __future__ import annotations

import re

import pytest

from app.api.errors import STATUS, status_of
from app.core import errors
from tests.conftest import REPO_ROOT

EXPECTED = {
    errors.ServiceError: 400,
    errors.NotFoundError: 404,
    errors.NoSuchSpotError: 404,
    errors.AuthenticationError: 401,
    errors.SignInError: 401,
    errors.PermissionDeniedError: 403,
    errors.InvalidRequestError: 422,
    errors.UnguardedActionError: 422,
    errors.IdempotencyKeyReuseError: 422,
    errors.TooManyAttemptsError: 429,
    errors.ConflictError: 409,
    errors.IllegalActionError: 409,
    errors.IllegalAmountError: 409,
    errors.HandFinishedError: 409,
    errors.StaleHandError: 409,
    errors.HandBusyError: 409,
    errors.HandInProgressError: 409,
    errors.StrategyUnavailableError: 503,
    errors.GameNotReadyError: 409,
    errors.BotStalledError: 503,
}


def _every_error() -> set[type[errors.ServiceError]]:
    found: set[type[errors.ServiceError]] = set()
    todo: list[type[errors.ServiceError]] = [errors.ServiceError]
    while todo:
        kind = todo.pop()
        found.add(kind)
        todo.extend(kind.__subclasses__())
    return found


KINDS = sorted(EXPECTED, key=lambda k: k.__name__)


@pytest.mark.parametrize("kind", KINDS, ids=[k.__name__ for k in KINDS])
def test_each_domain_error_has_the_status_the_api_documents(
        kind: type[errors.ServiceError]) -> None:
    error = kind.__new__(kind)
    assert status_of(error) == EXPECTED[kind]


def test_every_domain_error_is_in_the_table_and_carries_no_status() -> None:
    assert _every_error() == set(EXPECTED)
    assert set(STATUS) <= set(EXPECTED)
    assert not [k.__name__ for k in _every_error() if hasattr(k, "status_code")]


def test_the_services_and_the_database_speak_no_http() -> None:
    """Their code and docstrings name no HTTP status nor HTTP itself."""
    paths = [*sorted((REPO_ROOT / "app" / "services").rglob("*.py")),
             *sorted((REPO_ROOT / "app" / "db").glob("*.py")),
             REPO_ROOT / "app" / "core" / "errors.py"]
    status = re.compile(r"(?<![.\d])\b(?:HTTP|40[01349]|41[35]|42[29]|503|_or_4\d\d|"
                        r"status_code)\b")
    found = [f"{path.relative_to(REPO_ROOT)}:{n}: {line.strip()}"
             for path in paths
             for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
             if status.search(line)]
    assert not found, "\n".join(found)
    assert len(paths) > 25

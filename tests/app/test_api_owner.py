"""Browser players: a signed, HttpOnly, SameSite=Lax session cookie names the owner."""

from __future__ import annotations

from fastapi import FastAPI
from sqlalchemy.orm import Session

from app import services
from app.deps import BackendDep, OwnerDep
from app.main import SESSION_COOKIE
from tests.app.conftest import AppFactory


def _add_probe(app: FastAPI) -> None:
    """A route using the dependency the way the HTML pages do."""

    @app.post("/_probe/matches")
    async def probe(access: OwnerDep, backend: BackendDep) -> dict[str, object]:
        def work(session: Session) -> dict[str, object]:
            created = services.create_match(session, backend.source, "kuhn", access.owner)
            return {"owner": access.owner, "match": created.match_id,
                    "mine": [m.match_id for m in services.list_matches(session, access.owner)]}

        return await backend.run(work)


def test_owner_cookie_is_created_signed_and_stable(make_app: AppFactory) -> None:
    api = make_app()
    _add_probe(api.app)
    first = api.client.post("/_probe/matches")
    cookie = first.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    assert "httponly" in cookie.lower() and "samesite=lax" in cookie.lower()
    second = api.client.post("/_probe/matches").json()
    assert second["owner"] == first.json()["owner"]
    assert second["mine"] == [second["match"], first.json()["match"]]

    # Another browser (no cookie) is another owner and sees none of these matches.
    api.client.cookies.clear()
    other = api.client.post("/_probe/matches").json()
    assert other["owner"] != second["owner"] and other["mine"] == [other["match"]]

    # A tampered cookie is not trusted: a fresh owner is issued.
    value = first.headers["set-cookie"].split(";")[0].split("=", 1)[1]
    api.client.cookies.clear()
    api.client.cookies.set(SESSION_COOKIE, value[:-4] + "AAAA")
    forged = api.client.post("/_probe/matches").json()
    assert forged["owner"] not in (first.json()["owner"], other["owner"])


def test_owner_cookie_survives_a_restart(make_app: AppFactory) -> None:
    first = make_app()
    _add_probe(first.app)
    owner = first.client.post("/_probe/matches").json()["owner"]
    second = make_app()  # same secret key, same database
    _add_probe(second.app)
    second.client.cookies.update(first.client.cookies)
    assert second.client.post("/_probe/matches").json()["owner"] == owner

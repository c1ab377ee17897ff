"""The many-machine set-up of `deploy/compose.yaml` read as compose would read it (docker itself
is not needed): PostgreSQL, two app replicas behind nginx, one shared strategy store with a
single writer. `test_many_instances.py` runs the same shape (two instances, one PostgreSQL)
under load."""

from __future__ import annotations

import re
from typing import Any

import yaml
from sqlalchemy.engine import make_url

from app.core.config import Settings
from tests.app.server import REPO_ROOT

DEPLOY = REPO_ROOT / "deploy"


def _compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    return loaded


def _environment(service: dict[str, Any], secret: str = "a-shared-secret") -> dict[str, str]:
    """The service's environment as compose fills it in (defaults taken, SECRET_KEY given)."""
    filled = {}
    for name, value in service["environment"].items():
        text = str(value).replace("${SECRET_KEY:?", "${SECRET_KEY:-")
        text = re.sub(r"\$\{SECRET_KEY:-[^}]*\}", secret, text)
        filled[name] = re.sub(r"\$\{[A-Z_]+:-([^}]*)\}", r"\1", text)
    return filled


def test_two_replicas_share_postgresql_a_secret_and_one_store() -> None:
    services = _compose()["services"]
    assert services["db"]["image"].startswith("postgres:")
    app = services["app"]
    assert app["deploy"]["replicas"] == 2
    assert "ports" not in app  # only the proxy reaches the replicas
    assert "--no-build" in app["command"]  # the replicas never write the store
    assert "${SECRET_KEY:?" in app["environment"]["SECRET_KEY"]  # required, the same for all
    env = _environment(app)
    settings = Settings.from_env(env)
    url = make_url(settings.database_url)
    assert (url.get_backend_name(), url.get_driver_name(), url.host) == (
        "postgresql", "psycopg", "db")
    assert settings.forwarded_allow_ips == ("*",)  # only the proxy reaches a replica
    assert settings.https_only  # browsers come over HTTPS: the cookies are Secure
    # The store lies on the volume the strategies service fills, and the lobby's build status
    # beside it, where that service reports.
    shared = {volume.split(":")[0]: volume.split(":")[1] for volume in app["volumes"]}
    store_volume = next(name for name, path in shared.items()
                        if settings.strategy_store.is_relative_to(path))
    writer = services["strategies"]
    writer_paths = {v.split(":")[0]: v.split(":")[1] for v in writer["volumes"]}
    assert store_volume in writer_paths
    script = writer["command"][-1]
    assert f"--store {settings.strategy_store}" in script
    assert f"--status-file {settings.build_status}" in script
    assert writer["restart"] == "no"
    assert app["depends_on"]["strategies"]["condition"] == "service_healthy"
    assert app["depends_on"]["db"]["condition"] == "service_healthy"


def test_the_proxy_reaches_the_replicas_and_sets_the_client_address() -> None:
    services = _compose()["services"]
    proxy = services["proxy"]
    assert proxy["image"].startswith("nginx:")
    assert proxy["ports"]
    mounted = {v.split(":")[0]: v.split(":")[1] for v in proxy["volumes"]}
    assert mounted["./nginx.conf"] == "/etc/nginx/conf.d/default.conf"
    conf = (DEPLOY / "nginx.conf").read_text()
    port = Settings.from_env(_environment(services["app"])).port
    assert re.search(rf"server app:{port}\b", conf)
    assert "proxy_pass http://app;" in conf
    # The address is replaced, never appended to: a client cannot pick its own rate limit.
    assert "proxy_set_header X-Forwarded-For $remote_addr;" in conf
    assert "$proxy_add_x_forwarded_for" not in conf


def test_the_proxy_serves_https_with_the_certificate_made_at_the_first_start() -> None:
    services = _compose()["services"]
    proxy, certs = services["proxy"], services["certs"]
    conf = (DEPLOY / "nginx.conf").read_text()
    assert "listen 443 ssl;" in conf
    mounted = {v.split(":")[0]: v.split(":")[1] for v in proxy["volumes"]}
    made = {v.split(":")[0]: v.split(":")[1] for v in certs["volumes"]}
    for name in ("cert.pem", "key.pem"):
        assert f"{mounted['certs']}/{name};" in conf  # what nginx reads ...
        assert f"{made['certs']}/{name}" in certs["command"][-1]  # ... is what is made
    assert "test -s" in certs["command"][-1]  # made once, then kept (or replaced by hand)
    assert proxy["depends_on"]["certs"]["condition"] == "service_completed_successfully"
    assert "certs" in _compose()["volumes"]
    published = {int(port.split(":")[1]): int(port.split(":")[0]) for port in proxy["ports"]}
    # Plain HTTP only sends the browser to the published HTTPS port.
    assert f"return 308 https://$host:{published[443]}$request_uri;" in conf
    assert "proxy_set_header X-Forwarded-Proto $scheme;" in conf

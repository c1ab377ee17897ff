"""All of the app's configuration, read from the environment in one place.

=======================  ==========================================================================
``DATABASE_URL``         play database (any SQLAlchemy URL); default
                         ``sqlite:///<repo>/data/app.sqlite``
``STRATEGY_STORE``       strategy store written by ``python -m solver build``; default
                         ``strategies/strategies.sqlite``
``SECRET_KEY``           signs the cookies; default: generated once and kept in
                         ``data/secret_key`` (mode 0600) so that cookies survive restarts
``APP_DATA_DIR``         where the defaults above live; default ``<repo>/data``
``HOST``/``PORT``        where ``python -m app`` listens; default ``127.0.0.1:8000``
``FORWARDED_ALLOW_IPS``  the reverse proxies whose ``X-Forwarded-For`` and
                         ``X-Forwarded-Proto`` are believed (addresses or networks,
                         comma-separated, or ``*`` for any peer: only where nothing but the
                         proxy can reach the app); default none: the client is whoever
                         connects, whatever headers it sends
``HTTPS_ONLY``           1 when browsers reach the app over HTTPS (a TLS proxy in front): its
                         cookies are then ``Secure``, never sent over plain HTTP; default 0
=======================  ==========================================================================

``FORFEIT_AFTER_HOURS`` (default 24): a hand left unfinished this long is settled as a forfeit.
``WARM_STRATEGIES`` (default 1; 0 turns it off): after start-up, play a few hands of every
stored game in the background (and of each game a build stores later), so that no player's first
hand pays for loading a strategy, and compile the pages' templates and the OpenAPI schema.
"""

from __future__ import annotations

import ipaddress
import os
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from strategies import default_store_path

REPO_ROOT = Path(__file__).resolve().parents[2]
SECRET_KEY_FILE = "secret_key"


class ConfigError(ValueError):
    """A setting in the environment is unusable; the message names the variable."""


@dataclass(frozen=True, slots=True)
class Settings:
    database_url: str
    strategy_store: Path
    secret_key: str
    host: str = "127.0.0.1"
    port: int = 8000
    data_dir: Path = REPO_ROOT / "data"
    forfeit_after_hours: float = 24.0
    warm_strategies: bool = True
    forwarded_allow_ips: tuple[str, ...] = ()
    """The proxies whose forwarded headers are believed (``*``: any); none by default."""
    https_only: bool = False
    """Browsers reach the app over HTTPS only: its cookies are ``Secure``."""

    @property
    def build_status(self) -> Path:
        """Where the background build of the long strategies reports its progress."""
        return self.data_dir / "build-status.json"

    @property
    def url(self) -> str:
        """Where ``python -m app`` serves the app."""
        return f"http://{self.host}:{self.port}"

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Settings:
        """Settings from ``env`` (default ``os.environ``); creates the data folder if needed."""
        env = os.environ if env is None else env

        def get(name: str) -> str:
            return env.get(name, "").strip()

        data_dir = Path(get("APP_DATA_DIR") or REPO_ROOT / "data").expanduser()
        database_url = get("DATABASE_URL")
        if not database_url:
            data_dir.mkdir(parents=True, exist_ok=True)
            database_url = f"sqlite:///{data_dir / 'app.sqlite'}"
        store = Path(get("STRATEGY_STORE")).expanduser() if get("STRATEGY_STORE") else None
        secret_key = get("SECRET_KEY") or _persistent_secret(data_dir / SECRET_KEY_FILE)
        port_text = get("PORT") or "8000"
        try:
            port = int(port_text)
        except ValueError:
            port = -1
        if not 0 < port < 65536:
            raise ConfigError(f"PORT must be an integer between 1 and 65535, got {port_text!r}")
        forfeit_text = get("FORFEIT_AFTER_HOURS") or "24"
        try:
            forfeit_hours = float(forfeit_text)
        except ValueError:
            forfeit_hours = -1.0
        if not 0 < forfeit_hours < 1e6:
            raise ConfigError("FORFEIT_AFTER_HOURS must be a positive number of hours, got "
                              f"{forfeit_text!r}")
        return cls(
            database_url=database_url,
            strategy_store=store if store is not None else default_store_path(),
            secret_key=secret_key,
            host=get("HOST") or "127.0.0.1",
            port=port,
            data_dir=data_dir,
            forfeit_after_hours=forfeit_hours,
            warm_strategies=get("WARM_STRATEGIES").lower() not in ("0", "false", "no", "off"),
            forwarded_allow_ips=_proxies(get("FORWARDED_ALLOW_IPS")),
            https_only=_flag("HTTPS_ONLY", get("HTTPS_ONLY"), default=False),
        )


def _proxies(text: str) -> tuple[str, ...]:
    """``FORWARDED_ALLOW_IPS``: addresses and networks, or ``*``."""
    items = tuple(item.strip() for item in text.split(",") if item.strip())
    for item in items:
        if item == "*":
            continue
        try:
            ipaddress.ip_network(item, strict=False)
        except ValueError:
            raise ConfigError(
                "FORWARDED_ALLOW_IPS must list the proxies' addresses or networks, "
                f"comma-separated (e.g. 127.0.0.1,10.0.0.0/8), or *; got {item[:60]!r}"
            ) from None
    return items


def _flag(name: str, text: str, *, default: bool) -> bool:
    if not text:
        return default
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be 1 or 0 (or true/false, yes/no, on/off), got {text[:20]!r}")


def _persistent_secret(path: Path) -> str:
    """The secret kept in `path`, created (readable by the owner only) on first use."""
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        text = ""
    if text:
        return text
    path.parent.mkdir(parents=True, exist_ok=True)
    secret = secrets.token_urlsafe(48)
    # O_EXCL: if another process created it meanwhile, use theirs.
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text(encoding="ascii").strip() or secret
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(secret + "\n")
    return secret

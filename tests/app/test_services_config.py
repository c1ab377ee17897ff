"""Settings come from the environment; the generated secret key persists with mode 0600."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from app.core.config import ConfigError, Settings
from strategies import default_store_path


def test_defaults_and_persistent_secret(tmp_path: Path) -> None:
    env = {"APP_DATA_DIR": str(tmp_path / "data")}
    settings = Settings.from_env(env)
    assert settings.database_url == f"sqlite:///{tmp_path / 'data' / 'app.sqlite'}"
    assert settings.strategy_store == default_store_path()
    assert (settings.host, settings.port) == ("127.0.0.1", 8000)
    assert settings.url == "http://127.0.0.1:8000"
    key_file = tmp_path / "data" / "secret_key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(settings.secret_key) >= 32
    assert Settings.from_env(env).secret_key == settings.secret_key  # survives restarts
    with pytest.raises(AttributeError):
        settings.port = 1  # type: ignore[misc]  # frozen


def test_environment_overrides(tmp_path: Path) -> None:
    settings = Settings.from_env({
        "APP_DATA_DIR": str(tmp_path),
        "DATABASE_URL": "sqlite:///:memory:",
        "STRATEGY_STORE": str(tmp_path / "s.sqlite"),
        "SECRET_KEY": "k",
        "HOST": "0.0.0.0",
        "PORT": "9001",
    })
    assert settings.database_url == "sqlite:///:memory:"
    assert settings.strategy_store == tmp_path / "s.sqlite"
    assert (settings.secret_key, settings.host, settings.port) == ("k", "0.0.0.0", 9001)
    assert not (tmp_path / "secret_key").exists()
    with pytest.raises(ConfigError, match="PORT"):
        Settings.from_env({"APP_DATA_DIR": str(tmp_path), "SECRET_KEY": "k", "PORT": "http"})

"""Fixtures of the browser tests: a real uvicorn server and Debian's headless Chromium.

The server runs the app from the repository in a subprocess on a free 127.0.0.1 port, with a
temporary play database and a strategy store built once per session (``python -m solver build
--quiet``, about 30 s, unless ``TEST_STRATEGY_STORE`` names an existing one; then a quick build
of a whole Dudo match, about 40 s). Chromium is
``/usr/bin/chromium`` (``apt-get install chromium``) or ``$CHROMIUM``; without it the tests are
skipped, except under CI (``CI=true``), where a missing browser is an error.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # playwright itself is imported when a browser is launched
    from playwright.sync_api import Browser, ConsoleMessage, Page

REPO_ROOT = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SERVER_START_TIMEOUT = 60.0


def _chromium() -> str | None:
    candidate = os.environ.get("CHROMIUM", "").strip() or "/usr/bin/chromium"
    if Path(candidate).is_file() and os.access(candidate, os.X_OK):
        return candidate
    return shutil.which("chromium")


@pytest.fixture(scope="session")
def browser_store(match_store: Path) -> Path:
    """The same strategy store as the other tests (built once per session), with a quick build
    of a whole Dudo match so that its pages can be visited too."""
    return match_store


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture(scope="session")
def server(browser_store: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """The base URL of a uvicorn server running the app; stopped at the end of the session."""
    with serve(browser_store, tmp_path_factory.mktemp("server")) as base:
        yield base


@contextmanager
def serve(store: Path, data: Path, **env: str) -> Iterator[str]:
    """A uvicorn server running the app on `store` with its play database in `data` (and
    `env` added to its environment): its base URL, until the block ends."""
    if not (REPO_ROOT / "node_modules" / "htmx.org" / "dist" / "htmx.min.js").is_file():
        pytest.fail("htmx is not installed: run `npm ci` in the repository first")
    port = _free_port()
    environment = {
        **os.environ,
        "PYTHONPATH": str(REPO_ROOT),
        "DATABASE_URL": f"sqlite:///{data / 'app.sqlite'}",
        "STRATEGY_STORE": str(store),
        "SECRET_KEY": "browser-test-secret",
        "APP_DATA_DIR": str(data),
        **env,
    }
    log = (data / "server.log").open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "uvicorn", "app.main:app", "--host", "127.0.0.1", "--port",
         str(port), "--log-level", "warning"],
        cwd=REPO_ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT
        while True:
            if process.poll() is not None:
                log.flush()
                pytest.fail(f"the server exited with {process.returncode}:\n"
                            f"{(data / 'server.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                    if response.status == 200:
                        break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                pytest.fail(f"the server did not answer /healthz within {SERVER_START_TIMEOUT}s")
            time.sleep(0.2)
        yield base
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    executable = _chromium()
    if executable is None:
        message = "Chromium not found at /usr/bin/chromium: apt-get install chromium"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        try:
            yield instance
        finally:
            instance.close()


@pytest.fixture(scope="session")
def shots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where the screenshots of the pages go (printed at the end of the session)."""
    return tmp_path_factory.mktemp("screenshots")


CSP_WATCH = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(`${e.violatedDirective} blocked ${e.blockedURI || "inline"}`
                              + ` (${e.sourceFile || ""}:${e.lineNumber || 0})`);
});
"""


def watch_csp(page: Page) -> list[str]:
    """Collect the Content-Security-Policy violations of `page`: Chromium's console reports
    ("Refused to ...") and the ``securitypolicyviolation`` events (an init script, which the
    policy does not apply to). Call before the first navigation; the list fills as it goes."""
    reports: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        text = message.text
        if "Content Security Policy" in text or text.startswith("Refused to"):
            reports.append(text)

    page.on("console", on_console)
    page.add_init_script(CSP_WATCH)
    return reports


def csp_violations(page: Page, reports: list[str]) -> list[str]:
    """Everything `watch_csp` saw, plus the events recorded by the current document."""
    from playwright.sync_api import Error as PlaywrightError

    events: list[str] = []
    if not page.is_closed():
        try:
            events = page.evaluate("window.__cspViolations || []")
        except PlaywrightError:  # a page mid-navigation has no document to ask
            events = []
    return reports + list(events)


def new_page(browser: Browser, server: str,
             width: int = 1280) -> tuple[Page, Callable[[], None]]:
    """A fresh context (its own cookies: its own player) and page, `width` pixels wide (a
    phone's, touch and all, under 500), failing on JavaScript errors and Content-Security-
    Policy violations; returns the page and a check to call at the end."""
    phone = width < 500
    context = browser.new_context(viewport={"width": width, "height": 844 if phone else 900},
                                  base_url=server, is_mobile=phone, has_touch=phone)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    reports = watch_csp(page)

    def close() -> None:
        violations = csp_violations(page, reports)
        context.close()
        assert not errors, f"JavaScript errors on the page: {errors}"
        assert not violations, f"Content-Security-Policy violations: {violations}"

    return page, close


@pytest.fixture(params=[390, 1280], ids=["phone", "desktop"])
def any_page(request: pytest.FixtureRequest, browser: Browser,
             server: str) -> Iterator[Page]:
    """A page at a phone's width (390 px, touch) and at a desktop's, in turn."""
    page, close = new_page(browser, server, request.param)
    yield page
    close()


@pytest.fixture
def page(browser: Browser, server: str) -> Iterator[Page]:
    """A fresh browser context (its own cookies: its own player) and page. At the end, the
    page must have had no JavaScript error and no Content-Security-Policy violation."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=server)
    page = context.new_page()
    page.set_default_timeout(15_000)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    reports = watch_csp(page)
    yield page
    violations = csp_violations(page, reports)
    context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"
    assert not violations, f"Content-Security-Policy violations: {violations}"

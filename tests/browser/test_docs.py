"""The API docs in a real browser with the network cut off: Swagger UI comes from the app itself
(npm's swagger-ui-dist), runs under the pages' Content-Security-Policy and draws every route."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, Route, expect

from tests.browser.test_play import snap


def test_the_docs_render_offline(page: Page, server: str, shots: Path) -> None:
    elsewhere: list[str] = []

    def only_this_server(route: Route) -> None:
        if route.request.url.startswith(server + "/"):
            route.continue_()
        else:  # what a machine without network would see
            elsewhere.append(route.request.url)
            route.abort("internetdisconnected")

    page.context.route("**/*", only_this_server)
    loaded: list[str] = []
    page.on("response", lambda response: loaded.append(response.url))
    page.goto("/docs")
    expect(page.locator("#swagger-ui .opblock").first).to_be_visible()
    paths = page.locator("#swagger-ui .opblock-summary-path").all_inner_texts()
    assert any(p.startswith("/api/v1/matches") for p in paths), paths
    assert any("/hands/" in p for p in paths), paths
    assert elsewhere == []
    assert f"{server}/static/vendor/swagger-ui/swagger-ui-bundle.js" in loaded
    assert f"{server}/static/vendor/swagger-ui/swagger-ui.css" in loaded
    # Its stylesheet applied: an operation's method badge is drawn as Swagger UI styles it.
    badge = page.locator("#swagger-ui .opblock-summary-method").first
    assert badge.evaluate("el => getComputedStyle(el).textAlign") == "center"
    snap(page, shots, "docs")

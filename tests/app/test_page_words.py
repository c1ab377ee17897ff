"""What the pages say is true: the chart's caption describes only what is drawn, the coach calls
nothing costly that cost nothing, seats are named as the game's players name them, and the
explorer offers every move there is (through FastAPI's TestClient, as a browser without
JavaScript plays)."""

from __future__ import annotations

import pytest

from tests.app.conftest import AppFactory, AppHandle
from tests.app.test_pages import action_form, csrf, page, post_action, start


@pytest.fixture
def web(make_app: AppFactory) -> AppHandle:
    return make_app(seed=5)


def test_the_caption_describes_the_band_only_once_it_is_drawn(web: AppHandle) -> None:
    client = web.client
    url = start(client, "rps")
    seen_band = False
    for hand in range(1, 25):
        post_action(client, action_form(page(client, url)), "rock")
        doc = page(client, url)
        caption = doc.by_id("chart-caption").text
        drawn = doc.by_id("results-chart").find("path", cls="c-band") is not None
        assert drawn == ("shaded band is where" in caption), (hand, caption)
        if hand == 1:
            assert not drawn and "appears once your results have a spread" in caption
        seen_band = seen_band or drawn
        if seen_band:
            break
        client.post(f"{url}/next", data=csrf(client))
    assert seen_band

"""The topic-map page in headless chromium: 34K points drawn, hover shows the title, click opens the paper.

The served sample has 2,000 papers; the map JSON is multiplied to 34,000 points (real
papers, jittered copies) through Playwright's request routing, so the page draws the
corpus-sized map. Screenshot: artifacts/screenshots/topic-map-34k.png.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from urllib.parse import unquote, urlsplit

import numpy as np
import pytest
from playwright import sync_api

from papersift.server import create_app
from papersift.topics.classifier import WORDS_ONLY
from papersift.topics.plots import store_topic_trends
from papersift.topics.predict import predict_all
from papersift.topics.projection import map_points
from served_papers import (
    CHROMIUM,
    CHROMIUM_ARGS,
    CSP_WATCH,
    SCREENSHOTS,
    serve_in_thread,
    watched_page,
)

pytestmark = pytest.mark.browser
POINTS = 34_000
CANVAS_W, CANVAS_H, PAD = 900, 640, 8  # as in topics_map_page.html


@pytest.fixture(scope="module")
def live_server(topics_data_dir):
    predict_all(topics_data_dir, WORDS_ONLY)
    map_points(topics_data_dir, "pca")  # what `papersift topics map` stores; the server only reads it
    store_topic_trends(topics_data_dir)
    with serve_in_thread(create_app(topics_data_dir)) as base_url:
        yield base_url


def scaled_up(payload: dict, count: int) -> dict:
    """The real map payload repeated (with small jitter) to `count` points."""
    rng = np.random.default_rng(0)
    picks = np.arange(count) % payload["count"]
    jitter = rng.normal(0, 0.004, (count, 2))
    bigger = dict(payload, count=count)
    for key in ("ids", "titles", "area", "predicted"):
        bigger[key] = [payload[key][i] for i in picks]
    bigger["x"] = np.clip(np.asarray(payload["x"])[picks] + jitter[:, 0], 0, 1).round(4).tolist()
    bigger["y"] = np.clip(np.asarray(payload["y"])[picks] + jitter[:, 1], 0, 1).round(4).tolist()
    return bigger


def in_own_thread(check) -> None:
    """Playwright's sync API refuses a thread whose event loop another browser test holds."""
    failures = []

    def run():
        try:
            check()
        except BaseException as exc:  # noqa: BLE001 - re-raised in the test's thread
            failures.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join(timeout=240)
    assert not thread.is_alive(), "the browser check did not finish in 240 s"
    if failures:
        raise failures[0]


def test_topic_map_renders_34k_points_hover_and_click(live_server):
    assert Path(CHROMIUM).exists(), "install Debian's chromium (scripts/setup.sh)"
    in_own_thread(lambda: check_topic_map(live_server))


def check_topic_map(live_server: str) -> None:
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        context = browser.new_context(base_url=live_server, viewport={"width": 1400, "height": 1000})
        context.add_init_script(CSP_WATCH)
        page, errors = watched_page(context)
        page.on("console", lambda message: "Content Security Policy" in message.text and errors.append(message.text))

        def serve_big_map(route):
            real = route.fetch()
            route.fulfill(response=real, body=json.dumps(scaled_up(real.json(), POINTS)))

        page.route("**/api/topics/map*", serve_big_map)
        page.goto("/topics/map?lang=en")
        page.wait_for_selector("#topic-map[data-ready='1']", timeout=30_000)
        canvas = page.locator("#topic-map")
        assert canvas.get_attribute("data-points") == str(POINTS)
        draw_ms = float(canvas.get_attribute("data-draw-ms"))
        assert draw_ms > 0  # the page timed its draw; the figure is a benchmark, not a pass mark
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        (SCREENSHOTS.parent / "topic-map-draw.json").write_text(json.dumps({"points": POINTS, "draw_ms": draw_ms}))
        assert page.locator("#map-legend li").count() >= 5
        page.screenshot(path=str(SCREENSHOTS / "topic-map-34k.png"), full_page=True)

        payload = page.evaluate("fetch('/api/topics/map').then(r => r.json())")  # routed: the 34K version
        box = canvas.bounding_box()
        target = 0
        x = box["x"] + PAD + payload["x"][target] * (CANVAS_W - 2 * PAD)
        y = box["y"] + CANVAS_H - PAD - payload["y"][target] * (CANVAS_H - 2 * PAD)
        page.mouse.move(x, y)
        tip = page.locator("#map-tip")
        tip.wait_for(state="visible")
        hovered_id = canvas.get_attribute("data-hover-id")
        hovered_title = payload["titles"][payload["ids"].index(hovered_id)]
        assert hovered_title in tip.inner_text()
        page.screenshot(path=str(SCREENSHOTS / "topic-map-hover.png"))
        assert page.evaluate("window.__csp") == []  # the page passes the server's Content-Security-Policy
        page.mouse.click(x, y)
        page.wait_for_url("**/paper/**")
        assert unquote(urlsplit(page.url).path) == f"/paper/{hovered_id}"
        assert not errors, errors
        context.close()
        browser.close()

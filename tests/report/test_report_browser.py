"""The report in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

Where Playwright or Chromium is missing the tests say so and skip; ``.ci/run``
installs both. Set ``LCEL_AGENT_SCREENSHOTS=docs/img`` to refresh the pictures
the docs show (``make screenshots``); otherwise they go to a temporary folder.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest
from browser_support import Watched, chromium, require_browser

from lcel_agent.report import render_batch, render_run

sync_api, CHROMIUM = require_browser()


@pytest.fixture(scope="module")
def browser():
    with chromium(sync_api, CHROMIUM) as browser:
        yield browser


@pytest.fixture
def open_page(browser, tmp_path):
    contexts = []

    def open_(html: str, name: str) -> Watched:
        path = tmp_path / name
        path.write_text(html, encoding="utf-8")
        context = browser.new_context(viewport={"width": 1280, "height": 900})
        contexts.append(context)
        watched = Watched(context.new_page())
        watched.page.goto(path.as_uri())
        watched.page.wait_for_load_state("load")
        return watched

    yield open_
    for context in contexts:
        context.close()


def _screenshot_dir() -> Path:
    folder = os.environ.get("LCEL_AGENT_SCREENSHOTS")
    path = Path(folder) if folder else Path(tempfile.mkdtemp(prefix="lcel-agent-shots-"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def test_run_report_shows_every_loop_and_stage(open_page, timed_data):
    watched = open_page(render_run(timed_data), "run.html")
    page = watched.page

    loops = page.locator("details.loop")
    assert loops.count() == len(timed_data["steps"])
    for index, step in enumerate(timed_data["steps"]):
        row = loops.nth(index)
        assert row.locator("summary").is_visible()
        bars = row.locator("rect.stage")
        assert [bars.nth(i).get_attribute("data-name") for i in range(bars.count())] == [
            name for name, _ in step["stage_ms"]
        ]
        for i in range(bars.count()):
            box = bars.nth(i).bounding_box()
            assert box is not None and box["width"] >= 1 and box["height"] >= 5, (index, i)
        tools = row.locator("rect.tool")
        assert tools.count() == len(step["observations"])
        assert all(tools.nth(i).is_visible() for i in range(tools.count()))

    fourth = loops.nth(3)
    raw = fourth.locator("pre.raw")
    assert not raw.is_visible()
    fourth.locator("summary").click()  # a click opens the loop: reply, actions, observations
    assert raw.is_visible() and "broken" in raw.inner_text()
    assert fourth.locator("table.observations tbody tr").count() == 2

    page.get_by_role("button", name="open all").click()
    assert all(loops.nth(i).locator("pre.raw").is_visible() for i in range(loops.count()))
    page.get_by_label("failed loops only").check()
    visible = [loops.nth(i).is_visible() for i in range(loops.count())]
    assert visible == [s["error"] is not None for s in timed_data["steps"]]
    page.get_by_label("failed loops only").uncheck()
    page.get_by_role("button", name="close all").click()
    page.locator("details.loop").nth(0).locator("summary").click()

    assert page.locator("text=alert(").first.is_visible()  # the model's markup shows as text
    assert watched.errors == [] and watched.requests == []
    page.screenshot(path=str(_screenshot_dir() / "report-run.png"), full_page=True)


def test_batch_report_opens_each_run_in_one_click(open_page, timed_data):
    lines = []
    for i, stop in enumerate(["final", "max_errors", "final"]):
        data = {**timed_data, "stop_reason": stop, "elapsed_s": 0.4 + i}
        lines.append({"id": f"task-{i}", "input": f"问题 {i}", "result": data})
    watched = open_page(render_batch(lines, title="results.jsonl"), "batch.html")
    page = watched.page

    overview = page.locator("#overview")
    assert overview.is_visible()
    assert not page.locator("#run-2").is_visible()
    page.locator("a.run-link", has_text="task-1").click()
    assert page.locator("#run-2").is_visible() and not overview.is_visible()
    assert page.locator("#run-2 details.loop").count() == len(timed_data["steps"])
    page.locator("#run-2").get_by_role("link", name="← the batch").click()
    assert overview.is_visible() and not page.locator("#run-2").is_visible()

    assert watched.errors == [] and watched.requests == []
    page.screenshot(path=str(_screenshot_dir() / "report-batch.png"), full_page=False)

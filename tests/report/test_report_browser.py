"""The report in a real browser: headless Chromium (Debian's ``chromium``) driven by Playwright.

Where Playwright or Chromium is missing the tests say so and skip; ``.ci/run``
installs both. Set ``LCEL_AGENT_SCREENSHOTS=docs/img`` to refresh the pictures
the docs show (``make screenshots``); otherwise they go to a temporary folder.
"""

from __future__ import annotations

import json
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
    # The run page also holds a class that the hashchange handler takes away, after the click.
    sync_api.expect(overview).to_be_visible(timeout=5000)
    sync_api.expect(page.locator("#run-2")).to_be_hidden(timeout=5000)

    assert watched.errors == [] and watched.requests == []


# --- the report at scale, and labels that fit ------------------------------------------


def _label_fits(page, selector: str) -> list[tuple[str, bool]]:
    """``(text, inside its svg)`` for each chart's y-axis labels under ``selector``."""
    return page.evaluate(
        """sel => Array.from(document.querySelectorAll(sel + ' figure.chart svg')).flatMap(svg => {
            const box = svg.getBoundingClientRect();
            return Array.from(svg.querySelectorAll('text.tick[text-anchor=end]'))
              .filter(t => t.getAttribute('x') === '-4')
              .map(t => { const r = t.getBoundingClientRect();
                          return [t.textContent, r.left >= box.left - 0.5 && r.right <= box.right + 0.5]; });
        })""",
        selector,
    )


def test_a_batch_of_1000_runs_is_small_and_reads_right(browser, tmp_path, thousand_runs):
    # How fast it loads and sorts is measured by benchmarks/report_browser.py, not here.
    html = render_batch(thousand_runs, title="results.jsonl")
    size = len(html.encode("utf-8"))
    assert size <= 5 * 2**20, f"{size / 2**20:.1f} MB"
    path = tmp_path / "batch-1000.html"
    path.write_text(html, encoding="utf-8")

    context = browser.new_context(viewport={"width": 1280, "height": 900})
    watched = Watched(context.new_page())
    page = watched.page
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    page.locator("button[data-sort=tokens]").click()

    rows = page.locator("table.runs tbody tr")
    tokens = [int(r.get_attribute("data-tokens")) for r in rows.all()]
    every = sorted(line["result"]["usage"]["total_tokens"] for line in thousand_runs)
    # A number column sorts the biggest first: the 200 costliest of all 1,000 runs.
    assert tokens == every[::-1][:200]
    assert page.locator("th[aria-sort=descending] button").inner_text() == "tokens"
    page.locator("button[data-sort=id]").click()
    assert rows.first.get_attribute("data-id") == "q0"  # natural order: q0, q1, q2, ... q10
    assert rows.nth(10).get_attribute("data-id") == "q10"
    page.get_by_role("button", name="show 200 more").click()
    assert rows.count() == 400

    page.get_by_label("id or task").fill("q99")  # q99, q990 ... q999
    assert rows.count() == 11
    assert page.locator(".filters .shown").inner_text() == "11 of 11 runs shown (1000 in all)"
    page.get_by_label("id or task").fill("")
    for reason in sorted({line["result"]["stop_reason"] for line in thousand_runs}):
        page.get_by_label("stop").select_option(reason)
        expected = sum(line["result"]["stop_reason"] == reason for line in thousand_runs)
        said = page.locator(".filters .shown").inner_text()
        assert said.startswith(f"{min(expected, 200)} of {expected} runs"), said
        assert {r.get_attribute("data-stop") for r in rows.all()} == {reason}
    page.get_by_label("stop").select_option("")
    page.get_by_label("tokens ≥").fill("1000")
    expected = sum(n >= 1000 for n in every)
    said = page.locator(".filters .shown").inner_text()
    assert said.startswith(f"{min(expected, 200)} of {expected} runs"), said
    assert all(int(r.get_attribute("data-tokens")) >= 1000 for r in rows.all())
    page.get_by_label("tokens ≥").fill("")

    # Every y-axis label whole, "1,000 runs"-sized ones included.
    labels = _label_fits(page, "#overview")
    assert labels and all(fits for _, fits in labels), labels
    assert max(len(text) for text, _ in labels) >= len("100 runs")  # the kind that was cut
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    page.screenshot(path=str(_screenshot_dir() / "report-batch.png"), full_page=False)

    # A packed run opens in one click, its loops working.
    page.locator("a.run-link", has_text="q7").first.click()
    run = page.locator(".run-page.current")
    run.wait_for(timeout=5000)
    assert run.locator("details.loop").count() >= 1 and not page.locator("#overview").is_visible()
    run.get_by_role("button", name="open all").click()
    assert run.locator("pre.raw").first.is_visible()
    run.get_by_role("link", name="← the batch").click()
    # A packed run page hides the overview by a class the hashchange handler removes,
    # and browsers fire hashchange after the click returns: wait for it.
    sync_api.expect(page.locator("#overview")).to_be_visible(timeout=5000)
    assert watched.errors == [] and watched.requests == []
    context.close()


def test_one_distinct_value_reads_as_one_value(open_page, timed_data):
    lines = [{"id": f"t{i}", "input": "q", "result": timed_data} for i in range(3)]
    page = open_page(render_batch(lines, title="same.jsonl"), "same.html").page
    tokens = timed_data["usage"]["total_tokens"]
    chart = page.locator("figure.chart").first
    assert f"all 3 runs: {tokens:,} tokens" in chart.locator(".legend").inner_text()
    ticks = chart.locator("text.tick").all_text_contents()
    assert ticks.count(f"{tokens:,} tokens") == 1  # not "1,014 tokens … 1,014 tokens"
    assert not any("bins of" in t for t in page.locator(".legend").all_inner_texts())


@pytest.mark.parametrize("width", [760, 1280])
def test_labels_keep_to_their_place_at_any_width(browser, tmp_path, timed_data, width):
    # The widest badge of a loop row (an error class beside the window meter) never covers
    # the timeline track; a legend's swatch never leaves its label; no axis label is cut.
    data = json.loads(json.dumps(timed_data))
    data["steps"][1]["error"]["error_class"] = "bad_arguments"
    for step in data["steps"]:
        step["window_tokens"], step["window_budget"] = 12_345, 10_000
    path = tmp_path / "run.html"
    path.write_text(render_run(data), encoding="utf-8")
    context = browser.new_context(viewport={"width": width, "height": 900})
    page = context.new_page()
    page.goto(path.as_uri())
    # What the figures draw (their children may overflow their box), against the track.
    overlaps = page.evaluate(
        """() => Array.from(document.querySelectorAll('details.loop > summary')).map(s => {
            const track = s.querySelector('svg.track').getBoundingClientRect();
            const drawn = Array.from(s.querySelectorAll('.meta > span')).map(e => e.getBoundingClientRect().left);
            return Math.min(...drawn) - track.right; })"""
    )
    assert overlaps and min(overlaps) >= 0, overlaps
    widths = page.evaluate(
        "() => Array.from(document.querySelectorAll('svg.track')).map(t => t.getBoundingClientRect().width)"
    )
    assert max(widths) - min(widths) < 1, widths  # one scale: every track as wide as the others
    # Each swatch on the line of the first word of its label.
    split = page.evaluate(
        """() => Array.from(document.querySelectorAll('.legend .key')).filter(key => {
            let text = key.nextSibling;
            while (text && !(text.textContent || '').trim()) { text = text.nextSibling; }
            if (!text) { return true; }
            const range = document.createRange();
            range.selectNodeContents(text);
            const word = range.getClientRects()[0], box = key.getBoundingClientRect();
            return Math.abs((word.top + word.bottom) / 2 - (box.top + box.bottom) / 2) > 6;
        }).map(key => (key.nextSibling || {}).textContent)"""
    )
    assert split == []
    labels = _label_fits(page, "body")
    assert labels and all(fits for _, fits in labels), labels
    page.screenshot(path=str(tmp_path / f"run-{width}.png"), full_page=True)
    context.close()

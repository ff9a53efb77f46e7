"""The batch report of 1,000 runs in a real browser: how big it is, how fast it loads and sorts.

    .venv/bin/python benchmarks/report_browser.py [--loads 7] [--sorts 7]

Builds the 1,000 results lines the report tests use (:mod:`benchmarks._report_batch`:
40 real runs of a noisy simulated model on loopback, copied with their own ids, timings
and tokens), renders them with ``render_batch``, and opens the file in headless Chromium
(Debian's ``chromium``, ``LCEL_AGENT_CHROMIUM`` to use another) through Playwright, as
``tests/report/test_report_browser.py`` does. It prints the file's size, the time to
render it in Python, each load (navigation start to the end of the load event, measured
by the page) and each sort of the 1,000-row table on a click (measured in the page), with
their medians and best. The target this page was built to: loaded and sorted within a
second. Nothing is asserted; a shared machine's load shows in the spread.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(ROOT))

from playwright.sync_api import sync_playwright  # noqa: E402

from benchmarks._report_batch import thousand_runs  # noqa: E402
from lcel_agent.report import render_batch  # noqa: E402

# The flags the browser tests launch Chromium with: no sandbox as root, no calls home.
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip

_LOAD_MS = "performance.getEntriesByType('navigation')[0].loadEventEnd"
# One click on a column's sort button, timed in the page (the sort and the redraw of the
# rows run inside the click's handler).
_SORT_MS = """column => { const t0 = performance.now();
    document.querySelector(`button[data-sort=${column}]`).click();
    return performance.now() - t0; }"""


def _summary(name: str, values: list[float]) -> str:
    middle, best, worst = statistics.median(values), min(values), max(values)
    return f"{name} ({len(values)}): median {middle:.0f} ms, best {best:.0f}, worst {worst:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--loads", type=int, default=7, help="page loads to time")
    parser.add_argument("--sorts", type=int, default=7, help="sorts to time, after each load")
    args = parser.parse_args()
    chromium = os.environ.get("LCEL_AGENT_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        sys.exit("no chromium on the PATH (Debian: apt-get install chromium; .ci/run installs it)")

    lines = thousand_runs()
    started = time.perf_counter()
    html = render_batch(lines, title="results.jsonl")
    render_ms = (time.perf_counter() - started) * 1000
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "batch-1000.html"
        path.write_text(html, encoding="utf-8")
        loads: list[float] = []
        sorts: list[float] = []
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(
                executable_path=chromium, headless=True, args=FLAGS
            )
            page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
            page.route(
                "**/*", lambda r: r.continue_() if r.request.url.startswith("file:") else r.abort()
            )
            for _ in range(args.loads):
                page.goto(path.as_uri())
                page.wait_for_load_state("load")
                loads.append(page.evaluate(_LOAD_MS))
                # Alternate the columns, so every click really reorders 1,000 rows.
                for n in range(args.sorts):
                    sorts.append(page.evaluate(_SORT_MS, "tokens" if n % 2 == 0 else "id"))
            version = browser.version
            browser.close()

    print(f"1,000-run batch report, Chromium {version}")
    print(f"size: {len(html.encode('utf-8')) / 2**20:.2f} MB; render_batch: {render_ms:.0f} ms")
    print(_summary("load", loads))
    print(_summary("sort", sorts))
    total = statistics.median(loads) + statistics.median(sorts)
    print(f"load + sort, medians: {total:.0f} ms (target: under 1,000 ms)")


if __name__ == "__main__":
    main()

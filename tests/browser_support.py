"""Headless Chromium for the report and docs tests: Debian's ``chromium`` driven by Playwright.

Playwright never downloads a browser here: it launches the system's Chromium
(``LCEL_AGENT_CHROMIUM``, else ``chromium`` on the PATH). :func:`require_browser`
skips the calling test module, saying why, where either is missing; ``.ci/run``
installs both.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

# What Chromium needs on these machines: no sandbox as root, and no calls home.
FLAGS = [
    "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


def require_browser() -> tuple[Any, str]:
    """``(playwright.sync_api, chromium path)``, or skip the module with the reason."""
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (the 'browser' extra)"
    )
    path = os.environ.get("LCEL_AGENT_CHROMIUM") or shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(path).is_file():
        pytest.skip(
            f"no Chromium at {path} (Debian: apt-get install chromium; .ci/run installs it)",
            allow_module_level=True,
        )
    return sync_api, path


@contextmanager
def chromium(sync_api: Any, path: str) -> Iterator[Any]:
    """A headless Chromium browser, closed on exit."""
    with sync_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=path, headless=True, args=FLAGS)
        try:
            yield browser
        finally:
            browser.close()


class Watched:
    """A page with every console error, page error and non-local request it caused.

    Requests for anything but ``file://`` are recorded and refused: nothing leaves.
    """

    def __init__(self, page: Any) -> None:
        self.page = page
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.route("**/*", self._route)

    def _route(self, route: Any) -> None:
        url = route.request.url
        if url.startswith("file://"):
            route.continue_()
        else:
            self.requests.append(url)
            route.abort()

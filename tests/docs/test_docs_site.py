"""The site ``make docs`` builds: quiet in a pipe, opens from disk, requests nothing outside.

Needs the ``docs`` extra (mkdocs); the environment of ``make test`` has it, the pinned
stack's does not, and there the module says so and skips.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from docs_support import ROOT

pytest.importorskip("mkdocs", reason="mkdocs is not installed (the 'docs' extra)")
pytest.importorskip("material", reason="mkdocs-material is not installed (the 'docs' extra)")

_EXTERNAL = re.compile(r"^(https?:)?//", re.I)


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[tuple[str, str, str]] = []  # (tag, attribute, value)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for key, value in attrs:
            if key in ("href", "src", "srcset", "data", "poster") and value:
                self.links.append((tag, key, value))


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess[str]]:
    """The site, built by the Makefile's own docs recipe into a temporary folder."""
    site = tmp_path_factory.mktemp("site")
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    recipe = re.search(r"^docs:.*\n\t(.+)$", makefile, re.M)
    assert recipe, "no docs target in the Makefile"
    command = recipe.group(1).replace("$(VENV)/bin/", f"{Path(sys.executable).parent}/")
    command = command.replace("--site-dir site", f"--site-dir {site}")
    done = subprocess.run(
        command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return site, done


def _pages(site: Path) -> list[Path]:
    # 404.html is for a web server to send (its links are absolute); no page links to it.
    return sorted(p for p in site.rglob("*.html") if p.name != "404.html")


def _links(site: Path) -> Iterator[tuple[Path, str, str, str]]:
    """``(page, tag, attribute, value)`` for every URL-valued attribute of every page."""
    for page in _pages(site):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8"))
        for tag, attribute, value in parser.links:
            yield page, tag, attribute, value


def test_the_build_prints_no_colour_codes_into_a_pipe(built):
    _, done = built
    assert "\x1b[" not in done.stdout + done.stderr
    assert "Zensical" not in done.stdout + done.stderr  # the theme's banner


def test_every_link_opens_a_file_from_disk(built):
    site, _ = built
    broken = []
    for page, tag, attribute, value in _links(site):
        path = urlsplit(value).path
        if (
            _EXTERNAL.match(value)
            or value.startswith(("mailto:", "data:", "javascript:"))
            or not path
        ):
            continue
        if not (page.parent / unquote(path)).resolve().is_file():  # a folder opens as a listing
            broken.append(f"{page.relative_to(site)}: <{tag} {attribute}={value!r}>")
    assert broken == []
    assert len(_pages(site)) >= 10


def test_nothing_is_loaded_from_the_internet(built):
    site, _ = built
    # A plain <a> to elsewhere is a link a reader may follow; anything else is a load.
    fetches = [
        f"{page.relative_to(site)}: <{tag} {attribute}={value!r}>"
        for page, tag, attribute, value in _links(site)
        if _EXTERNAL.match(value) and tag != "a"
    ]
    for sheet in site.rglob("*.css"):
        css = sheet.read_text(encoding="utf-8")
        fetches += [
            f"{sheet.name}: {m}"
            for m in re.findall(r"@import[^;]*|url\(\s*['\"]?(?:https?:)?//[^)]*\)", css)
        ]
    assert fetches == []


def test_the_site_works_from_disk_in_a_browser(built):
    from browser_support import Watched, chromium, require_browser

    sync_api, path = require_browser()
    site, _ = built
    with chromium(sync_api, path) as browser:
        watched = Watched(browser.new_page())
        page = watched.page
        page.goto((site / "index.html").as_uri())
        for title in ("Command line", "Run reports", "Architecture"):
            page.get_by_role("navigation").get_by_role("link", name=title).first.click()
            page.wait_for_load_state("load")
            assert page.url.endswith(".html"), page.url
            assert page.locator("h1").first.is_visible()
        page.keyboard.press("s")  # the theme's search shortcut
        page.keyboard.type("sliding window")
        page.locator(".md-search-result__item").first.wait_for(timeout=10_000)
        assert page.locator(".md-search-result__item").count() > 0

    assert watched.errors == [] and watched.requests == []

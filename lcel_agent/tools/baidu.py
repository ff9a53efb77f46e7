"""``search_baidu``: the top results of a Baidu web search, as JSON.

``BAIDU_BASE_URL`` (read at call time) points the tool elsewhere, e.g. at
:class:`lcel_agent.testing.services.FakeBaiduServer`::

    from lcel_agent.tools import search_baidu
    search_baidu.invoke("台风最新路径")
    # '[{"title": "台风最新路径实时发布", "link": "http://www.baidu.com/link?url=..."}, ...]'

Baidu answers unknown clients with a verification page ("百度安全验证") or a
redirect to wappass.baidu.com; both become an ``ERROR:`` result, as does a
page without results.
"""

from __future__ import annotations

import json
import os
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import requests
from pydantic import Field

from lcel_agent.tools._args import SingleArgInput, text_problem
from lcel_agent.tools._http import BROWSER_USER_AGENT, HttpTool, fetch

__all__ = [
    "DEFAULT_BAIDU_BASE_URL",
    "BaiduSearchTool",
    "SearchInput",
    "parse_results",
    "search_baidu",
]

DEFAULT_BAIDU_BASE_URL = "https://www.baidu.com"
_SERVICE = "Baidu search"
_MAX_QUERY_CHARS = 200
_MAX_REDIRECTS = 3
_RESULT_CLASSES = frozenset({"result", "c-container", "result-op"})
_VERIFY_MARKERS = ("百度安全验证", "wappass.baidu.com", "captcha")


class SearchInput(SingleArgInput):
    """Arguments of ``search_baidu``."""

    query: str = Field(description="搜索词")


class _ResultParser(HTMLParser):
    """Collects ``h3 > a`` of each ``div.result`` / ``div.c-container`` and the ``<title>``.

    A result container's nested containers belong to it: only its first title
    link counts, so a card is never listed twice.
    """

    def __init__(self, base_url: str) -> None:
        super().__init__(convert_charrefs=True)
        self.base_url = base_url
        self.results: list[dict[str, str]] = []
        self.title = ""
        self._in_title = False
        self._div_depth = 0
        self._container_depth: int | None = None
        self._container_done = False
        self._in_h3 = False
        self._href: str | None = None
        self._text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "title":
            self._in_title = True
        elif tag == "div":
            self._div_depth += 1
            classes = set((dict(attrs).get("class") or "").split())
            if self._container_depth is None and classes & _RESULT_CLASSES:
                self._container_depth = self._div_depth
                self._container_done = False
        elif tag == "h3" and self._container_depth is not None and not self._container_done:
            self._in_h3 = True
        elif tag == "a" and self._in_h3 and self._href is None:
            href = dict(attrs).get("href")
            if href:
                self._href = urljoin(self.base_url, href)
                self._text = []

    def handle_endtag(self, tag: str) -> None:
        if tag == "title":
            self._in_title = False
        elif tag == "a" and self._href is not None:
            self._finish_link()
        elif tag == "h3":
            if self._href is not None:  # an <a> left open inside the h3
                self._finish_link()
            self._in_h3 = False
        elif tag == "div" and self._div_depth > 0:
            if self._div_depth == self._container_depth:
                self._container_depth = None
                self._in_h3 = False
            self._div_depth -= 1

    def handle_data(self, data: str) -> None:
        if self._in_title:
            self.title += data
        if self._href is not None:
            self._text.append(data)

    def _finish_link(self) -> None:
        title = " ".join("".join(self._text).split())
        link, self._href = self._href, None
        if title and link and urlsplit(link).scheme in ("http", "https"):
            self.results.append({"title": title, "link": link})
            self._container_done = True


def parse_results(
    html: str, base_url: str = DEFAULT_BAIDU_BASE_URL
) -> tuple[str, list[dict[str, str]]]:
    """Return the page's ``<title>`` and its results ``[{"title", "link"}, ...]`` in order."""
    parser = _ResultParser(base_url)
    parser.feed(html)
    parser.close()
    return " ".join(parser.title.split()), parser.results


def _check_query(query: str) -> str | None:
    return text_problem(query, "the search query", _MAX_QUERY_CHARS, "give a few words to search")


def _decode(response: requests.Response) -> str:
    # Without a charset requests assumes ISO-8859-1 for text/html; Baidu is UTF-8.
    if "charset=" in response.headers.get("Content-Type", "").lower() and response.encoding:
        return response.content.decode(response.encoding, errors="replace")
    return response.content.decode("utf-8", errors="replace")


_VERIFY_ERROR = (
    "ERROR: Baidu answered with its verification page (百度安全验证) instead of results: "
    "it suspects automated traffic; try again later or use another tool"
)


class BaiduSearchTool(HttpTool):
    """Baidu web search, top results as a JSON list (see the module docstring)."""

    name: str = "search_baidu"
    description: str = "百度搜索，前 3 条结果的标题和链接"
    args_schema: type[SearchInput] = SearchInput
    max_results: int = 3
    request_timeout: float = 8.0
    """Seconds one HTTP attempt may take."""
    time_limit: float = 20.0
    """Seconds the whole call may take; published as ``metadata["timeout"]``."""

    def _call(self, query: str) -> str:
        if problem := _check_query(query):
            return problem
        base = (os.environ.get("BAIDU_BASE_URL", "").strip() or DEFAULT_BAIDU_BASE_URL).rstrip("/")
        url, params = base + "/s", {"wd": query}
        for _ in range(_MAX_REDIRECTS + 1):
            answer = fetch(
                _SERVICE,
                url,
                params=params,
                headers={
                    "User-Agent": BROWSER_USER_AGENT,
                    "Accept": "text/html,application/xhtml+xml",
                    "Accept-Language": "zh-CN,zh;q=0.9",
                },
                **self.fetch_limits(),
                # Redirects are followed by hand: one to wappass.baidu.com is the
                # verification page, and must not be fetched.
                allow_redirects=False,
            )
            if isinstance(answer, str):
                return answer
            if not answer.is_redirect:
                return self._read(answer, query, url)
            location = urljoin(url, answer.headers.get("Location", ""))
            if "wappass.baidu.com" in location or "captcha" in location:
                return _VERIFY_ERROR
            if urlsplit(location).netloc != urlsplit(base).netloc:
                return f"ERROR: {_SERVICE} redirected to another site ({urlsplit(location).netloc})"
            url, params = location, {}
        return f"ERROR: {_SERVICE} redirected too many times"

    def _read(self, response: requests.Response, query: str, url: str) -> str:
        if response.status_code != 200:
            return f"ERROR: {_SERVICE} answered HTTP {response.status_code}"
        html = _decode(response)
        title, results = parse_results(html, url)
        if "百度安全验证" in title or (not results and any(m in html for m in _VERIFY_MARKERS)):
            return _VERIFY_ERROR
        if not results:
            return f"ERROR: Baidu found no results for '{query}': try other keywords"
        return json.dumps(results[: self.max_results], ensure_ascii=False)


search_baidu = BaiduSearchTool()
"""The ready-made tool: ``search_baidu.invoke("台风最新路径")``."""

"""A small HTML reader for the report tests (stdlib only)."""

from __future__ import annotations

import re
from html.parser import HTMLParser

#: What the model says in its answer: markup and a link that must stay inert text.
HOSTILE = '北京晴 <script>alert("x")</script> <img src="https://evil.example/p.png"> https://evil.example/x'

#: Attributes that make a browser fetch something, and CSS that does.
_FETCHING = ("src", "href", "srcset", "data", "poster", "action", "formaction")
_CSS_URL = re.compile(r"@import|url\(\s*['\"]?\s*(?!#|data:)", re.I)


class Page(HTMLParser):
    """Every element's tag and attributes, in document order, and the page's text."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.texts: list[str] = []
        self.feed(html)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.elements.append((tag, {k: v or "" for k, v in attrs}))

    def handle_data(self, data: str) -> None:
        self.texts.append(data)

    @property
    def text(self) -> str:
        return "".join(self.texts)

    def find(self, tag: str, **attrs: str) -> list[dict[str, str]]:
        """Elements of ``tag`` whose attributes contain every given value (class by word)."""
        found = []
        for name, have in self.elements:
            if name != tag:
                continue
            ok = True
            for key, want in attrs.items():
                key = key.rstrip("_")
                value = have.get(key)
                if value is None or (
                    want not in value.split() if key == "class" else value != want
                ):
                    ok = False
            if ok:
                found.append(have)
        return found

    def external_urls(self) -> list[str]:
        """Every URL the page would fetch or link to outside itself."""
        urls = [
            value
            for _, attrs in self.elements
            for key, value in attrs.items()
            if key in _FETCHING and not value.startswith(("#", "data:")) and value
        ]
        return urls


def css_fetches(html: str) -> list[str]:
    """``@import`` rules and ``url(...)`` references to anything but the page itself."""
    styles = re.findall(r"<style[^>]*>(.*?)</style>", html, re.S)
    return [m.group(0) for css in styles for m in _CSS_URL.finditer(css)]

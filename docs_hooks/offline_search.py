"""MkDocs hook: site search that works when the built site is opened from disk.

Browsers refuse ``fetch`` on ``file://``, so the theme's search worker loads its
index as a script, ``search/search_index.js`` (``var __index = {...}``), when the
page is not served. mkdocs-material's ``offline`` plugin writes that file too, but
also adds a script from a CDN to every page; this hook writes only the index.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any


def on_post_build(config: Any, **kwargs: Any) -> None:
    index = Path(config["site_dir"]) / "search" / "search_index.json"
    if index.is_file():
        script = "var __index = " + index.read_text(encoding="utf-8")
        index.with_suffix(".js").write_text(script, encoding="utf-8")

"""Reading the project's own documents in tests."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def code_blocks(markdown: str, heading: str, language: str = "python") -> list[str]:
    """The ``language`` code blocks under ``heading`` (up to the next heading of its level)."""
    level = heading.split(" ", 1)[0]
    start = markdown.index(heading + "\n")
    rest = markdown[start + len(heading) :]
    stop = re.search(rf"^{re.escape(level)} ", rest, re.M)
    section = rest[: stop.start()] if stop else rest
    return re.findall(rf"```{language}\n(.*?)```", section, re.S)

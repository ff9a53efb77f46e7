"""Make a text cost fewer tokens while keeping what it says readable.

Two ways to shorten, both searching for the longest version that fits a token
target (O(log n) counter calls):

* :func:`shrink_text` keeps a JSON list whole item by item when the text holds
  one (a search result stays valid JSON with its first hits intact), else the
  head and the tail around a visible ``…[truncated N chars]…`` marker;
* :func:`head_text` keeps the head only (digest lines: the start of a result
  says most about it), again item by item for a JSON list.

::

    shrink_text('Observation [search]: [{"title": "a"}, {"title": "b"}]', 12, len)
    # 'Observation [search]: [{"title": "a"}] …(+1 more)'
"""

from __future__ import annotations

import json
from collections.abc import Callable

from langchain_core.messages import BaseMessage

from lcel_agent._shared.messages import message_text

from .counters import TokenCounter, count_message

__all__ = ["head_text", "longest", "shrink_message", "shrink_text", "truncate_text"]

_DECODER = json.JSONDecoder()


def truncate_text(text: str, keep: int) -> str:
    """Shorten ``text`` to ``keep`` of its characters (head and tail) around a visible marker."""
    if keep >= len(text):
        return text
    keep = max(keep, 0)
    tail = keep // 3
    head = keep - tail
    return f"{text[:head]}…[truncated {len(text) - keep} chars]…{text[len(text) - tail :]}"


def _head(text: str, keep: int) -> str:
    if keep >= len(text):
        return text
    return text[: max(keep, 0)] + "…"


def _json_list(text: str, least: int = 2) -> tuple[int, int, list[object]] | None:
    """``(start, end, items)`` of the first JSON list of ``least`` or more items in ``text``."""
    index = text.find("[")
    while index >= 0:
        try:
            value, end = _DECODER.raw_decode(text, index)
        except ValueError:
            value, end = None, index
        if isinstance(value, list) and value and len(value) >= least:
            return index, end, value
        index = text.find("[", index + 1)
    return None


def longest(size: int, render: Callable[[int], str], target: int, counter: TokenCounter) -> str:
    """``render(k)`` for the largest ``k`` in ``0..size`` costing at most ``target`` (else k=0)."""
    lo, hi = 0, size
    best = render(0)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        candidate = render(mid)
        if counter(candidate) <= target:
            lo, best = mid, candidate
        else:
            hi = mid - 1
    return best


def _items_text(text: str, found: tuple[int, int, list[object]], count: int) -> str:
    """``text`` with its JSON list cut to the first ``count`` items and a ``…(+n more)`` mark."""
    start, end, items = found
    kept = json.dumps(items[:count], ensure_ascii=False)
    return f"{text[:start]}{kept} …(+{len(items) - count} more){text[end:]}"


def _by_items(text: str, target: int, counter: TokenCounter) -> str | None:
    found = _json_list(text)
    if found is None:
        return None
    start = found[0]
    best = longest(
        len(found[2]) - 1, lambda count: _items_text(text, found, count), target, counter
    )
    # One whole item is the least worth keeping in this form; below that, cut the text.
    return best if counter(best) <= target and not best[start:].startswith("[]") else None


def shrink_text(text: str, target: int, counter: TokenCounter) -> str:
    """The longest shortening of ``text`` costing at most ``target`` tokens (see module doc).

    If not even the marker fits, the marker alone is returned: as small as it gets.
    """
    if counter(text) <= target:
        return text
    return _by_items(text, target, counter) or longest(
        len(text) - 1, lambda keep: truncate_text(text, keep), target, counter
    )


def head_text(text: str, target: int, counter: TokenCounter, *, whole_item: bool = False) -> str:
    """The longest head of ``text`` (whole JSON list items first) costing at most ``target``.

    ``whole_item=True`` never cuts inside the first item of a JSON list: when not even
    one item fits, that item is kept whole anyway (over ``target``), because half a
    search hit says nothing.
    """
    if counter(text) <= target:
        return text
    items = _by_items(text, target, counter)
    if items is not None:
        return items
    if whole_item and (found := _json_list(text, least=1)) is not None:
        # Already down to one item (``[{…}] …(+2 more)``): that is as short as it gets.
        return text if len(found[2]) == 1 else _items_text(text, found, 1)
    return longest(len(text) - 1, lambda keep: _head(text, keep), target, counter)


def shrink_message(
    message: BaseMessage, target: int, counter: TokenCounter
) -> tuple[BaseMessage, int]:
    """``message`` shortened to cost at most ``target`` tokens (or as little as it can)."""
    text = message_text(message)
    framing = count_message(message, counter) - counter(text)
    smaller = message.model_copy(
        update={"content": shrink_text(text, max(target - framing, 0), counter)}
    )
    return smaller, count_message(smaller, counter)

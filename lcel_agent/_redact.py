"""Keep secrets out of everything the agent prints, stores or sends to the model.

Use :func:`redact` on any text that comes from outside (an exception message, a
tool result, an HTTP error body) before it reaches a result, a log, a trace or
the model's context::

    from lcel_agent._redact import redact
    safe = redact(str(exc))

Two kinds of secret are removed:

* values: the current values of the environment variables in
  :data:`SECRET_ENV_VARS` and any value passed to :func:`register_secret`;
* shapes: ``key=``/``api_key=``/``token=``-style query parameters and
  ``Authorization: Bearer ...`` headers, whose value is replaced whatever it is,
  because requests' and httpx's messages quote whole URLs.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable

__all__ = ["REDACTED", "SECRET_ENV_VARS", "redact", "register_secret"]

REDACTED = "***"

#: Environment variables whose values are secrets wherever they appear.
SECRET_ENV_VARS: tuple[str, ...] = (
    "OPENAI_API_KEY",
    "AMAP_KEY",
    "AZURE_OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
)

# Secrets shorter than this are not matched by value: replacing every "a" or "1"
# in a text would destroy it and protect nothing.
_MIN_SECRET_LEN = 6

_registered: set[str] = set()
_lock = threading.Lock()

_QUERY_SECRET = re.compile(
    r"(?i)(?P<name>[?&;\s\"'](?:key|api_?key|apikey|access_?token|token|secret|password|sig|signature)=)"
    r"(?P<value>[^&#\s\"'<>]+)"
)
_BEARER = re.compile(r"(?i)(?P<name>bearer\s+)(?P<value>[A-Za-z0-9._~+/=-]{6,})")
_SK_KEY = re.compile(r"\bsk-[A-Za-z0-9_-]{8,}")


def register_secret(value: str | None) -> None:
    """Add a secret value that :func:`redact` removes from every text from now on.

    Values shorter than six characters are ignored (see the module docstring).
    """
    if value and len(value) >= _MIN_SECRET_LEN:
        with _lock:
            _registered.add(value)


def _secret_values(extra: Iterable[str]) -> list[str]:
    values = {v for v in extra if v and len(v) >= _MIN_SECRET_LEN}
    for name in SECRET_ENV_VARS:
        value = os.environ.get(name)
        if value and len(value) >= _MIN_SECRET_LEN:
            values.add(value)
    with _lock:
        values |= _registered
    # Longest first, so a secret that contains another is removed whole.
    return sorted(values, key=len, reverse=True)


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Return ``text`` with every known secret value and secret-shaped token masked."""
    if not text:
        return text
    for value in _secret_values(secrets):
        if value in text:
            text = text.replace(value, REDACTED)
    text = _QUERY_SECRET.sub(lambda m: m.group("name") + REDACTED, text)
    text = _BEARER.sub(lambda m: m.group("name") + REDACTED, text)
    return _SK_KEY.sub("sk-" + REDACTED, text)

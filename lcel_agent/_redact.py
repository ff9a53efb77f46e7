"""Keep secrets out of everything the agent returns, logs, stores or sends to the model.

Use :func:`redact` on any text that comes from outside (an exception message, a
tool result, an HTTP error body, a model reply) before it reaches a result, a
log, a trace or the model's context::

    from lcel_agent._redact import redact
    safe = redact(str(exc))

Two kinds of secret are removed:

* values: the current values of the environment variables in
  :data:`SECRET_ENV_VARS` and every value passed to :func:`register_secret`
  (``create_agent`` registers the model's API key, the keys it finds on the
  tools, and its ``secrets=``). Each value is also matched in the forms it
  takes on its way out: without surrounding whitespace (a key read from a file
  keeps its newline), without a vendor prefix such as ``sk-`` (providers that
  refuse a key often echo it so), URL-encoded, and JSON- or ``repr``-escaped;
* shapes: ``key=``/``api_key=``/``token=``-style query parameters,
  ``Authorization: Bearer ...`` values and ``sk-...`` keys, replaced whatever
  they are, because requests' and httpx's messages quote whole URLs.

Redaction runs on hot paths (every reply, observation and error): the forms of
the known secrets are worked out once, when a secret is registered or a watched
environment variable changes, and each is then one substring search; the
shapes' regular expression runs only on texts that contain what every shape
needs (an ``=``, ``sk-`` or ``bearer``).
"""

from __future__ import annotations

import json
import os
import re
import threading
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = [
    "MIN_SECRET_LEN",
    "REDACTED",
    "SECRET_ENV_VARS",
    "redact",
    "redact_value",
    "register_secret",
    "register_secrets",
    "secrets_in",
]

REDACTED = "***"

#: Environment variables whose values are secrets wherever they appear.
SECRET_ENV_VARS: tuple[str, ...] = (
    "OPENAI_API_KEY",
    "AMAP_KEY",
    "AZURE_OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
)

#: Secrets shorter than this are not matched by value: replacing every "a" or "1"
#: in a text would destroy it and protect nothing.
MIN_SECRET_LEN = 6
# A key's body without its vendor prefix must be longer still to count as the key.
_MIN_BODY_LEN = 16
_VENDOR_PREFIX = re.compile(r"^[A-Za-z]{2,8}[-_]")

_SHAPES = (
    r"(?P<query>[?&;\s\"'](?i:key|api_?key|apikey|access_?token|token|secret|password|sig|signature)=)"
    r"[^&#\s\"'<>]+"
    r"|(?P<bearer>(?i:bearer)\s+)[A-Za-z0-9._~+/=-]{6,}"
    r"|(?P<sk>\bsk-)[A-Za-z0-9_-]{8,}"
)

_SHAPE_PATTERN = re.compile(_SHAPES)
# Every shape needs one of these: texts without any skip the regular expression.
_SHAPE_HINTS = ("=", "sk-", "earer", "EARER")

_lock = threading.Lock()
_registered: dict[str, None] = {}  # an ordered set of every form of every registered secret
_version = 0
# (registry version, watched environment values, every form of every secret, longest first)
_known: tuple[int, tuple[Any, ...], tuple[str, ...]] = (-1, (), ())


def _forms(value: str) -> set[str]:
    """The forms a secret value takes in the texts it leaks into."""
    forms = {value, value.strip()}
    core = value.strip()
    bodies = [core]
    for _ in range(2):  # "sk-proj-XYZ" is echoed as "proj-XYZ" or as "XYZ"
        body = _VENDOR_PREFIX.sub("", bodies[-1], count=1)
        if body == bodies[-1] or len(body) < _MIN_BODY_LEN:
            break
        bodies.append(body)
    for form in bodies:
        forms.add(form)
        forms.add(urllib.parse.quote(form, safe=""))
        forms.add(urllib.parse.quote_plus(form))
        forms.add(json.dumps(form, ensure_ascii=False)[1:-1])
        forms.add(repr(form)[1:-1])
    return {f for f in forms if len(f) >= MIN_SECRET_LEN}


def register_secret(value: str | None) -> None:
    """Add a secret value that :func:`redact` removes from every text from now on.

    Values shorter than six characters are ignored (see the module docstring).
    """
    register_secrets([value])


def register_secrets(values: Iterable[str | None]) -> None:
    """Register several secret values at once (see :func:`register_secret`)."""
    global _version
    new = [f for v in values if v and len(v.strip()) >= MIN_SECRET_LEN for f in _forms(v)]
    with _lock:
        fresh = [f for f in new if f not in _registered]
        if fresh:
            _registered.update(dict.fromkeys(fresh))
            _version += 1


# os.environ's own store, read without decoding every value on every call (a sixth of a
# microsecond a variable instead of one and a half): a watched variable that changes is
# still seen on the very next call. Any other mapping falls back to the public API.
_ENV_STORE: Any = getattr(os.environ, "_data", None)
_encode = getattr(os.environ, "encodekey", None)
_ENV_KEYS: tuple[Any, ...] = (
    tuple(_encode(name) for name in SECRET_ENV_VARS) if _ENV_STORE is not None and _encode else ()
)


def _env_snapshot() -> tuple[Any, ...]:
    if _ENV_KEYS:
        return tuple(map(_ENV_STORE.get, _ENV_KEYS))
    return tuple(map(os.environ.get, SECRET_ENV_VARS))


def _secret_forms() -> tuple[str, ...]:
    global _known
    env = _env_snapshot()
    version, seen_env, forms = _known
    if version == _version and seen_env == env:
        return forms
    with _lock:
        values = set(_registered)
        for name in SECRET_ENV_VARS:
            value = os.environ.get(name)
            if value and len(value.strip()) >= MIN_SECRET_LEN:
                values |= _forms(value)
        # Longest first, so a secret that contains another is removed whole.
        forms = tuple(sorted(values, key=len, reverse=True))
        _known = (_version, env, forms)
    return forms


def _mask(match: re.Match[str]) -> str:
    return (match.group("query") or match.group("bearer") or match.group("sk")) + REDACTED


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Return ``text`` with every known secret value and secret-shaped token masked.

    ``secrets`` are extra values for this call only.
    """
    if not text:
        return text
    forms = _secret_forms()
    extra = [v for v in secrets if v and len(v.strip()) >= MIN_SECRET_LEN]
    if extra:
        forms = tuple(
            sorted({*forms, *(f for v in extra for f in _forms(v))}, key=len, reverse=True)
        )
    # A substring search per form is far faster than one alternation of them all in `re`.
    for form in forms:
        if form in text:
            text = text.replace(form, REDACTED)
    if any(hint in text for hint in _SHAPE_HINTS):
        text = _SHAPE_PATTERN.sub(_mask, text)
    return text


def redact_value(value: Any) -> Any:
    """``value`` with :func:`redact` applied to every string inside it (dicts, lists, tuples)."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {k: redact_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_value(v) for v in value)
    return value


# A plain-string field or mapping key is a secret when its name says so: "openai_api_key",
# "x-api-key", "Ocp-Apim-Subscription-Key", "client_secret", "auth_token", "Authorization",
# "password"; not "prompt_cache_key", "max_tokens" or "tiktoken_model_name".
_SECRET_NAME = re.compile(
    r"(?i)^(?:key|token|secret|password|passwd|authorization|apikey)$"
    r"|(?:^|[_-])(?:api|secret|access|private|auth|subscription|client)[_-]?key$"
    r"|(?:^|[_-])(?:secret|password|passwd|(?:access|auth|api|bearer|refresh|session)[_-]?token)$"
)


def secrets_in(*objects: Any, max_depth: int = 8) -> list[str]:
    """The secret values held by ``objects``: chat models, tools, Runnables around them.

    Finds every ``SecretStr``/``SecretBytes`` in pydantic fields (a ``ChatOpenAI``'s
    ``openai_api_key``), at any depth through bindings, fallbacks and sequences, and
    plain strings under secret-sounding names (fields, ``default_headers`` entries).
    """
    # Imported here: this module is on the command line's fast path, which must not pay for pydantic.
    from pydantic import BaseModel, SecretBytes, SecretStr

    found: list[str] = []
    seen: set[int] = set()

    def visit(value: Any, depth: int, name: str = "") -> None:
        if isinstance(value, SecretStr):
            found.append(value.get_secret_value())
        elif isinstance(value, SecretBytes):
            found.append(value.get_secret_value().decode("utf-8", "replace"))
        elif isinstance(value, str):
            if name and _SECRET_NAME.search(name):
                found.append(value.removeprefix("Bearer ").removeprefix("bearer "))
        elif depth < max_depth and id(value) not in seen:
            seen.add(id(value))
            if isinstance(value, BaseModel):
                for field in type(value).model_fields:
                    visit(getattr(value, field, None), depth + 1, field)
            elif isinstance(value, Mapping):
                for key, item in value.items():
                    visit(item, depth + 1, str(key))
            elif isinstance(value, list | tuple | set | frozenset):
                for item in value:
                    visit(item, depth + 1, name)

    for obj in objects:
        visit(obj, 0)
    return [s for s in dict.fromkeys(found) if len(s.strip()) >= MIN_SECRET_LEN]

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
  tools, and its ``secrets=``). Each value is matched in the forms it takes on
  its way out: without surrounding whitespace (a key read from a file keeps its
  newline), without a known prefix (:data:`KNOWN_PREFIXES`: ``sk-``,
  ``sk-proj-``, ``Bearer `` ...; providers that refuse a key often echo its body
  so), URL-encoded, and JSON- or ``repr``-escaped; and any run of 16 or more
  consecutive characters of a form is masked too (a provider that quotes only a
  stretch of the key still quotes the key). A form shorter than 16 characters is
  masked only as a token of its own, and a short body that reads as a word
  (``sk-secret``'s ``secret``) not on its own: masking it would mask the word
  everywhere (the short-secret rule, docs/secrets.md);
* shapes: ``key=``/``api_key=``/``token=``-style query parameters,
  ``Authorization: Bearer ...`` values and ``sk-...`` keys, replaced whatever
  they are, because requests' and httpx's messages quote whole URLs.

Redaction runs on hot paths (every reply, observation and error): the forms of
the known secrets are compiled into one :class:`~._secret_match.SecretMatcher`
when a secret is registered or a watched environment variable changes, so a text
costs one pass of an automaton however many secrets there are; the shapes' expression runs
only on texts that contain what every shape needs (an ``=``, ``sk-`` or ``bearer``).
"""

from __future__ import annotations

import functools
import json
import os
import re
import threading
import urllib.parse
from collections.abc import Iterable, Mapping
from typing import Any

from ._secret_match import MASK, RUN_LEN, SecretMatcher

__all__ = [
    "KNOWN_PREFIXES",
    "MIN_SECRET_LEN",
    "REDACTED",
    "SECRET_ENV_VARS",
    "redact",
    "redact_value",
    "register_secret",
    "register_secrets",
    "secrets_in",
]

REDACTED = MASK

#: Environment variables whose values are secrets wherever they appear.
SECRET_ENV_VARS: tuple[str, ...] = (
    "OPENAI_API_KEY",
    "AMAP_KEY",
    "AZURE_OPENAI_API_KEY",
    "DEEPSEEK_API_KEY",
    "DASHSCOPE_API_KEY",
)

#: Secrets shorter than this are not matched by value: replacing every "a" or "1"
#: in a text would destroy it and protect nothing. Between this and 16 characters a
#: form is masked only as a token of its own (see :mod:`._secret_match`), and a
#: key's *body* (what a known prefix leaves) that reads as a word is not masked alone.
MIN_SECRET_LEN = 6

# A body that reads as a word or words: words of at most ten letters, each lowercase,
# Capitalized or UPPERCASE, joined by single hyphens or underscores ("sk-secret" leaves
# "secret", "sk-no-key-required" leaves "no-key-required"). Such a short body is a
# placeholder, and masking it alone would mask the word wherever it appears; the whole
# key is still masked. Random bodies are not words: they hold digits, mix cases inside a
# word, or run longer than ten letters, and are masked as before.
_WORD = r"(?:[a-z]{1,10}|[A-Z][a-z]{0,9}|[A-Z]{1,10})"
_WORDS = re.compile(rf"{_WORD}(?:[-_]{_WORD})*")

#: Prefixes a key is echoed without, compared ignoring case: OpenAI's key formats, those of
#: the providers reached through OpenAI-compatible endpoints (Anthropic, OpenRouter, Groq,
#: xAI, Perplexity, NVIDIA, Hugging Face; DeepSeek and DashScope keys start with ``sk-``),
#: and the ``Authorization`` schemes a registered header value carries. A body shorter than
#: 16 characters is masked only because its prefix is listed here; a longer one is masked
#: anyway, as a run of the key.
KNOWN_PREFIXES: tuple[str, ...] = (
    "sk-proj-",
    "sk-svcacct-",
    "sk-admin-",
    "sk-ant-api03-",
    "sk-ant-",
    "sk-or-v1-",
    "sk-",
    "gsk_",
    "xai-",
    "pplx-",
    "nvapi-",
    "hf_",
    "Bearer ",
    "Basic ",
    "Token ",
)

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
# (registry version, watched environment values, every form of every secret, their matcher)
_known: tuple[int, tuple[Any, ...], frozenset[str], SecretMatcher] = (
    -1,
    (),
    frozenset(),
    SecretMatcher(()),
)
_PREFIXES_LOWER = tuple(p.lower() for p in KNOWN_PREFIXES)


def _bodies(core: str) -> set[str]:
    """``core`` and what is left of it without each known prefix it starts with, in turn
    ("sk-proj-XYZ" is echoed as "proj-XYZ" or as "XYZ"; "Bearer sk-XYZ" as "XYZ")."""
    bodies, todo = {core}, [core]
    while todo:
        text = todo.pop()
        for prefix in _PREFIXES_LOWER:
            body = text[len(prefix) :]
            if text[: len(prefix)].lower() == prefix and body and body not in bodies:
                bodies.add(body)
                todo.append(body)
    return bodies


def _word_like(body: str) -> bool:
    """A short body that reads as words (see :data:`_WORDS`): not masked on its own."""
    return len(body) < RUN_LEN and _WORDS.fullmatch(body) is not None


def _forms(value: str) -> set[str]:
    """The forms a secret value takes in the texts it leaks into."""
    forms = {value}
    core = value.strip()
    for form in _bodies(core):
        if form != core and _word_like(form):
            continue
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


def _secret_forms() -> tuple[frozenset[str], SecretMatcher]:
    """Every form of every known secret, and the matcher built from them."""
    global _known
    env = _env_snapshot()
    version, seen_env, forms, matcher = _known
    if version == _version and seen_env == env:
        return forms, matcher
    with _lock:
        values = set(_registered)
        for name in SECRET_ENV_VARS:
            value = os.environ.get(name)
            if value and len(value.strip()) >= MIN_SECRET_LEN:
                values |= _forms(value)
        forms = frozenset(values)
        matcher = SecretMatcher(forms)
        _known = (_version, env, forms, matcher)
    return forms, matcher


@functools.lru_cache(maxsize=32)
def _with_extra(forms: frozenset[str], extra: tuple[str, ...]) -> SecretMatcher:
    # The same few extra values come back call after call (a tool's own key): one matcher each.
    return SecretMatcher(forms.union(*map(_forms, extra)))


def _mask(match: re.Match[str]) -> str:
    return (match.group("query") or match.group("bearer") or match.group("sk")) + REDACTED


def redact(text: str, secrets: Iterable[str] = ()) -> str:
    """Return ``text`` with every known secret value and secret-shaped token masked.

    ``secrets`` are extra values for this call only.
    """
    if not text:
        return text
    forms, matcher = _secret_forms()
    extra = tuple(v for v in secrets if v and len(v.strip()) >= MIN_SECRET_LEN)
    if extra:
        matcher = _with_extra(forms, extra)
    text = matcher.mask(text)
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

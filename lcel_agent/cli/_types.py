"""Argument types of ``lcel-agent``: each says what it wanted, in words, never "invalid int value".

Used by the parsers of every command (:mod:`lcel_agent.cli._parser`, :mod:`lcel_agent.cli._batch`);
they import nothing heavy.
"""

from __future__ import annotations

import argparse
import math
import re
from collections.abc import Callable

__all__ = [
    "THREAD_ID_RULE",
    "any_int",
    "base_url",
    "call_ids",
    "per_minute",
    "positive_float",
    "positive_int",
    "rate",
    "scale",
    "schema_name",
    "temperature",
    "thread_id",
]


def _number(
    text: str, kind: Callable[[str], float], what: str, ok: Callable[[float], bool] = math.isfinite
) -> float:
    """``text`` read by ``kind``; argparse's error saying ``what`` was expected unless the
    value is finite and ``ok``."""
    try:
        value = kind(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
    if not (math.isfinite(value) and ok(value)):
        raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
    return value


def positive_int(text: str) -> int:
    return int(_number(text, int, "a whole number >= 1", lambda v: v >= 1))


def any_int(text: str) -> int:
    return int(_number(text, int, "a whole number"))


def positive_float(text: str) -> float:
    return _number(text, float, "a number > 0", lambda v: v > 0)


def scale(text: str) -> float:
    return _number(text, float, "a number >= 0", lambda v: v >= 0)


def rate(text: str) -> float:
    return _number(text, float, "a rate within 0..1", lambda v: 0 <= v <= 1)


def temperature(text: str) -> float:
    # OpenAI-compatible APIs accept 0..2 and answer anything else with a 400 mid-run.
    return _number(text, float, "a temperature within 0..2", lambda v: 0 <= v <= 2)


def per_minute(text: str) -> float:
    """A rate per minute: a number > 0."""
    return _number(text, float, "a number per minute > 0", lambda v: v > 0)


def base_url(text: str) -> str:
    """An http(s) URL: ``--base-url http://127.0.0.1:8080/v1``."""
    url = text.strip()
    scheme, _, rest = url.partition("://")
    if scheme.lower() not in ("http", "https") or not rest.strip("/"):
        raise argparse.ArgumentTypeError(
            f"expected an http:// or https:// URL such as http://127.0.0.1:8080/v1, got {text!r}"
        )
    return url


def schema_name(text: str) -> str:
    """``--checkpoint-schema NAME``: a PostgreSQL schema's plain name (lower case, so it
    means the same quoted or not)."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]{0,62}", text):
        raise argparse.ArgumentTypeError(
            "expected a schema name: a lower-case letter or _, then up to 62 lower-case "
            f"letters, digits or _, got {text!r}"
        )
    return text


#: The rule of a thread id, as the help and the errors say it.
THREAD_ID_RULE = "1 to 200 printable characters, no spaces, not starting with '-'"


def thread_id(text: str) -> str:
    """A thread id (:data:`THREAD_ID_RULE`): it is typed in commands, so it must read back
    as one argument, never as an option."""
    if (
        not 0 < len(text) <= 200
        or not text.isprintable()
        or any(c.isspace() for c in text)
        or text.startswith("-")
    ):
        raise argparse.ArgumentTypeError(f"expected a thread id ({THREAD_ID_RULE}), got {text!r}")
    return text


def call_ids(text: str) -> str:
    """``--approve CALL`` / ``--deny CALL``: the id of a waiting call, or several joined
    by commas, as the pause hint prints them."""
    ids = [part.strip() for part in text.split(",")]
    if not text.strip() or not all(ids) or any(c.isspace() for c in text.strip()):
        raise argparse.ArgumentTypeError(
            f"expected the id of a waiting call as the pause hint prints it, got {text!r}"
        )
    return ",".join(ids)

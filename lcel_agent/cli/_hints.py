"""What the command prints for a person to copy: commands that work when pasted, URLs without passwords.

::

    shown("postgresql://agent:pw@db/runs")        # 'postgresql://agent:***@db/runs'
    shown("http://me:s3cr3t@127.0.0.1:8080/v1")   # 'http://me:***@127.0.0.1:8080/v1'
    command("resume", "t'1", "--checkpoint", "my runs.db")
    # "lcel-agent resume 't'\"'\"'1' --checkpoint 'my runs.db'"

A command is one line, every argument quoted for a POSIX shell (:func:`shlex.join`);
the displays print it without wrapping it at the terminal's width, so it pastes whole.
A URL's password is masked wherever a URL is printed (and registered as a secret, so
an error message that quotes it is masked too); the commands that name a store with a
password say how to give it back (:func:`password_note`).
"""

from __future__ import annotations

import shlex
from urllib.parse import urlsplit, urlunsplit

from .._redact import register_secret

__all__ = ["command", "password_note", "shown"]


def shown(spec: str) -> str:
    """``spec`` as it may be printed: a URL's password masked (a path is left as it is)."""
    if "://" not in spec or "@" not in spec:
        return spec
    try:
        parts = urlsplit(spec)
        password = parts.password
    except ValueError:  # a malformed URL: print nothing of what may be its credentials
        scheme, _, rest = spec.partition("://")
        return f"{scheme}://***@{rest.rsplit('@', 1)[1]}"
    if password is None:
        return spec
    register_secret(password)
    host = parts.netloc.rsplit("@", 1)[1]
    return urlunsplit(parts._replace(netloc=f"{parts.username or ''}:***@{host}"))


def command(*words: str) -> str:
    """``lcel-agent WORDS...`` as one line a POSIX shell reads back as these words."""
    return shlex.join(["lcel-agent", *words])


def password_note(spec: str) -> list[str]:
    """The line that says a printed store lacks its password (none when it has none)."""
    if shown(spec) == spec:
        return []
    return ["(the store's password is not shown: put it back in the URL, or set PGPASSWORD)"]

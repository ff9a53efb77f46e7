"""What the command prints for a person to copy: commands that work when pasted, URLs without passwords.

::

    shown("postgresql://agent:pw@db/runs")        # 'postgresql://agent:***@db/runs'
    shown("http://me:s3cr3t@127.0.0.1:8080/v1")   # 'http://me:***@127.0.0.1:8080/v1'
    command("resume", "t'1", "--checkpoint", "my runs.db")
    # "lcel-agent resume 't'\"'\"'1' --checkpoint 'my runs.db'"

A command is one line, every argument quoted for a POSIX shell (:func:`shlex.join`),
and starts with the program as the user ran it (:func:`invoked_as`, set once by
:func:`lcel_agent.cli.main`): ``.venv/bin/lcel-agent`` when that is what was typed,
``lcel-agent`` when the shell found it on ``PATH``, ``python -m lcel_agent.cli`` for the
module. The displays print it without wrapping it at the terminal's width, so it pastes
whole. A URL's password is masked wherever a URL is printed (and registered as a
secret, so an error message that quotes it is masked too); the commands that name a
store with a password say how to give it back (:func:`password_note`).
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .._redact import register_secret

__all__ = [
    "StoreRef",
    "command",
    "invoked_as",
    "password_note",
    "program",
    "shown",
    "use_program",
]

_program: tuple[str, ...] = ("lcel-agent",)


def _as_typed(path: str) -> str:
    """``path`` as a shell finds it again: its bare name when ``PATH`` leads to this very
    file (the shell passed the full path it found), else the path as it was given."""
    name = os.path.basename(path)
    found = shutil.which(name)
    # abspath, not realpath: a venv's bin/python is a link to the system's, yet not it.
    if os.path.isabs(path) and found and os.path.abspath(found) == path:
        return name
    return path


def invoked_as(argv0: str, executable: str = sys.executable) -> tuple[str, ...]:
    """The words that run this program again, from ``sys.argv[0]``."""
    if os.path.basename(argv0) in ("__main__.py", "-m"):  # python -m lcel_agent.cli
        return (_as_typed(executable), "-m", "lcel_agent.cli")
    return (_as_typed(argv0) if argv0 else "lcel-agent",)


def use_program(words: tuple[str, ...]) -> None:
    """Print commands that start with ``words`` from now on (see the module docstring)."""
    global _program
    _program = words


def program() -> tuple[str, ...]:
    """The words commands start with (default ``("lcel-agent",)``)."""
    return _program


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
    """The program and ``WORDS...`` as one line a POSIX shell reads back as these words."""
    return shlex.join([*_program, *words])


def password_note(spec: str) -> list[str]:
    """The line that says a printed store lacks its password (none when it has none)."""
    if shown(spec) == spec:
        return []
    return ["(the store's password is not shown: put it back in the URL, or set PGPASSWORD)"]


@dataclass(frozen=True)
class StoreRef:
    """A STORE as the printed commands repeat it: ``--checkpoint SPEC`` and, for a
    PostgreSQL store kept in a schema of its own, ``--checkpoint-schema NAME``."""

    spec: str
    schema: str | None = None

    @classmethod
    def of(cls, args: Any) -> StoreRef:
        """The STORE of parsed arguments (``--checkpoint``, ``--checkpoint-schema``)."""
        return cls(args.checkpoint, getattr(args, "checkpoint_schema", None))

    def words(self) -> list[str]:
        """The options that name this store again (a password masked)."""
        schema = ["--checkpoint-schema", self.schema] if self.schema else []
        return ["--checkpoint", shown(self.spec), *schema]

    def __str__(self) -> str:
        return shown(self.spec) + (f" (schema {self.schema})" if self.schema else "")

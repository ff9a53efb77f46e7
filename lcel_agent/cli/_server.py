"""Which server a resumed run talks to: its own, unless the command line names another.

::

    url, line = server_for(args, options, thread)   # Refused when it cannot be known
    say(line)    # "thread t1 goes on at http://127.0.0.1:8080/v1 (its own server)"

``run`` keeps the server's URL beside the thread without its user and password
(:func:`lcel_agent.cli._agent.server_of`). ``resume`` goes back to it, whatever
``OPENAI_BASE_URL`` says now, and says so; ``--base-url`` moves the run to another
server. A login comes back from the command line or from ``OPENAI_BASE_URL`` when that
names the same server, never from the store; without one, and for a thread whose
server was not kept, the command refuses (exit 2) rather than send the conversation
somewhere the run did not start.
"""

from __future__ import annotations

import argparse
import os
from urllib.parse import urlsplit, urlunsplit

from ._agent import server_of
from ._continue import Refused
from ._hints import StoreRef, command, shown
from ._record import RunOptions

__all__ = ["server_for"]


def _with_login(url: str) -> str:
    """``url`` with placeholders where its user and password go, for the hint."""
    parts = urlsplit(url)
    return urlunsplit(parts._replace(netloc=f"USER:PASSWORD@{parts.netloc}"))


def server_for(
    args: argparse.Namespace, options: RunOptions, thread: str
) -> tuple[str | None, str | None]:
    """The URL the resumed run uses (None: the environment's, for ``--simulate``) and the
    line that says which server it is (None: nothing to say)."""
    if options.simulate:
        return None, None
    if args.base_url is not None:  # the user named one: it may be another provider
        return args.base_url, f"thread {thread} goes on at {shown(args.base_url)} (--base-url)"
    own = options.base_url
    if own is None:
        raise Refused(
            f"thread {thread} does not say which server it ran on (it was started by an "
            "older lcel-agent); name it with --base-url URL"
        )
    env = os.environ.get("OPENAI_BASE_URL", "").strip()
    same_as_env = bool(env) and server_of(env)[0] == own
    if options.base_url_login and not same_as_env:
        again = command("resume", thread, *StoreRef.of(args).words(), "--base-url",
                        _with_login(own))  # fmt: skip
        raise Refused(
            f"thread {thread} ran on {own} with a user and password in the URL, which are "
            f"never stored: give them back with {again}, or in OPENAI_BASE_URL"
        )
    line = f"thread {thread} goes on at {own} (its own server)"
    if env and not same_as_env:
        line += f"; OPENAI_BASE_URL ({shown(env)}) is not used: --base-url moves the run"
    return (env if same_as_env else own), line

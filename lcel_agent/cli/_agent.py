"""The agent of ``run`` and ``resume``: an OpenAI-compatible model and the bundled tools.

::

    options = options_of(args)                    # what the command line asked for
    with simulated(options.simulate), built(options, checkpointer=saver) as made:
        made.agent.stream(task, config)           # made.facts: the header's line

``resume`` builds from the :class:`~lcel_agent.cli._record.RunOptions` its run kept,
so the resumed run has the same model, server, protocol, window and approver. The key
is read from the environment here, each time, and never kept; nor is a login in the
server's URL (:func:`server_of`).
"""

from __future__ import annotations

import argparse
import contextlib
import logging
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from .._redact import redact, register_secret
from ._hints import command, shown
from ._record import RunOptions

if TYPE_CHECKING:
    from ..memory import SlidingWindowMemory

__all__ = [
    "OPENAI_URL",
    "Built",
    "MissingKeyError",
    "built",
    "endpoint",
    "hush_window_log",
    "key",
    "no_key",
    "options_of",
    "server_of",
    "simulated",
    "window_warning",
]

#: Where ChatOpenAI goes without a base URL: what a run that named none is kept with.
OPENAI_URL = "https://api.openai.com/v1"


def no_key() -> str:
    """What ``run`` says without ``OPENAI_API_KEY`` (its commands as the program was run)."""
    simulate = command("run", "--simulate", "查询北京今天的天气")
    demo = command("demo")
    width = max(len(simulate), len(demo)) + 2
    return f"""\
lcel-agent run needs an OpenAI-compatible chat model. Set:

  export OPENAI_API_KEY=<your key>
  export OPENAI_BASE_URL=<endpoint>   # optional: DeepSeek, Qwen, vLLM, Ollama ... (default: OpenAI)
  export AMAP_KEY=<Amap Web服务 key>   # optional: lets the get_weather tool work

Or try it offline, with no key and no network (a simulated model on 127.0.0.1):

  {simulate}
  {demo:<{width}}# the article's task, with a noisy model
"""


def hush_window_log() -> None:
    """Leave the memory window's own warnings to the command: it names the option that
    fixes them (``--memory-tokens``), once, before the run, and never when it only reads."""
    logging.getLogger("lcel_agent.memory").setLevel(logging.ERROR)


#: Below this share of the window left after the pinned messages, tool results starve.
MIN_ROOM_SHARE = 0.25


def window_warning(memory: SlidingWindowMemory, system_prompt: str, task: str) -> str | None:
    """A warning when the system prompt and the task leave under a quarter of the window.

    The window pins both; what is left is all the room tool results and replies
    get, so a task near the window's size makes every loop see almost nothing.
    """
    hush_window_log()  # this warning, which names the option, is said instead
    window = memory.fresh()
    window.add_system(system_prompt)
    window.add_user(task)
    pinned, budget = window.pinned_tokens, window.max_tokens
    if budget - pinned >= budget * MIN_ROOM_SHARE:
        return None
    room = max(0, budget - pinned)
    # The smallest window that leaves a quarter free, rounded up to a hundred.
    enough = math.ceil(pinned / (1 - MIN_ROOM_SHARE) / 100) * 100
    return (
        f"warning: the system prompt and the task take {pinned:,} of the memory window's "
        f"{budget:,} tokens, leaving {room:,} for tool results and replies (under a quarter): "
        f"the model will see little or nothing of what its tools return. "
        f"Give --memory-tokens {enough} or more."
    )


class MissingKeyError(Exception):
    """``OPENAI_API_KEY`` is not set: the command prints :func:`no_key` and exits 2."""


def key() -> str:
    """The model's key from the environment (registered as a secret); MissingKeyError."""
    found = os.environ.get("OPENAI_API_KEY", "").strip()
    if not found:
        raise MissingKeyError
    register_secret(found)
    return found


def server_of(url: str) -> tuple[str, bool]:
    """``url`` as it may be kept: without its user and password (and without a query that
    holds a key); and whether it had a login."""
    parts = urlsplit(url)
    login = "@" in parts.netloc
    if login:
        parts = parts._replace(netloc=parts.netloc.rsplit("@", 1)[1])
    if parts.query and redact(parts.query) != parts.query:
        parts = parts._replace(query="")
    return urlunsplit(parts), login


def endpoint(args: argparse.Namespace) -> str | None:
    """The server ``run`` talks to: ``--base-url``, else ``OPENAI_BASE_URL``; None: OpenAI's
    own (``--simulate``: the simulated model, which points the environment at itself)."""
    if args.simulate:
        return None
    return args.base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or None


def options_of(args: argparse.Namespace) -> RunOptions:
    """The options ``run`` was given; the server is kept without its credentials."""
    url = endpoint(args)
    server, login = server_of(url) if url else (None if args.simulate else OPENAI_URL, False)
    return RunOptions(
        model=args.model,
        base_url=server,
        base_url_login=login,
        protocol=args.protocol,
        max_loops=args.max_loops,
        max_errors=args.max_errors,
        memory_tokens=args.memory_tokens,
        temperature=args.temperature,
        max_tokens=args.max_tokens,
        timeout=args.timeout,
        token_budget=args.token_budget,
        time_budget=args.time_budget,
        pause=bool(getattr(args, "pause", False)),
        confirm=args.confirm,
        simulate=args.simulate,
    )


def simulated(on: bool) -> contextlib.AbstractContextManager[Any]:
    """``--simulate``: the simulated model and fake services on loopback, while open.

    The simulated model answers from the conversation alone, so a fresh one (a
    ``resume`` in a new process) goes on exactly where the last one was.
    """
    if not on:
        return contextlib.nullcontext()
    from ..testing.offline import simulated_services

    return simulated_services()


@dataclass
class Built:
    """The agent, its model and the header's facts."""

    agent: Any
    llm: Any
    facts: list[str]
    timeout: float
    """Each model call's time limit (the status line says when one ran out)."""


@contextlib.contextmanager
def built(
    options: RunOptions, *, checkpointer: Any = None, base_url: str | None = None
) -> Iterator[Built]:
    """Build the agent of ``options`` on the server ``base_url`` (None: the environment's,
    as ChatOpenAI reads it). Closes the model's own HTTP client at the end.
    MissingKeyError without ``OPENAI_API_KEY``."""
    api_key = key()
    from langchain_openai import ChatOpenAI

    from ..agent import create_agent
    from ..approval import TerminalApprover, pause
    from ..memory import SlidingWindowMemory
    from ..stages.llm_client import is_own_client
    from ..tools import get_weather, search_baidu

    url = base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or None
    llm = ChatOpenAI(
        model=options.model,
        api_key=api_key,  # type: ignore[arg-type]
        base_url=url,
        temperature=options.temperature,
        max_tokens=options.max_tokens,  # type: ignore[call-arg]
        timeout=options.timeout,
    )
    approve: Any = pause if options.pause else TerminalApprover() if options.confirm else None
    agent = create_agent(
        llm,
        [get_weather, search_baidu],
        max_loops=options.max_loops,
        max_errors=options.max_errors,
        memory=SlidingWindowMemory(max_tokens=options.memory_tokens),
        protocol=options.protocol,
        llm_timeout=options.timeout,
        token_budget=options.token_budget,
        time_budget=options.time_budget,
        approve=approve,
        checkpointer=checkpointer,
    )
    facts = [
        f"model {options.model}"
        + (f" @ {redact(shown(url))}" if url else "")
        + (" (--simulate: simulated model, fake Amap and Baidu)" if options.simulate else ""),
        f"protocol {options.protocol}",
        f"max_loops {options.max_loops}",
        f"max_errors {options.max_errors}",
        f"memory {options.memory_tokens} tokens",
    ]
    try:
        yield Built(agent, llm, facts, options.timeout)
    finally:
        # The command built the model, so it closes the model's connections; but not
        # langchain-openai 1.x's client shared by the endpoint: a second run in this
        # process (main() called again) would find it closed.
        if is_own_client(llm.root_client):
            llm.root_client.close()

"""What ``run --checkpoint`` and ``resume`` share: the store opened, bad input refused, the
run driven, and the commands that continue a thread.

Every refusal is :class:`Refused` (one line, ``lcel-agent run: error: ...``, exit 2) and
comes before anything is written. :func:`drive` streams a thread's run; on Ctrl-C,
SIGTERM or SIGHUP it reads what the store holds then: a run whose result was stored
ends as that result says (a signal after the result is stored changes nothing), any
other prints the command that continues it and exits 130, 143 or 129.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from typing import Any

from .._redact import redact
from ..durable import ThreadState, read_thread
from ..errors import CheckpointError, ConfigurationError
from ..state import Action, AgentResult, StopReason
from ._agent import Built, MissingKeyError, no_key
from ._drive import Shown, finish, refuse, say, show
from ._hints import StoreRef, command, password_note
from ._lock import ThreadBusyError
from ._signals import said, status
from ._status import EXIT_USAGE
from ._store import Store, StoreError, open_store

__all__ = [
    "Refused",
    "call_list",
    "continue_line",
    "drive",
    "guarded",
    "notes",
    "opened",
    "resume_line",
    "show_stored",
]


class Refused(Exception):
    """Bad input found before anything ran: the message, and exit status 2."""


def resume_line(thread: str, store: StoreRef, *more: str) -> str:
    """The command that continues ``thread`` (the store as the user gave it, a password
    masked): one line, every argument quoted for a POSIX shell."""
    return command("resume", thread, *store.words(), *more)


def call_list(actions: Sequence[Action]) -> str:
    """The ids of waiting calls as ``--approve CALL`` takes them."""
    return ",".join(a.call_id or "" for a in actions)


def continue_line(thread: str, store: StoreRef, state: ThreadState) -> str:
    """The command that continues ``thread`` from ``state`` (a paused one: its calls named)."""
    if state.status == "paused":
        return resume_line(thread, store, "--approve", call_list(state.pending))
    return resume_line(thread, store)


def _paused_notes(thread: str, store: StoreRef, pending: Sequence[Action]) -> list[str]:
    from ._display import call_text

    ids = call_list(pending)
    calls = [f"  {call_text(action)}  [{action.call_id}]" for action in pending]
    return [
        f"paused: {len(calls)} tool call(s) wait for a decision:",
        *calls,
        "run them:",
        f"  {resume_line(thread, store, '--approve', ids)}",
        "or refuse them (add --reason TEXT to tell the model why):",
        f"  {resume_line(thread, store, '--deny', ids)}",
        "or run them and every later call without pausing:",
        f"  {resume_line(thread, store, '--no-pause')}",
        *password_note(store.spec),
    ]


def notes(thread: str, store: StoreRef) -> Callable[[AgentResult], Sequence[str]]:
    """After a result: where the thread is, and the exact commands that continue it."""

    def lines(result: AgentResult) -> list[str]:
        if result.stop_reason is StopReason.PAUSED:
            return _paused_notes(thread, store, result.pending)
        if result.stop_reason is StopReason.LLM_ERROR:
            return [
                f"thread {thread} in {store} failed; ask the failed model call again "
                "(add --base-url URL for another server):",
                f"  {resume_line(thread, store)}",
                *password_note(store.spec),
            ]
        return [f"thread {thread} in {store}"]

    return lines


@contextmanager
def opened(args: argparse.Namespace, *, create: bool | None) -> Iterator[tuple[ExitStack, Store]]:
    """The store, with bad input turned into :class:`Refused` (exit 2)."""
    with ExitStack() as stack:
        try:
            store = stack.enter_context(open_store(StoreRef.of(args), create=create))
        except StoreError as exc:
            raise Refused(str(exc)) from None
        yield stack, store


def guarded(name: str, work: Callable[[], int]) -> int:
    """Run the command ``name``; bad input of any kind is one line and exit 2."""
    try:
        return work()
    except MissingKeyError:
        print(no_key(), end="", flush=True, file=sys.stderr)
        return EXIT_USAGE
    except (Refused, ThreadBusyError, CheckpointError, ConfigurationError, StoreError) as exc:
        refuse(name, str(exc))
        return EXIT_USAGE
    except Exception as exc:
        # psycopg's: a grant taken away while the command ran (the store's checks passed).
        if type(exc).__name__ != "InsufficientPrivilege":
            raise
        first = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        refuse(name, f"the PostgreSQL store refused: {redact(first)}")
        return EXIT_USAGE


def show_stored(
    state: ThreadState, args: argparse.Namespace, facts: Sequence[str], thread: str
) -> int:
    """Print the result a thread holds, as the run printed it; its exit status."""
    assert state.result is not None
    shown = Shown({"thread_id": thread}, notes(thread, StoreRef.of(args)))
    return show(state.result, args, facts, shown)


def drive(
    made: Built,
    store: Store,
    args: argparse.Namespace,
    thread: str,
    value: Any,
    task: str,
    *,
    configurable: dict[str, Any] | None = None,
    **more: Any,
) -> int:
    """Stream the thread's run; on Ctrl-C, end as the store says (see the module docstring)."""
    keys = {**(configurable or {}), "thread_id": thread}
    try:
        return finish(
            lambda extra: made.agent.stream(value, {**extra, "configurable": keys}),
            args,
            task,
            [*made.facts, *more.pop("facts", ())],
            llm_timeout=made.timeout,
            llm_retries=3,
            shown=Shown({"thread_id": thread}, notes(thread, store.ref), **more),
        )
    except KeyboardInterrupt as stopped:  # Ctrl-C, SIGTERM, SIGHUP
        try:
            state = read_thread(store.saver, thread)
        except Exception:  # the store is what it is; the command below says what to try
            state = None
        if state is not None and state.result is not None:
            # The run ended and its result is stored: the signal came too late to change it.
            return show_stored(state, args, [*made.facts, f"thread {thread}"], thread)
        say(said(stopped))
        if state is not None:
            say(f"the run is checkpointed; continue it with: "
                f"{continue_line(thread, store.ref, state)}")  # fmt: skip
            for line in password_note(store.ref.spec):
                say(line)
        return status(stopped)

"""Checkpointed runs: ``run --checkpoint STORE [--thread ID] [--pause]`` and ``resume ID``.

::

    lcel-agent run "查询北京天气" --checkpoint agent.db --pause     # exit 8, prints the next step
    lcel-agent resume 3f9c2a1b7d4e --checkpoint agent.db --approve
    lcel-agent resume 3f9c2a1b7d4e --checkpoint agent.db          # after a crash or Ctrl-C

Both hold the thread's lock (:mod:`lcel_agent.cli._lock`) for the whole run, and check
everything that can be wrong before anything is written: a store that cannot be used,
an unknown thread, a decision where nothing waits, a thread another process runs
(exit 2, the store left as it was). ``run`` keeps its options beside the thread
(:mod:`lcel_agent.cli._record`), so ``resume`` builds the same agent; the library's
durable runs (:mod:`lcel_agent.durable`) do the rest: finished tool calls are not run
again and no model call is repeated.
"""

from __future__ import annotations

import argparse
import shlex
import sys
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from ..errors import CheckpointError, ConfigurationError
from ..state import AgentResult, StopReason
from ..testing.tasks import ARTICLE_TASK
from ._agent import NO_KEY, Built, MissingKeyError, built, key, options_of, simulated
from ._drive import Shown, finish, say, show
from ._lock import ThreadBusyError
from ._record import RunOptions, load_options, save_options
from ._status import EXIT_INTERRUPTED, EXIT_USAGE
from ._store import Store, StoreError, open_store, shown

__all__ = ["resume_command", "run_checkpointed"]


class _Refused(Exception):
    """Bad input found before anything ran: the message, and exit status 2."""


def resume_line(thread: str, store: str, *decision: str) -> str:
    """The command that continues ``thread`` (the store as the user gave it, a password
    masked), quoted for a POSIX shell."""
    words = ["lcel-agent", "resume", thread, "--checkpoint", shown(store), *decision]
    return " ".join(shlex.quote(word) for word in words)


def _password_note(store: str) -> list[str]:
    if shown(store) == store:
        return []
    return ["(the store's password is not shown: put it back in the URL, or set PGPASSWORD)"]


def _notes(thread: str, store: str) -> Callable[[AgentResult], Sequence[str]]:
    """After a result: what waits and the exact commands that continue a paused run."""

    def notes(result: AgentResult) -> list[str]:
        if result.stop_reason is not StopReason.PAUSED:
            return [f"thread {thread} in {shown(store)}"]
        from ._display import call_text

        calls = [f"  {call_text(action)}" for action in result.pending]
        return [
            f"paused: {len(calls)} tool call(s) wait for a decision:",
            *calls,
            "run them:",
            f"  {resume_line(thread, store, '--approve')}",
            "or refuse them (add --reason TEXT to tell the model why):",
            f"  {resume_line(thread, store, '--deny')}",
            *_password_note(store),
        ]

    return notes


def _config(thread: str) -> Callable[[Any], Any]:
    """The run's config: the display's callbacks and the thread."""
    return lambda config: {**config, "configurable": {"thread_id": thread}}


@contextmanager
def _opened(args: argparse.Namespace, *, create: bool) -> Iterator[tuple[ExitStack, Store]]:
    """The store, with bad input turned into :class:`_Refused` (exit 2)."""
    with ExitStack() as stack:
        try:
            store = stack.enter_context(open_store(args.checkpoint, create=create))
        except StoreError as exc:
            raise _Refused(str(exc)) from None
        yield stack, store


def _guarded(work: Callable[[], int]) -> int:
    """Run a command; bad input of any kind is one line and exit 2."""
    try:
        return work()
    except MissingKeyError:
        print(NO_KEY, end="", flush=True, file=sys.stderr)
        return EXIT_USAGE
    except (_Refused, ThreadBusyError, CheckpointError, ConfigurationError) as exc:
        say(str(exc))
        return EXIT_USAGE


def _drive(
    made: Built, args: argparse.Namespace, thread: str, value: Any, task: str, **more: Any
) -> int:
    """Stream the thread's run; on Ctrl-C say how to continue it (exit 130)."""
    config = {"configurable": {"thread_id": thread}}
    try:
        return finish(
            lambda extra: made.agent.stream(value, _config(thread)(extra)),
            args,
            task,
            [*made.facts, *more.pop("facts", ())],
            llm_timeout=made.timeout,
            llm_retries=3,
            shown=Shown({"thread_id": thread}, _notes(thread, args.checkpoint), **more),
        )
    except KeyboardInterrupt:
        say("interrupted")
        try:
            state = made.agent.get_state(config)
        except Exception:  # the store is what it is; the command below says what to try
            state = None
        if state is not None and state.status != "finished":
            decide = ["--approve"] if state.status == "paused" else []
            say(f"the run is checkpointed; continue it with: "
                f"{resume_line(thread, args.checkpoint, *decide)}")  # fmt: skip
            for line in _password_note(args.checkpoint):
                say(line)
        return EXIT_INTERRUPTED


def run_checkpointed(args: argparse.Namespace) -> int:
    """``lcel-agent run TASK --checkpoint STORE [--thread ID] [--pause]``."""
    if args.simulate:
        args.task = args.task or ARTICLE_TASK.prompt
    options = options_of(args)

    def work() -> int:
        with simulated(options.simulate):
            key()  # before the store: a run that cannot start makes no file
            return _start(args, options)

    return _guarded(work)


def _start(args: argparse.Namespace, options: RunOptions) -> int:
    """``run --checkpoint``, once the model's key is known to be there."""
    with _opened(args, create=True) as (stack, store):
        thread = args.thread or uuid.uuid4().hex[:12]
        stack.enter_context(store.lock(thread))
        made = stack.enter_context(built(options, checkpointer=store.saver))
        found = made.agent.get_state({"configurable": {"thread_id": thread}})
        if found is not None and found.status != "finished":
            decide = ["--approve"] if found.status == "paused" else []
            raise _Refused(
                f"thread {thread} holds an unfinished run ({found.status}); continue it "
                f"with: {resume_line(thread, args.checkpoint, *decide)}, or give another "
                "--thread"
            )
        save_options(store.saver, thread, options)
        say(f"checkpointed as thread {thread} in {shown(args.checkpoint)}")
        return _drive(made, args, thread, args.task, args.task, facts=[f"thread {thread}"])


@dataclass(frozen=True)
class Command:
    """LangGraph's ``Command(resume=...)`` as the library reads it (by its name and
    ``resume``), for installs with the savers (the durable extra) but not LangGraph."""

    resume: Any


def _decision(args: argparse.Namespace) -> Any:
    """The ``Command(resume=...)`` of ``--approve`` / ``--deny [--reason TEXT]``."""
    value = True if args.approve else (args.reason or False)
    try:
        from langgraph.types import Command as LangGraphCommand
    except ImportError:
        return Command(resume=value)
    return LangGraphCommand(resume=value)


def resume_command(args: argparse.Namespace) -> int:
    """``lcel-agent resume ID --checkpoint STORE [--approve | --deny [--reason TEXT]]``."""
    thread, deciding = args.thread, args.approve or args.deny

    def work() -> int:
        with _opened(args, create=False) as (stack, store):
            options = load_options(store.saver, thread)
            if options is None:
                if thread not in store.thread_ids():
                    raise _Refused(
                        f"no thread {thread!r} in {shown(args.checkpoint)} "
                        f"(lcel-agent threads --checkpoint {shown(args.checkpoint)} lists them)"
                    )
                raise _Refused(
                    f"thread {thread!r} was not started by `lcel-agent run` (no command "
                    "options are kept beside it): resume it from Python, "
                    "agent.invoke(None, {'configurable': {'thread_id': ...}})"
                )
            stack.enter_context(store.lock(thread))
            stack.enter_context(simulated(options.simulate))
            made = stack.enter_context(
                built(options, checkpointer=store.saver, base_url=args.base_url)
            )
            state = made.agent.get_state({"configurable": {"thread_id": thread}})
            if state is None:
                raise _Refused(f"thread {thread!r} has no run to resume")
            waiting = len(state.pending) if state.status == "paused" else 0
            if deciding and not waiting:
                option = "--approve" if args.approve else "--deny"
                if state.status == "finished":
                    why = "its run finished; without a decision, resume prints its result"
                else:
                    why = f"continue it without one: {resume_line(thread, args.checkpoint)}"
                raise _Refused(f"{option}: nothing in thread {thread} waits for a decision ({why})")
            if waiting and not deciding:
                raise _Refused(
                    f"thread {thread} is paused: {waiting} tool call(s) wait for a decision; "
                    "give --approve (run them) or --deny [--reason TEXT] (refuse them)"
                )
            if state.status == "finished":
                assert state.result is not None
                facts = [*made.facts, f"thread {thread} (finished)"]
                notes = Shown({"thread_id": thread}, _notes(thread, args.checkpoint))
                return show(state.result, args, facts, notes)
            value = _decision(args) if deciding else None
            # A loop whose reply was checkpointed goes on without a model call: its number.
            first = state.loops if state.pending else state.loops + 1
            facts = [f"thread {thread}, resumed after {state.loops} loop(s)"]
            return _drive(made, args, thread, value, state.task, facts=facts, first_step=first)

    return _guarded(work)

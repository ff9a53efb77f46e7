"""Checkpointed runs: ``run --checkpoint STORE [--thread ID] [--pause]`` and ``resume ID``.

::

    lcel-agent run "查询北京天气" --checkpoint agent.db --pause     # exit 8, prints the next step
    lcel-agent resume 3f9c2a1b7d4e --checkpoint agent.db --approve call_5d0c…
    lcel-agent resume 3f9c2a1b7d4e --checkpoint agent.db          # after a crash, Ctrl-C, a failure
    lcel-agent resume 3f9c2a1b7d4e --checkpoint agent.db --no-pause --max-loops 20

Both hold the thread's lock (:mod:`lcel_agent.cli._lock`) for the whole run, and check
everything that can be wrong before anything is written: a store that cannot be used,
an unknown thread, a decision where nothing waits or about a call that does not wait,
a thread another process runs (exit 2, the store left as it was). ``run`` keeps its
options beside the thread (:mod:`lcel_agent.cli._record`), so ``resume`` builds the same
agent; the library's durable runs (:mod:`lcel_agent.durable`) do the rest: finished
tool calls are not run again and no model call is repeated but a failed one.

The thread is read before any agent is built (:func:`lcel_agent.durable.read_thread`):
a finished thread's result is printed with no model, key or server, and a refusal
needs no key either.
"""

from __future__ import annotations

import argparse
import dataclasses
import uuid
from typing import Any

from ..durable import ThreadState, read_thread
from ..testing.tasks import ARTICLE_TASK
from ._agent import built, key, options_of, simulated
from ._continue import (
    Refused,
    call_list,
    continue_line,
    drive,
    guarded,
    opened,
    resume_line,
    show_stored,
)
from ._drive import say
from ._hints import command, shown
from ._record import RunOptions, load_options, save_options
from ._store import Store

__all__ = ["resume_command", "run_checkpointed"]


def run_checkpointed(args: argparse.Namespace) -> int:
    """``lcel-agent run TASK --checkpoint STORE [--thread ID] [--pause]``."""
    if args.simulate:
        args.task = args.task or ARTICLE_TASK.prompt
    options = options_of(args)

    def work() -> int:
        with simulated(options.simulate):
            key()  # before the store: a run that cannot start makes no file
            return _start(args, options)

    return guarded(work)


def _reuse(thread: str, store: str, found: ThreadState, task: str) -> str:
    """What ``run --thread`` says of a thread that holds a run already (Refused if it
    cannot take a new question)."""
    if found.status != "finished":
        why = "failed: its model call" if found.status == "failed" else found.status
        raise Refused(
            f"thread {thread} holds an unfinished run ({why}); continue it with: "
            f"{continue_line(thread, store, found)}, or give another --thread"
        )
    assert found.result is not None
    same = "the same question again" if found.task == task else "new question"
    stop = found.result.stop_reason.value
    return f"continuing thread {thread}: finished ({stop}), {found.loops} loops, {same}"


def _start(args: argparse.Namespace, options: RunOptions) -> int:
    """``run --checkpoint``, once the model's key is known to be there."""
    with opened(args, create=True) as (stack, store):
        thread = args.thread or uuid.uuid4().hex[:12]
        stack.enter_context(store.lock(thread))
        found = read_thread(store.saver, thread)
        reused = None if found is None else _reuse(thread, args.checkpoint, found, args.task)
        made = stack.enter_context(built(options, checkpointer=store.saver))
        save_options(store.saver, thread, options)
        if reused is not None:
            say(reused)  # the earlier result is no longer what `resume` prints
        say(f"checkpointed as thread {thread} in {shown(args.checkpoint)}")
        return drive(made, store, args, thread, args.task, args.task, facts=[f"thread {thread}"])


@dataclasses.dataclass(frozen=True)
class Command:
    """LangGraph's ``Command(resume=...)`` as the library reads it (by its name and
    ``resume``), for installs with the savers (the durable extra) but not LangGraph."""

    resume: Any


def _command(value: Any) -> Any:
    try:
        from langgraph.types import Command as LangGraphCommand
    except ImportError:
        return Command(resume=value)
    return LangGraphCommand(resume=value)


def _decision(args: argparse.Namespace, state: ThreadState) -> Any:
    """The resume value: ``Command(resume=...)`` of the decision, or None (no decision).

    ``--approve CALL`` / ``--deny CALL`` decide the calls named (the others still wait);
    without CALL, every waiting call; ``--no-pause`` alone approves every waiting call.
    """
    chosen = args.approve if args.approve is not None else args.deny
    if chosen is None and not (args.no_pause and state.status == "paused"):
        return None
    answer: bool | str = args.deny is None or (args.reason or False)
    if chosen is None or chosen is True:
        return _command(answer)
    return _command(dict.fromkeys(str(chosen).split(","), answer))


def _check(args: argparse.Namespace, thread: str, state: ThreadState) -> None:
    """Refuse what cannot be done with the thread as it stands (nothing written yet)."""
    store = args.checkpoint
    chosen = args.approve if args.approve is not None else args.deny
    option = "--approve" if args.approve is not None else "--deny"
    waiting = state.pending if state.status == "paused" else ()
    if state.status == "finished":
        if chosen is not None:
            raise Refused(f"{option}: nothing in thread {thread} waits for a decision (its run "
                          "finished; without a decision, resume prints its result)")  # fmt: skip
        given = [o for o, on in (("--no-pause", args.no_pause),
                                  ("--max-loops", args.max_loops is not None),
                                  ("--base-url", args.base_url is not None)) if on]  # fmt: skip
        if given:
            assert state.result is not None
            raise Refused(
                f"{given[0]}: thread {thread}'s run finished "
                f"({state.result.stop_reason.value}), so nothing in it goes on: "
                f"{resume_line(thread, store)} prints its result; a new question: "
                f"{command('run', 'TASK', '--checkpoint', shown(store), '--thread', thread)}"
            )
        return
    if chosen is not None and not waiting:
        raise Refused(f"{option}: nothing in thread {thread} waits for a decision (continue "
                      f"it without one: {resume_line(thread, store)})")  # fmt: skip
    if isinstance(chosen, str):
        ids = {a.call_id for a in waiting}
        stale = [c for c in chosen.split(",") if c not in ids]
        if stale:
            raise Refused(
                f"{option} {chosen}: {', '.join(stale)} does not wait in thread {thread}; "
                f"what waits now: {_listed(waiting)}; decide on it with: "
                f"{resume_line(thread, store, option, call_list(waiting))}"
            )
    if waiting and chosen is None and not args.no_pause:
        raise Refused(
            f"thread {thread} is paused: {len(waiting)} tool call(s) wait for a decision "
            f"({_listed(waiting)}); give --approve [CALL] (run them), --deny [CALL] "
            "[--reason TEXT] (refuse them) or --no-pause (run them and every later call)"
        )
    if args.max_loops is not None and args.max_loops < state.loops:
        raise Refused(
            f"--max-loops {args.max_loops}: the run has made {state.loops} model call(s) "
            f"already; give {state.loops} or more"
        )


def _listed(actions: Any) -> str:
    from ._display import call_text

    return ", ".join(f"{call_text(a)} [{a.call_id}]" for a in actions)


def _read(store: Store, thread: str, args: argparse.Namespace) -> ThreadState:
    state = read_thread(store.saver, thread)
    if state is None:
        raise Refused(f"thread {thread!r} has no run to resume")
    return state


def resume_command(args: argparse.Namespace) -> int:
    """``lcel-agent resume ID --checkpoint STORE [--approve [CALL] | --deny [CALL]] ...``."""
    thread, store_spec = args.thread, args.checkpoint

    def work() -> int:
        with opened(args, create=None) as (stack, store):  # read-only if it must be
            options = load_options(store.saver, thread)
            if options is None:
                if thread not in store.thread_ids():
                    listing = command("threads", "--checkpoint", shown(store_spec))
                    raise Refused(f"no thread {thread!r} in {shown(store_spec)} ({listing} "
                                  "lists them)")  # fmt: skip
                raise Refused(
                    f"thread {thread!r} was not started by `lcel-agent run` (no command "
                    "options are kept beside it): resume it from Python, "
                    "agent.invoke(None, {'configurable': {'thread_id': ...}})"
                )
            state = _read(store, thread, args)
            _check(args, thread, state)
            if state.status == "finished":  # no model, no key, no server: what is stored
                return show_stored(state, args, [f"thread {thread} (finished)"], thread)
            store.writable()  # the run goes on: it writes checkpoints from here
            stack.enter_context(store.lock(thread))
            state = _read(store, thread, args)  # as it is now that no one else runs it
            _check(args, thread, state)
            if args.no_pause and options.pause:
                options = dataclasses.replace(options, pause=False)
            stack.enter_context(simulated(options.simulate))
            made = stack.enter_context(
                built(options, checkpointer=store.saver, base_url=args.base_url)
            )
            if args.no_pause:  # kept: a crash later resumes without pausing too
                save_options(store.saver, thread, options)
            value = _decision(args, state)
            if state.status == "failed":
                facts = [f"thread {thread}, resumed after its model failed in loop "
                         f"{state.loops}: that call is asked again"]  # fmt: skip
                first = state.loops
            else:
                facts = [f"thread {thread}, resumed after {state.loops} loop(s)"]
                # A loop whose reply was checkpointed goes on without a model call: its number.
                first = state.loops if state.pending else state.loops + 1
            limits = {} if args.max_loops is None else {"max_loops": args.max_loops}
            return drive(made, store, args, thread, value, state.task, configurable=limits,
                         facts=facts, first_step=first)  # fmt: skip

    return guarded(work)

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
needs no key either. A resumed run goes back to the server it started on
(:mod:`lcel_agent.cli._server`); one that stopped at its bound goes on when
``--max-loops`` raises it.
"""

from __future__ import annotations

import argparse
import dataclasses
import uuid
from typing import Any

from ..durable import ThreadState, read_thread
from ..state import StopReason
from ..testing.tasks import ARTICLE_TASK
from ._agent import (
    built,
    endpoint,
    hush_window_log,
    key,
    options_of,
    server_of,
    simulated,
    window_warning,
)
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
from ._drive import count, say
from ._hints import StoreRef, command
from ._record import RunOptions, load_options, save_options
from ._server import server_for
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

    return guarded("run", work)


def _reuse(thread: str, store: StoreRef, found: ThreadState, task: str) -> str:
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
    return f"continuing thread {thread}: finished ({stop}), {count(found.loops, 'loop')}, {same}"


def _start(args: argparse.Namespace, options: RunOptions) -> int:
    """``run --checkpoint``, once the model's key is known to be there."""
    with opened(args, create=True) as (stack, store):
        thread = args.thread or uuid.uuid4().hex[:12]
        stack.enter_context(store.lock(thread))
        found = read_thread(store.saver, thread)
        reused = None if found is None else _reuse(thread, store.ref, found, args.task)
        url = endpoint(args)
        made = stack.enter_context(built(options, checkpointer=store.saver, base_url=url))
        save_options(store.saver, thread, options)
        if reused is not None:
            say(reused)  # the earlier result is no longer what `resume` prints
        if warning := window_warning(made.agent.memory, made.agent.system_prompt, args.task):
            say(warning)
        say(f"checkpointed as thread {thread} in {store.ref}")
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


def goes_on(args: argparse.Namespace, state: ThreadState) -> bool:
    """Whether ``resume --max-loops N`` lets a run that stopped at its bound go on."""
    result = state.result
    stopped = result is not None and result.stop_reason is StopReason.MAX_LOOPS
    return stopped and args.max_loops is not None and args.max_loops > state.loops


def _check_finished(args: argparse.Namespace, thread: str, state: ThreadState) -> None:
    """A finished run's result is printed; only ``--max-loops`` past its bound goes on."""
    store, result = StoreRef.of(args), state.result
    assert result is not None
    chosen = args.approve if args.approve is not None else args.deny
    if chosen is not None:
        option = "--approve" if args.approve is not None else "--deny"
        raise Refused(f"{option}: nothing in thread {thread} waits for a decision (its run "
                      "finished; without a decision, resume prints its result)")  # fmt: skip
    given = [o for o, on in (("--no-pause", args.no_pause),
                              ("--max-loops", args.max_loops is not None),
                              ("--base-url", args.base_url is not None)) if on]  # fmt: skip
    if not given or goes_on(args, state):
        return
    if result.stop_reason is StopReason.MAX_LOOPS:
        more = str(state.loops + state.limits.max_loops)
        option = given[0] if args.max_loops is None else f"--max-loops {args.max_loops}"
        raise Refused(
            f"{option}: thread {thread}'s run stopped at its bound after "
            f"{count(state.loops, 'model call')}; give --max-loops more than {state.loops} "
            f"to let it go on: {resume_line(thread, store, '--max-loops', more)}"
        )
    raise Refused(
        f"{given[0]}: thread {thread}'s run finished ({result.stop_reason.value}), so "
        f"nothing in it goes on: {resume_line(thread, store)} prints its result; a new "
        f"question: {command('run', 'TASK', *store.words(), '--thread', thread)}"
    )


def _check(args: argparse.Namespace, thread: str, state: ThreadState) -> None:
    """Refuse what cannot be done with the thread as it stands (nothing written yet)."""
    if state.status == "finished":
        _check_finished(args, thread, state)
        return
    store = StoreRef.of(args)
    chosen = args.approve if args.approve is not None else args.deny
    option = "--approve" if args.approve is not None else "--deny"
    waiting = state.pending if state.status == "paused" else ()
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
            f"thread {thread} is paused: {count(len(waiting), 'tool call')} wait for a "
            f"decision ({_listed(waiting)}); give --approve [CALL] (run them), --deny [CALL] "
            "[--reason TEXT] (refuse them) or --no-pause (run them and every later call)"
        )
    if args.max_loops is not None and args.max_loops < state.loops:
        raise Refused(
            f"--max-loops {args.max_loops}: the run has made "
            f"{count(state.loops, 'model call')} already; give {state.loops} or more"
        )


def _listed(actions: Any) -> str:
    from ._display import call_text

    return ", ".join(f"{call_text(a)} [{a.call_id}]" for a in actions)


def _read(store: Store, thread: str, args: argparse.Namespace) -> ThreadState:
    state = read_thread(store.saver, thread)
    if state is None:
        raise Refused(f"thread {thread!r} has no run to resume")
    return state


def _options(store: Store, thread: str) -> RunOptions:
    """The options ``run`` kept beside ``thread`` (Refused: an unknown thread, or one the
    command line did not start)."""
    options = load_options(store.saver, thread)
    if options is not None:
        return options
    if thread not in store.thread_ids():
        listing = command("threads", *store.ref.words())
        raise Refused(f"no thread {thread!r} in {store.ref} ({listing} lists them)")
    raise Refused(
        f"thread {thread!r} was not started by `lcel-agent run` (no command options are "
        "kept beside it): resume it from Python, "
        "agent.invoke(None, {'configurable': {'thread_id': ...}})"
    )


def _facts(thread: str, state: ThreadState) -> tuple[list[str], int]:
    """The header's line about where the run goes on, and the number of its next loop."""
    if state.status == "failed":
        return [f"thread {thread}, resumed after its model failed in loop {state.loops}: "
                "that call is asked again"], state.loops  # fmt: skip
    if state.status == "finished":
        return [f"thread {thread}, goes on past its bound after "
                f"{count(state.loops, 'loop')}"], state.loops + 1  # fmt: skip
    # A loop whose reply was checkpointed goes on without a model call: its number.
    first = state.loops if state.pending else state.loops + 1
    return [f"thread {thread}, resumed after {count(state.loops, 'loop')}"], first


def _go_on(args: argparse.Namespace, stack: Any, store: Store, options: RunOptions) -> int:
    """Resume the thread's run (the store is writable, the thread not yet locked)."""
    thread = args.thread
    stack.enter_context(store.lock(thread))
    state = _read(store, thread, args)  # as it is now that no one else runs it
    _check(args, thread, state)
    url, where = server_for(args, options, thread)
    bound = args.max_loops or state.limits.max_loops  # the bound in force, for the header
    changed = dataclasses.replace(options, max_loops=bound,
                                  pause=options.pause and not args.no_pause)  # fmt: skip
    if args.base_url is not None:  # the run moves: a later resume goes on there too
        server, login = server_of(args.base_url)
        changed = dataclasses.replace(changed, base_url=server, base_url_login=login)
    stack.enter_context(simulated(options.simulate))
    made = stack.enter_context(built(changed, checkpointer=store.saver, base_url=url))
    if changed != options:  # kept: a crash later resumes with them too
        save_options(store.saver, thread, changed)
    if where is not None:
        say(where)
    facts, first = _facts(thread, state)
    limits = {} if args.max_loops is None else {"max_loops": args.max_loops}
    return drive(made, store, args, thread, _decision(args, state), state.task,
                 configurable=limits, facts=facts, first_step=first)  # fmt: skip


def resume_command(args: argparse.Namespace) -> int:
    """``lcel-agent resume ID --checkpoint STORE [--approve [CALL] | --deny [CALL]] ...``."""
    hush_window_log()  # a long task's warning was said when it started

    def work() -> int:
        with opened(args, create=None) as (stack, store):  # read-only if it must be
            options = _options(store, args.thread)
            state = _read(store, args.thread, args)
            _check(args, args.thread, state)
            if state.status == "finished" and not goes_on(args, state):
                # no model, no key, no server: what is stored
                return show_stored(state, args, [f"thread {args.thread} (finished)"], args.thread)
            store.writable()  # the run goes on: it writes checkpoints from here
            return _go_on(args, stack, store, options)

    return guarded("resume", work)

"""Durable runs: state that outlives a process, through LangGraph's checkpoint savers.

::

    from langgraph.checkpoint.sqlite import SqliteSaver

    saver = SqliteSaver(sqlite3.connect("agent.db", check_same_thread=False))
    agent = create_agent(llm, tools, checkpointer=saver)
    config = {"configurable": {"thread_id": "t1"}}
    agent.invoke("查询北京天气", config)    # checkpointed loop by loop
    # ... the process is killed; in a new one:
    agent.invoke(None, config)               # the run goes on where it stopped
    agent.get_state(config)                  # ThreadState: status, steps, pending, result
    summarize_thread(saver, "t1")            # the same in a few fields, without an agent

A run on a thread writes a checkpoint when it starts, when the model's reply
is decided (before its tool calls run; the ``checkpoint`` stage), one write per
finished tool call and per approval decision, a checkpoint after each loop that
had no call to run, and one when it ends. Resuming recalls the finished calls instead of running them again and runs
the decided ones without a new model call; the result carries every step. A
new input on a thread whose run finished continues the conversation (the
window is carried over). Approvals can pause a run
(``approve=lcel_agent.approval.pause``) until a person decides, in this process
or another. docs/durable.md has the whole story.

This package is the one place for such state (``session_id`` in the config names
the thread too, as it named the retired ``SessionStore``'s session). Everything here
speaks LangGraph's saver
interface only (``langgraph-checkpoint``, the ``durable`` extra); nothing of it
is imported until an agent has a checkpointer.
"""

from __future__ import annotations

from ._record import Identity, Phase
from ._setup import check_checkpointer, with_checkpoint
from ._stage import CHECKPOINT_STAGE, SaveDecision
from ._summary import ThreadSummary, read_thread, summarize_thread
from ._threads import Journey, Threads
from ._trip import ARunLoop, RunLoop, Trip
from ._view import ThreadState

__all__ = [
    "CHECKPOINT_STAGE",
    "ARunLoop",
    "Identity",
    "Journey",
    "Phase",
    "RunLoop",
    "SaveDecision",
    "ThreadState",
    "ThreadSummary",
    "Threads",
    "Trip",
    "check_checkpointer",
    "read_thread",
    "summarize_thread",
    "with_checkpoint",
]

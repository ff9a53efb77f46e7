"""Ready-made approvers for ``create_agent(..., approve=...)``.

:class:`TerminalApprover` asks a person at a terminal before each tool call
(what ``lcel-agent run --confirm`` uses)::

    agent = create_agent(llm, tools, approve=TerminalApprover())
    # Run get_weather(城市='北京')? [y/N/reason] y

``y`` or ``yes`` runs the call; ``n``, ``no`` or an empty line refuses it; any
other text refuses it and is what the model is told (``ERROR: <text>``). With
no one to ask (end of input), every call is refused.

:func:`pause` asks nobody now: it pauses the run until a person decides, which
may be in another process, days later. It needs a checkpointer and a thread::

    agent = create_agent(llm, tools, checkpointer=saver, approve=pause)
    result = agent.invoke(task, {"configurable": {"thread_id": "t1"}})
    result.stop_reason, result.pending          # "paused", the calls waiting
    agent.invoke(Command(resume=True), {"configurable": {"thread_id": "t1"}})

Inside a LangGraph graph the pause is LangGraph's own ``interrupt()``; the
decision comes back through ``graph.invoke(Command(resume=...), config)``. An
approver may also pause only some calls: ``return pause(action)`` where it
wants a person, ``True`` elsewhere. See docs/durable.md.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import NoReturn, TextIO

from ._redact import redact
from .state import Action

__all__ = ["ApprovalPending", "TerminalApprover", "pause"]

_YES = frozenset({"y", "yes"})
_NO = frozenset({"", "n", "no"})


class TerminalApprover:
    """Ask y/n on a terminal before each tool call; see the module docstring.

    Args:
        stdin: where answers are read (default ``sys.stdin``).
        stdout: where questions are written (default ``sys.stderr``, so a
            ``--json`` result on stdout stays clean).
    """

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None) -> None:
        self._stdin = stdin
        self._stdout = stdout
        self._lock = threading.Lock()  # parallel calls are asked one at a time

    def question(self, action: Action) -> str:
        """The question asked about ``action``."""
        shown = (
            action.tool_input
            if isinstance(action.tool_input, str)
            else json.dumps(action.tool_input, ensure_ascii=False, default=str)
        )
        return f"Run {action.tool}({redact(shown)})? [y/N/reason] "

    def __call__(self, action: Action) -> bool | str:
        stdin = self._stdin or sys.stdin
        stdout = self._stdout or sys.stderr
        with self._lock:
            stdout.write(self.question(action))
            stdout.flush()
            line = stdin.readline()
        if not line:
            return "no one was there to approve the call"
        answer = line.strip()
        if answer.lower() in _YES:
            return True
        if answer.lower() in _NO:
            return False
        return answer


class ApprovalPending(Exception):  # a signal, not an error (like pydantic-ai's ModelRetry)
    """Raised by an approver to pause the run until a person decides; see :func:`pause`.

    The dispatcher asks about every call of the reply first, then raises one
    ``ApprovalPending`` naming all the calls that wait; the agent checkpoints
    them and stops with ``stop_reason="paused"`` (or calls LangGraph's
    ``interrupt()`` inside a graph).
    """

    def __init__(self, actions: tuple[Action, ...]) -> None:
        super().__init__(", ".join(f"{a.tool} ({a.call_id})" for a in actions))
        self.actions = actions


def pause(action: Action) -> NoReturn:
    """``approve=pause``: every tool call waits for a person's decision (module docstring)."""
    raise ApprovalPending((action,))

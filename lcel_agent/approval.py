"""Ready-made approvers for ``create_agent(..., approve=...)``.

:class:`TerminalApprover` asks a person at a terminal before each tool call
(what ``lcel-agent run --confirm`` uses)::

    agent = create_agent(llm, tools, approve=TerminalApprover())
    # Run get_weather(城市='北京')? [y/N/reason] y

``y`` or ``yes`` runs the call; ``n``, ``no`` or an empty line refuses it; any
other text refuses it and is what the model is told (``ERROR: <text>``). With
no one to ask (end of input), every call is refused.
"""

from __future__ import annotations

import json
import sys
import threading
from typing import TextIO

from ._redact import redact
from .state import Action

__all__ = ["TerminalApprover"]

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

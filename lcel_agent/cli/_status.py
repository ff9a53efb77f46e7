"""The exit statuses of ``lcel-agent``: how a script tells how the command ended.

:mod:`lcel_agent.cli` (which re-exports them) and the commands it runs both read these,
so they live below both.
"""

from __future__ import annotations

__all__ = ["EXIT_CODES", "EXIT_INTERNAL", "EXIT_INTERRUPTED", "EXIT_USAGE"]

#: The exit status for each stop reason (keys are ``StopReason`` values; it is a str enum).
EXIT_CODES: dict[str, int] = {
    "final": 0,
    "max_loops": 3,
    "max_errors": 4,
    "drift": 5,
    "llm_error": 6,
    "budget": 7,
    "paused": 8,
}
#: Bad arguments, a missing key, an invalid configuration.
EXIT_USAGE = 2
#: A bug: the run raised (it never should for anything the model or a tool did).
EXIT_INTERNAL = 1
#: Interrupted (Ctrl-C): 128 + SIGINT, as shells report it.
EXIT_INTERRUPTED = 130

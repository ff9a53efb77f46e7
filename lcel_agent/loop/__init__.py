"""The loop: the Runnable that drives the stages, loop after loop, until a stop.

:mod:`._driver` holds :class:`AgentLoop` (what ``create_agent`` returns: the sync and
async drivers, ``invoke``, ``stream`` and their twins), :mod:`._one_loop` a run's loops
and one loop's stages, traced (``loop:N``) or quiet, :mod:`._answer_stage` what the loop
asks of the answer stage in its chain, :mod:`._tracing` the masking of what LangSmith
traces, :mod:`.graph` ``agent.get_graph()``, and :mod:`.streaming` answer streaming (the
listener on the model's tokens, the JSON answer reader, the pump that runs a run beside
its reader). The door exports what the loop's users need (``from lcel_agent.loop import
AgentLoop, AgentEvent, Limits``). The loop stands above the stages, the stage rules
(``gate`` and ``finish`` live in :mod:`lcel_agent.rules.limits`, since the durable room
uses them too), the durable room, the conversation room and memory; only the builder and
the package's own door import it.
"""

from ._driver import AgentEvent, AgentLoop, Limits, StreamMode, finish, gate, task_of

__all__ = ["AgentEvent", "AgentLoop", "Limits", "StreamMode", "finish", "gate", "task_of"]

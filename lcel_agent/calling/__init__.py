"""Calling a tool: what the dispatcher (and any runner of tools) needs, in one room.

* the ``ERROR:`` convention and bounded results (:func:`is_error_result`,
  :func:`stringify_output`, :func:`truncate_output`, :class:`TransientError`; also
  exported by :mod:`lcel_agent.tools` for tool writers);
* a call's input checked against its tool's JSON schema (:func:`fit_input`);
* the arguments injected rather than written by the model (:class:`Injected`), and the
  payload a tool is invoked with (:func:`tool_payload`, LangChain's ``ToolRuntime``);
* whether a tool runs sync or async natively (:func:`runs_sync`, :func:`runs_async`);
* whatever a tool returned, read (:func:`read_result`).

It imports nothing of the library's stages or tools: they import it.
"""

from ._fit import Fitted, call_schema, fit_input, schema_line
from ._injected import Injected, injected_args, model_args
from ._native import runs_async, runs_sync, session_bound
from ._output import (
    ERROR_PREFIX,
    TransientError,
    is_error_result,
    stringify_output,
    truncate_output,
)
from ._results import ToolResult, is_media_block, media_blocks, read_result
from ._runtime import agent_state, check_sync_run, check_tool, run_config, tool_payload

__all__ = [
    "ERROR_PREFIX",
    "Fitted",
    "Injected",
    "ToolResult",
    "TransientError",
    "agent_state",
    "call_schema",
    "check_sync_run",
    "check_tool",
    "fit_input",
    "injected_args",
    "is_error_result",
    "is_media_block",
    "media_blocks",
    "model_args",
    "read_result",
    "run_config",
    "runs_async",
    "runs_sync",
    "schema_line",
    "session_bound",
    "stringify_output",
    "tool_payload",
    "truncate_output",
]

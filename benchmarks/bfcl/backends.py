"""Where a tool call goes: an entry's live BFCL backends, or (single-turn) nowhere.

    with LiveBackends(entry) as backends:
        tools = make_tools(entry["function"], Recorder(backends, log).call)
        ...                                   # calls run on the entry's file system, ...
        backends.model_name                   # pass it to the checker, then leave the block

BFCL runs a call string such as ``cd(folder='document')`` on an entry's backends with
``execute_multi_turn_func_call``, which keeps each backend instance in its module's
globals under ``{model_name}_{entry id}_{class}_instance`` (and the checker's replays
under ``model_name + "_eval"`` and ``+ "_ground_truth_eval"``). Each run gets a model
name of its own, so no two runs share a file system, and leaving the block deletes every
instance of that name, so a long benchmark does not keep hundreds of them alive.
"""

from __future__ import annotations

import threading
import uuid
from types import TracebackType
from typing import Any, Protocol

from benchmarks.bfcl._bfcl import bfcl_ready
from benchmarks.bfcl.recording import CallLog
from benchmarks.bfcl.schema import tool_name

bfcl_ready()

from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils  # noqa: E402

#: What a single-turn tool answers: those entries have no backend (BFCL scores the calls,
#: never runs them), and a result must not invent facts the model could build on.
NO_BACKEND_RESULT = "The call was received. (This test has no backend: there is no result to show.)"


def call_text(name: str, arguments: dict[str, Any]) -> str:
    """A call as BFCL writes one: ``name(k=repr(v),...)`` (``convert_to_function_call``)."""
    return f"{name}({','.join(f'{k}={v!r}' for k, v in arguments.items())})"


class Backend(Protocol):
    """Runs one call and answers with the result text."""

    def execute(self, name: str, arguments: dict[str, Any]) -> tuple[str, str]:
        """The call as recorded, and its result."""
        ...


class LiveBackends:
    """An entry's backends (file system, messaging, ...) for one run of one framework."""

    def __init__(self, entry: dict[str, Any]) -> None:
        self.entry = entry
        self.model_name = f"lcelbench_{uuid.uuid4().hex[:12]}"
        category = entry["id"].rsplit("_", 1)[0]
        self._long_context = "long_context" in category or "composite" in category
        self._lock = threading.Lock()

    def run(self, calls: list[str]) -> list[str]:
        """Call strings run in order on the live instances; one result each."""
        with self._lock:  # BFCL's backends are plain objects: one call at a time
            results, _ = multi_turn_utils.execute_multi_turn_func_call(
                calls, self.entry["initial_config"], self.entry["involved_classes"],
                self.model_name, self.entry["id"], long_context=self._long_context,
                is_evaL_run=False,
            )  # fmt: skip
        return results

    def execute(self, name: str, arguments: dict[str, Any]) -> tuple[str, str]:
        call = call_text(name, arguments)
        return call, self.run([call])[0]

    def close(self) -> None:
        """Delete every backend instance this run's name created (the checker's too)."""
        space = vars(multi_turn_utils)
        for key in [k for k in space if k.startswith(self.model_name + "_")]:
            del space[key]

    def __enter__(self) -> LiveBackends:
        self.run([])  # the instances exist from the start, as in BFCL's runner
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # fmt: skip
        self.close()


class NoBackend:
    """Single-turn entries: the call is recorded as ``{tool name: arguments}``, nothing runs."""

    def __init__(self) -> None:
        self.calls: list[dict[str, dict[str, Any]]] = []
        self._lock = threading.Lock()

    def execute(self, name: str, arguments: dict[str, Any]) -> tuple[str, str]:
        with self._lock:
            self.calls.append({tool_name(name): dict(arguments)})
        return call_text(name, arguments), NO_BACKEND_RESULT

    def __enter__(self) -> NoBackend:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class Recorder:
    """The tools' ``call``: run on the backend, file the call and its result in the log."""

    def __init__(self, backend: Backend, log: CallLog) -> None:
        self.backend = backend
        self.log = log

    def call(self, name: str, arguments: dict[str, Any]) -> str:
        made, result = self.backend.execute(name, arguments)
        self.log.record(made, result)
        return result

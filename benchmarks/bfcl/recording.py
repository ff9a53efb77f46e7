"""What a run did, recorded the same way for every framework.

    meter = Meter()                           # a LangChain callback handler
    log = CallLog(meter)
    log.start_turn()
    framework.turn(..., callbacks=[meter])    # tools call log.record(call, result)
    log.decoded()                             # turn -> step -> ["cd(folder='x')", ...]

:class:`Meter` sees every model call through LangChain's callbacks, which every
framework passes down to its chat model: when it started, how long it took, the
tokens the server reported, the reply (text and native tool calls), or the error.
:class:`CallLog` files each executed tool call under the model call that asked for it
(the number of model calls started so far, since a tool runs after its model call
returns), turn by turn. That is BFCL's shape for the checker: per turn, per model step,
the calls made; steps without a call are left out, as BFCL's own runner leaves out
steps it cannot decode.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult

#: Characters of a reply or a tool result kept in the record (the record is committed;
#: the model's replies here are short, a result can be a whole file listing).
KEEP_CHARS = 1500


def _clip(text: str, limit: int = KEEP_CHARS) -> str:
    return text if len(text) <= limit else text[:limit] + f"… [{len(text) - limit} more]"


@dataclass
class ModelCall:
    """One model call as the callbacks saw it."""

    index: int
    """1-based, in the order the calls started within the entry."""
    started: float
    elapsed_s: float | None = None
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None
    reply: str | None = None
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k != "started"}


def _usage(response: LLMResult) -> tuple[int | None, int | None]:
    for generations in response.generations:
        for generation in generations:
            message = getattr(generation, "message", None)
            usage = getattr(message, "usage_metadata", None)
            if usage:
                return usage.get("input_tokens"), usage.get("output_tokens")
    usage = (response.llm_output or {}).get("token_usage") or {}
    return usage.get("prompt_tokens"), usage.get("completion_tokens")


class Meter(BaseCallbackHandler):
    """Counts and records every model call of a run (thread-safe)."""

    def __init__(self) -> None:
        self.calls: list[ModelCall] = []
        self._open: dict[UUID, ModelCall] = {}
        self._lock = threading.Lock()

    @property
    def started(self) -> int:
        """How many model calls have started: the step a tool call now belongs to."""
        with self._lock:
            return len(self.calls)

    def _start(self, run_id: UUID) -> None:
        with self._lock:
            call = ModelCall(index=len(self.calls) + 1, started=time.perf_counter())
            self.calls.append(call)
            self._open[run_id] = call

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[BaseMessage]], *, run_id: UUID,
        **kwargs: Any,
    ) -> None:  # fmt: skip
        self._start(run_id)

    def on_llm_start(
        self, serialized: dict[str, Any], prompts: list[str], *, run_id: UUID, **kwargs: Any
    ) -> None:
        self._start(run_id)

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            call = self._open.pop(run_id, None)
        if call is None:
            return
        call.elapsed_s = round(time.perf_counter() - call.started, 2)
        call.prompt_tokens, call.completion_tokens = _usage(response)
        generation = response.generations[0][0] if response.generations else None
        if generation is not None:
            call.reply = _clip(generation.text or "")
            message = getattr(generation, "message", None)
            call.tool_calls = [
                {"name": c["name"], "args": c["args"]} for c in getattr(message, "tool_calls", [])
            ]
            info = generation.generation_info or {}
            metadata = getattr(message, "response_metadata", None) or {}
            call.finish_reason = info.get("finish_reason") or metadata.get("finish_reason")

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        with self._lock:
            call = self._open.pop(run_id, None)
        if call is not None:
            call.elapsed_s = round(time.perf_counter() - call.started, 2)
            call.error = _clip(f"{type(error).__name__}: {error}", 300)


@dataclass
class ToolCall:
    """One executed call: the step that asked for it, the call as BFCL writes it, the result."""

    step: int
    call: str
    result: str


class CallLog:
    """Executed calls per turn, each under the model call that made it."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.turns: list[list[ToolCall]] = []
        self._lock = threading.Lock()

    def start_turn(self) -> None:
        with self._lock:
            self.turns.append([])

    def record(self, call: str, result: str) -> None:
        """File one executed call under the current turn and model step."""
        with self._lock:
            if not self.turns:
                self.turns.append([])
            self.turns[-1].append(ToolCall(self.meter.started, call, result))

    def steps(self, turn: int) -> list[list[str]]:
        """One turn's calls grouped by model step, in order (steps without calls left out)."""
        grouped: dict[int, list[str]] = {}
        for made in self.turns[turn]:
            grouped.setdefault(made.step, []).append(made.call)
        return [grouped[step] for step in sorted(grouped)]

    def decoded(self) -> list[list[list[str]]]:
        """Every turn's steps: what BFCL's ``multi_turn_checker`` takes."""
        return [self.steps(t) for t in range(len(self.turns))]

    def to_dict(self) -> list[list[dict[str, Any]]]:
        return [
            [{"step": c.step, "call": c.call, "result": _clip(c.result, 600)} for c in turn]
            for turn in self.turns
        ]

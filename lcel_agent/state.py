"""The typed values that flow through a run, and the result it ends with.

Every stage of the step chain takes an :class:`AgentState` and returns a new one
(``dataclasses.replace``); the loop turns the last state into an
:class:`AgentResult`. Users mostly meet :class:`AgentResult`::

    result = agent.invoke("查询北京天气")
    if result.stop_reason is StopReason.FINAL:
        print(result.output)
    else:
        print(result.error)   # which step, which error class, the last message
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage

from .breaker import BreakerState
from .errors import ErrorClass

if TYPE_CHECKING:
    from .memory import Fact, SlidingWindowMemory

__all__ = [
    "FINAL_ACTION",
    "Action",
    "AgentResult",
    "AgentState",
    "Observation",
    "RunError",
    "StepRecord",
    "StopReason",
    "Usage",
]

#: The action name that ends a run with an answer.
FINAL_ACTION = "final"


class StopReason(StrEnum):
    """Why a run ended. A ``str`` enum: ``result.stop_reason == "final"`` works."""

    FINAL = "final"
    """The model gave its answer."""
    MAX_LOOPS = "max_loops"
    """``max_loops`` model calls were made without an answer."""
    MAX_ERRORS = "max_errors"
    """The circuit breaker tripped (see ``lcel_agent.breaker``), or a policy said stop."""
    DRIFT = "drift"
    """The model kept repeating itself after one nudge."""
    LLM_ERROR = "llm_error"
    """The model API failed for good (fatal error, or retries exhausted)."""
    BUDGET = "budget"
    """The run's token budget or wall-clock budget was spent."""
    PAUSED = "paused"
    """Not an end: tool calls wait for a person's decision (``result.pending``). The run is
    checkpointed; ``agent.invoke(Command(resume=...), config)`` goes on (docs/durable.md)."""


@dataclass(frozen=True, slots=True)
class Usage:
    """Token usage, as reported by the model (or estimated when it reports none)."""

    input_tokens: int = 0
    """Prompt tokens."""
    output_tokens: int = 0
    """Completion tokens."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens, self.output_tokens + other.output_tokens
        )

    def to_dict(self) -> dict[str, int]:
        """``{"input_tokens", "output_tokens", "total_tokens"}``."""
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }


@dataclass(frozen=True, slots=True)
class Action:
    """One action the model asked for: a tool call, or the final answer."""

    tool: str
    """The tool's name, or ``"final"``."""
    tool_input: Any
    """The input as the model wrote it (a string, a dict, ...)."""
    call_id: str | None = None
    """The native tool-call id (tool-calling protocol only)."""

    @property
    def is_final(self) -> bool:
        """True for the ``final`` action."""
        return self.tool == FINAL_ACTION

    @property
    def input_text(self) -> str:
        """The input as the model would read it: a string, a dict's one string, else JSON."""
        value = self.tool_input
        if isinstance(value, dict) and len(value) == 1:
            (only,) = value.values()
            value = only if isinstance(only, str) else value
        if isinstance(value, str):
            return value
        return json.dumps(value, ensure_ascii=False, default=str)

    def signature(self) -> str:
        """A stable text key of tool and input, used to recognise repeats."""
        return (
            self.tool
            + "\x00"
            + json.dumps(self.tool_input, sort_keys=True, ensure_ascii=False, default=str)
        )

    def to_dict(self) -> dict[str, Any]:
        """``{"action": ..., "action_input": ...}``, the JSON protocol's shape."""
        return {"action": self.tool, "action_input": self.tool_input}


@dataclass(frozen=True, slots=True)
class Observation:
    """What came of one tool action."""

    action: Action
    """The action it answers."""
    output: str
    """The text shown to the model: the tool's result, or a short error notice (bounded, redacted)."""
    ok: bool
    """True when the tool ran and did not fail."""
    error_class: ErrorClass | None = None
    """Why it failed, when it did."""
    tool: str = ""
    """The tool that produced ``output`` (a fallback tool's name when one stood in)."""
    attempts: int = 1
    """Tool executions spent on this action, retries and fallbacks included."""
    latency_ms: float = 0.0
    """Wall time of the dispatch, in milliseconds."""


@dataclass(frozen=True, slots=True)
class RunError:
    """Where and why a run stopped other than with an answer, or why one loop failed."""

    step: int
    """The loop (1-based) where it happened; 0 before the first model call."""
    stage: str
    """The stage that saw it: ``call_llm``, ``clean_json``, ``dispatch_tools``, ``loop`` ..."""
    error_class: ErrorClass
    """The error class."""
    message: str
    """The last error message, secrets redacted."""
    notice: str | None = None
    """What the model is told about this error, when it is not the class's fixed text
    (e.g. a validation message, or "answer shorter"); never a raw parser or API error."""

    def __str__(self) -> str:
        return f"step {self.step} ({self.stage}): {self.error_class.value}: {self.message}"


@dataclass(frozen=True, slots=True)
class StepRecord:
    """One loop of a run: what the model said, what ran, what came of it."""

    step: int
    """The loop number, from 1."""
    raw: str
    """The model's raw reply text (tool calls, if any, are in ``actions``)."""
    actions: tuple[Action, ...]
    """The parsed actions (empty when the reply could not be read)."""
    observations: tuple[Observation, ...]
    """One per tool action that was dispatched (or refused)."""
    error: RunError | None
    """The loop's error, if the loop failed."""
    usage: Usage
    """Tokens of this loop's model call."""
    llm_ms: float
    """Wall time of the model call (retries included), in milliseconds."""
    tools_ms: float
    """Wall time of the tool dispatch, in milliseconds."""
    forced: bool = False
    """True on the loop reserved for a forced final answer."""
    stage_ms: tuple[tuple[str, float], ...] = ()
    """``(stage name, milliseconds)`` per stage of this loop, in chain order (empty when not timed)."""
    window_tokens: int = 0
    """Tokens of the memory window this loop's prompt was built from (the window's ``token_count``)."""
    window_budget: int = 0
    """The window's ``max_tokens`` at that call."""

    def __add__(self, other: Any) -> Any:
        # A stream's events add up to the last one: LangChain adds streamed chunks to
        # record a run's output, so a streamed run's trace ends with its real output.
        return other

    @property
    def error_class(self) -> ErrorClass | None:
        """The loop's error class, or None when the loop succeeded."""
        return self.error.error_class if self.error else None

    @property
    def ok(self) -> bool:
        """True when the loop succeeded."""
        return self.error is None


@dataclass(frozen=True, slots=True)
class AgentResult:
    """How a run ended. Returned by ``invoke``; the last item of ``stream``."""

    input: str
    """The task the run was given."""
    output: Any
    """The final answer (text, or the validated object with ``response_format``), or None
    when the run stopped without one."""
    stop_reason: StopReason
    """Why the run ended."""
    loops: int
    """Model calls made (never more than ``max_loops``)."""
    steps: tuple[StepRecord, ...]
    """One record per loop."""
    usage: Usage
    """Tokens of the whole run."""
    error: RunError | None = None
    """For every stop but ``final``: where and why it stopped."""
    forced: bool = False
    """True when the answer came from the reserved last loop (``reserve_final_answer``)."""
    elapsed_s: float = 0.0
    """Wall time of the run, in seconds."""
    messages: tuple[BaseMessage, ...] = ()
    """The memory window at the end of the run."""
    compaction_usage: Usage = field(default_factory=Usage)
    """Tokens the memory's compactor spent on model-written summaries (part of ``usage``)."""
    compaction_calls: int = 0
    """Model calls the memory's compactor made (not counted in ``loops``)."""
    pending: tuple[Action, ...] = ()
    """With ``stop_reason="paused"``: the tool calls waiting for a decision, by ``call_id``."""

    @property
    def ok(self) -> bool:
        """True when the run produced an answer."""
        return self.output is not None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the whole result (what ``lcel-agent run --json`` prints)."""
        data = asdict(self)
        dump = getattr(self.output, "model_dump", None)
        if callable(dump):  # a response_format model: its JSON form
            data["output"] = dump(mode="json")
        data["stop_reason"] = self.stop_reason.value
        data["usage"] = self.usage.to_dict()
        data["compaction_usage"] = self.compaction_usage.to_dict()
        data["messages"] = [{"type": m.type, "content": m.content} for m in self.messages]
        for record, step in zip(data["steps"], self.steps, strict=True):
            record["usage"] = step.usage.to_dict()
        safe: dict[str, Any] = json.loads(json.dumps(data, ensure_ascii=False, default=str))
        return safe

    def to_html(self) -> str:
        """The run as one self-contained HTML page: timeline, replies, tool calls, window.

        ``Path("run.html").write_text(result.to_html())``; it opens from disk and
        loads nothing (see :mod:`lcel_agent.report`).
        """
        from .report import render_run  # the report (and Jinja2) only when asked for

        return render_run(self.to_dict())


@dataclass(frozen=True, slots=True)
class AgentState:
    """The value every stage takes and returns. Build one with ``AgentState.start``.

    Fields marked *per loop* are reset by ``assemble_prompt`` at the start of
    each loop; the rest accumulate over the run.
    """

    task: str
    """The user's task."""
    memory: SlidingWindowMemory
    """The memory window (stages never mutate it: ``trim_memory`` makes a new one)."""
    started: float
    """``time.monotonic()`` at the start of the run."""
    deadline: float | None = None
    """``time.monotonic()`` instant when ``time_budget`` runs out (None without one): every
    wait inside a model call is cut to it."""
    loops: int = 0
    """Model calls made so far."""
    breaker: BreakerState = field(default_factory=BreakerState)
    """The circuit breaker's memory: loops since progress, repeated failures (see ``breaker``)."""
    usage: Usage = field(default_factory=Usage)
    """Tokens so far (memory compaction's model calls included)."""
    compaction_usage: Usage = field(default_factory=Usage)
    """Tokens spent by the memory's compactor (a model-written summary), part of ``usage``."""
    compaction_calls: int = 0
    """Model calls made by the memory's compactor."""
    steps: tuple[StepRecord, ...] = ()
    """Records of the finished loops."""
    history: tuple[tuple[str, bool, str], ...] = ()
    """``(action signature, succeeded, result prefix)`` per dispatched action (drift detection)."""
    tool_counts: tuple[tuple[str, int], ...] = ()
    """Calls per tool so far (for ``tool_call_limits``)."""
    final_only: bool = False
    """True on the loop reserved for a forced final answer."""
    stop: StopReason | None = None
    """Set when the run must end."""
    output: str | None = None
    """The final answer, once there is one."""
    error: RunError | None = None
    """The error that stopped the run (or the last loop error)."""
    # --- per loop ---
    prompt: tuple[BaseMessage, ...] = ()
    """Per loop: the messages sent to the model."""
    reply: AIMessage | None = None
    """Per loop: the model's reply."""
    parsed: Any = None
    """Per loop: the JSON value the cleaner read from the reply."""
    actions: tuple[Action, ...] = ()
    """Per loop: the parsed actions."""
    observations: tuple[Observation, ...] = ()
    """Per loop: the results of the dispatched actions."""
    loop_error: RunError | None = None
    """Per loop: the first error of this loop."""
    pending: tuple[BaseMessage, ...] = ()
    """Per loop: messages ``trim_memory`` adds to the window (as one turn)."""
    pending_facts: tuple[Fact, ...] = ()
    """Per loop: what the loop established, kept by the window's compactor."""
    pending_failed: bool = False
    """Per loop: the loop failed (its turn leaves the window at the next success)."""
    llm_ms: float = 0.0
    """Per loop: model call time."""
    tools_ms: float = 0.0
    """Per loop: dispatch time."""
    step_usage: Usage = field(default_factory=Usage)
    """Per loop: tokens of this loop's call."""

    def tool_count(self, name: str) -> int:
        """Calls of tool ``name`` so far."""
        return dict(self.tool_counts).get(name, 0)

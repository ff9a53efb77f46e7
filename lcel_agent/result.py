"""How a run ends, and the records it is made of: :class:`AgentResult`, one
:class:`StepRecord` per loop, the :class:`Action` and :class:`Observation` of each tool
call, :class:`RunError`, :class:`Usage` and :class:`StopReason`.

Public path: :mod:`lcel_agent.state` (and the package itself)::

    result = agent.invoke("查询北京天气")
    if result.stop_reason is StopReason.FINAL:
        print(result.output)
    else:
        print(result.error)   # which step, which error class, the last message

These types need nothing but the error classes, so they sit on the floor below
:mod:`lcel_agent.errors`, whose :class:`~lcel_agent.errors.AgentRunError` carries a result.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage

from ._shared.answer_codes import Repair, Trigger
from ._shared.error_class import ErrorClass

__all__ = [
    "FINAL_ACTION",
    "Action",
    "AgentResult",
    "AnswerRecord",
    "Observation",
    "Repair",
    "RunError",
    "StepRecord",
    "StopReason",
    "Trigger",
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
    """The circuit breaker tripped (see ``lcel_agent.rules.breaker``), or a policy said stop."""
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
    estimated: bool = False
    """True when some of these tokens are lcel_agent's estimate: the model reported none."""
    interrupted: int = 0
    """Model requests sent whose replies were lost to an interruption (a durable run that
    was killed or stopped during the call, then resumed): the provider saw them, so their
    prompt tokens are counted, estimated."""

    @property
    def total_tokens(self) -> int:
        """Prompt plus completion tokens."""
        return self.input_tokens + self.output_tokens

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.estimated or other.estimated,
            self.interrupted + other.interrupted,
        )

    def to_dict(self) -> dict[str, int | bool]:
        """``{"input_tokens", "output_tokens", "total_tokens"}``, ``"estimated": True``
        when the count is (partly) an estimate, and ``"interrupted_requests": N`` when
        it counts requests whose replies an interruption lost."""
        data: dict[str, int | bool] = {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "total_tokens": self.total_tokens,
        }
        if self.estimated:
            data["estimated"] = True
        if self.interrupted:
            data["interrupted_requests"] = self.interrupted
        return data


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
    blocks: tuple[dict[str, Any], ...] = ()
    """Content blocks the tool returned beside its text (images): they reach the model as
    blocks, never as base64 text."""
    artifact: Any = None
    """The tool's artifact (``response_format="content_and_artifact"``, an MCP tool's
    ``structured_content``): kept for the caller, never shown to the model."""


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
    reply: AIMessage | None = None
    """The model's reply as it came (id, ``response_metadata``, ``usage_metadata``), secrets
    masked; the ``{"messages": [...]}`` output is built from it."""
    kind: str = "act"
    """``"act"`` for a loop of the acting model; ``"answer"`` for a call of the answer stage,
    which wrote (part of) the answer from the tools' results."""
    notice: str | None = None
    """The notice the reply was sent back with, when it was words sent back once (a plan,
    or words before any call in the JSON protocol): not an error, not counted by the breaker."""

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
class AnswerRecord:
    """How the run's answer came to be (``result.answer``): the answer stage's account.

    Set whenever the model stopped acting with tool results in hand. ``source`` says whose
    words the answer is: the acting model's own (``"model"``: kept as it wrote it, or its
    ``final`` action unwrapped), the answer stage's, written in a fresh, short context
    from every result the run gathered (``"composed"``), or, when no answer could be
    had, the results themselves in plain lines (``"results"``, with a ``note``). ``repair``
    says why the stage wrote, when it did.
    """

    source: str
    """``"model"``, ``"composed"`` or ``"results"`` (see above)."""
    trigger: str
    """What ended the acting: a :class:`Trigger` (``final``, ``forced``, ``empty``,
    ``plan``, ``echo``, ``cut``, ``drift``, ``stopped``: the results are then delivered in
    plain lines)."""
    results: int
    """Successful tool results the answer was checked against or written from."""
    unused: tuple[str, ...] = ()
    """The calls whose results the model's own answer provably left out (``get_weather(北京)``):
    why it was rewritten, or, when it was kept for want of a model call, what it lacks."""
    draft: str | None = None
    """The model's own answer, when the answer stage replaced it."""
    calls: int = 0
    """Model calls the answer stage made (each counts as a loop)."""
    output_mode: str = ""
    """How the composed answer was asked for: ``native`` (the server held the reply to a
    JSON schema), ``prompted`` (JSON asked for in words) or ``text``."""
    complete: bool = True
    """False when some result is not in the answer: the loops or the budget ran out, or a
    reply was cut short (``note`` says which). A cut answer is never passed off as whole."""
    note: str = ""
    """Why ``complete`` is False, or what the stage fell back from."""
    repair: str = ""
    """Why the answer stage wrote the answer: a :class:`Repair` (empty when the model's own
    answer stood), or the name of an ``answer_checks`` check the answer failed twice."""
    language: str | None = None
    """The question's language, where the answer rules that need words read it (``en``,
    ``zh``, ... : :data:`lcel_agent.stages.answer.READ_LANGUAGES`); None when they do
    not: those rules stood aside, and the model's words stood unless values proved
    otherwise."""

    @property
    def language_read(self) -> bool:
        """Whether the rules that need words read the question's language."""
        return self.language is not None


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
    answer: AnswerRecord | None = None
    """How the answer was written (None when no tool call succeeded, or the model was
    still acting when the run stopped): see :class:`AnswerRecord`."""

    @property
    def ok(self) -> bool:
        """True when the run produced an answer."""
        return self.output is not None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the whole result (what ``lcel-agent run --json`` prints)."""
        # The reply objects and artifacts are left out of the deep copy asdict makes: an
        # artifact need not be copyable, and neither is JSON.
        plain = tuple(
            replace(
                step,
                reply=None,
                observations=tuple(replace(o, artifact=None) for o in step.observations),
            )
            for step in self.steps
        )
        data = asdict(replace(self, steps=plain))
        dump = getattr(self.output, "model_dump", None)
        if callable(dump):  # a response_format model: its JSON form
            data["output"] = dump(mode="json")
        data["stop_reason"] = self.stop_reason.value
        data["usage"] = self.usage.to_dict()
        data["compaction_usage"] = self.compaction_usage.to_dict()
        data["messages"] = [{"type": m.type, "content": m.content} for m in self.messages]
        for record, step in zip(data["steps"], self.steps, strict=True):
            record["usage"] = step.usage.to_dict()
            # The reply's text is ``raw``; the message object itself is not JSON.
            del record["reply"]
            for kept, obs in zip(record["observations"], step.observations, strict=True):
                kept["artifact"] = None if obs.artifact is None else repr(obs.artifact)
        safe: dict[str, Any] = json.loads(json.dumps(data, ensure_ascii=False, default=str))
        return safe

    def to_html(self) -> str:
        """The run as one self-contained HTML page: timeline, replies, tool calls, window.

        ``Path("run.html").write_text(result.to_html())``; it opens from disk and
        loads nothing (see :mod:`lcel_agent.report`).
        """
        from .report import render_run  # the report (and Jinja2) only when asked for

        return render_run(self.to_dict())

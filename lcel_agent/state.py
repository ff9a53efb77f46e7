"""The typed values that flow through a run, and the result it ends with.

Every stage of the step chain takes an :class:`AgentState` and returns a new one
(``dataclasses.replace``); the loop turns the last state into an
:class:`AgentResult` (defined with its records in :mod:`lcel_agent.result`, re-exported
here). Users mostly meet :class:`AgentResult`::

    result = agent.invoke("查询北京天气")
    if result.stop_reason is StopReason.FINAL:
        print(result.output)
    else:
        print(result.error)   # which step, which error class, the last message
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage, BaseMessage

from .result import (
    FINAL_ACTION,
    Action,
    AgentResult,
    AnswerRecord,
    Observation,
    Repair,
    RunError,
    StepRecord,
    StopReason,
    Trigger,
    Usage,
)

if TYPE_CHECKING:
    from .memory import Fact, SlidingWindowMemory

__all__ = [
    "FINAL_ACTION",
    "Action",
    "AgentResult",
    "AgentState",
    "AnswerRecord",
    "BreakerState",
    "Observation",
    "Repair",
    "RunError",
    "StepRecord",
    "StopReason",
    "Trigger",
    "Usage",
]


@dataclass(frozen=True, slots=True)
class BreakerState:
    """What the circuit breaker remembers of the run (its rules: :mod:`lcel_agent.rules.breaker`)."""

    stalled: int = 0
    """Loops since the last progress."""
    streak: int = 0
    """Identical failures in a row (the newest included)."""
    last: str | None = None
    """The fingerprint of the newest failure, if the newest loop failed."""
    drifts: int = 0
    """Drifting loops since the last progress (the first was nudged)."""
    progressed: bool = False
    """True once the run has made progress."""
    known: frozenset[str] = frozenset()
    """Calls that have succeeded so far (their signatures)."""


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
    finished_by: str | None = None
    """What ended the acting, once it ended (see :attr:`AnswerRecord.trigger`): the answer
    stage reads it to decide whether the answer needs writing."""
    answer: AnswerRecord | None = None
    """The answer stage's account of the answer, once it decided."""
    persona: str | None = None
    """The instructions the user gave the agent (``system_prompt``, or a run's own system
    message): the answer stage writes by them too."""
    noticed: bool = False
    """A reply in words was sent back with a notice since the last successful call: the
    next reply without a call is the answer (one notice between two successes)."""
    failed_check: str | None = None
    """The answer check (``answer_checks``) the model's answer failed again after it was
    sent back for it: the answer stage writes the answer (``repair`` is the check's name)."""
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
    notice: str | None = None
    """Per loop: a reply is sent back once with this notice (an answer that failed a check,
    a plan among them, or words before any call in the JSON protocol). Not an error: the
    breaker does not count it."""
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

"""The answer stage's bookkeeping: what one run's writing came to, and the state it leaves.

Pure helpers of :mod:`lcel_agent.stages.answer`. :class:`Writing` collects the lines
the requests wrote, the calls they cost, and why the writing stopped short, if it
did; :func:`outcome` turns that into the run's state: the written answer, the model's
own answer kept when nothing better was written, or, when there is neither, a stop
that says why.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

from .._messages import message_text
from ..errors import ErrorClass
from ..state import AgentState, AnswerRecord, RunError, StepRecord, StopReason

__all__ = ["Writing", "counted", "kept", "outcome"]

#: Triggers whose run ends with an answer once the stage has written one: the model
#: answered (its answer, kept or rewritten), or it only repeated calls it had made.
_ANSWERED = frozenset({"final", "echo", "cut", "drift"})


@dataclass
class Writing:
    """What the answer stage has written so far in one run."""

    lines: list[str] = field(default_factory=list)
    """The answer's lines, in order (a text reply is one "line")."""
    calls: int = 0
    """Model calls made."""
    mode: str = ""
    """``native`` or ``text``: how the last reply was asked for."""
    fallback: str = ""
    """What the stage fell back from (a server that refused the schema)."""
    short: RunError | None = None
    """Why the writing stopped before every result was written, when it did."""
    stop: StopReason | None = None
    """The stop a run with no answer at all ends with (see :func:`outcome`)."""
    brief: bool = False
    """The last request goes without the earlier lines (with them, it did not fit)."""

    def stop_short(self, state: AgentState, stop: StopReason, error: RunError | str) -> None:
        """The writing ends here: why, and how a run left without an answer stops."""
        if isinstance(error, str):
            klass = ErrorClass.TRUNCATED if stop is StopReason.MAX_ERRORS else ErrorClass.LIMIT
            error = RunError(state.loops, "answer", klass, error)
        self.short, self.stop = error, stop


def counted(state: AgentState, after: AgentState) -> AgentState:
    """The run's state with one more answer call: its loop, its tokens, its record."""
    error = after.loop_error or (after.error if after.stop is not None else None)
    step = StepRecord(
        step=after.loops,
        raw=message_text(after.reply) if after.reply is not None else "",
        actions=(),
        observations=(),
        error=error,
        usage=after.step_usage,
        llm_ms=after.llm_ms,
        tools_ms=0.0,
        reply=after.reply,
        kind="answer",
    )
    return dataclasses.replace(
        state, loops=after.loops, usage=after.usage, steps=(*state.steps, step)
    )


def kept(state: AgentState, record: AnswerRecord, draft: str | None, note: str) -> AgentState:
    """The model's own answer, as it is (or, without one, no answer: the stop says why)."""
    if draft is not None:
        answer = dataclasses.replace(
            record, complete=not record.unused, note=note if record.unused else ""
        )
        return dataclasses.replace(state, answer=answer)
    if state.finished_by in ("echo", "cut"):
        # What the model did last (an echo, a cut reply) says why no answer came with it.
        if state.error is not None:
            note = f"{state.error.error_class.value}: {state.error.message}; {note}"
        error = RunError(state.loops, "answer", ErrorClass.LIMIT, note)
        return dataclasses.replace(state, stop=StopReason.MAX_LOOPS, error=error)
    return state


def outcome(
    state: AgentState, record: AnswerRecord, draft: str | None, writing: Writing, output: str | None
) -> AgentState:
    """The state the stage leaves: ``output`` written, or the draft kept, or a stop."""
    why = writing.short.message if writing.short is not None else ""
    if output is None:
        if draft is not None:  # the model's own answer, rather than none
            answer = dataclasses.replace(
                record,
                calls=writing.calls,
                complete=not record.unused,
                note=why or writing.fallback,
            )
            return dataclasses.replace(state, answer=answer)
        # A drift stop stays what it was: the stage only tried to rescue the run.
        if state.finished_by in _ANSWERED - {"drift"} and writing.short is not None:
            ends = writing.stop or StopReason.LLM_ERROR
            return dataclasses.replace(state, stop=ends, error=writing.short)
        return state
    answer = dataclasses.replace(
        record,
        source="composed",
        draft=draft,
        calls=writing.calls,
        output_mode=writing.mode,
        complete=writing.short is None,
        note=why or writing.fallback,
    )
    stop: StopReason | None = StopReason.FINAL if state.finished_by in _ANSWERED else state.stop
    error = None if stop is StopReason.FINAL else state.error
    return dataclasses.replace(state, output=output, answer=answer, stop=stop, error=error)

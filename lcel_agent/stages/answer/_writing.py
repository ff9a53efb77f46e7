"""The answer stage's bookkeeping: what one run's writing came to, and the state it leaves.

:class:`Writing` collects the lines the requests wrote, the calls they cost, and why the
writing stopped short, if it did; :func:`outcome` turns that into the run's state. Two
outcomes need no writing: :func:`nothing_to_report` (results that hold no data) and
:func:`stopped` (a run the loop stopped while the model was acting delivers its results).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..._shared.messages import message_text
from ...errors import ErrorClass
from ...rules.gathered import Result, gathered
from ...state import AgentState, AnswerRecord, Repair, RunError, StepRecord, StopReason, Trigger
from ._language import language_of
from ._reply import plain_lines

__all__ = ["Writing", "counted", "nothing_to_report", "outcome", "stopped"]

#: Stops of the loop itself (a limit, the breaker): a run so stopped with results in hand
#: delivers them rather than nothing.
_LOOP_STOPS = frozenset(
    {StopReason.MAX_LOOPS, StopReason.MAX_ERRORS, StopReason.DRIFT, StopReason.BUDGET}
)

#: Triggers whose run ends with an answer: the model answered (in words, or not usably),
#: or it only repeated calls it had made.
_ANSWERED = frozenset(
    {Trigger.FINAL, Trigger.FORCED, Trigger.EMPTY, Trigger.PLAN, Trigger.ECHO, Trigger.CUT,
     Trigger.DRIFT}
)  # fmt: skip


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
    """What the stage fell back from (a server that refused the schema, a reply it could
    not read)."""
    short: RunError | None = None
    """Why the writing stopped before every result was written, when it did."""
    stop: StopReason | None = None
    """The stop a run with no answer at all ends with (see :func:`outcome`)."""
    brief: bool = False
    """The last request goes without the earlier lines (with them, it did not fit)."""
    text_only: bool = False
    """Ask for text from now on (a reply ignored the schema it was held to)."""
    unreadable: bool = False
    """The stage's replies were no answers in words, twice."""

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


def outcome(
    state: AgentState,
    record: AnswerRecord,
    draft: str | None,
    writing: Writing,
    output: str | None,
    results: Sequence[Result],
) -> AgentState:
    """The state the stage leaves (see the module docstring).

    ``output`` written: the run's answer (``final``). Else the model's own words, when it
    gave any, with a note. Else, when the model ended its acting in words and the stage's
    replies were no answers in words, the results in plain lines (``complete=False``, a
    note). Else the run stops for what cut the writing short (a limit, a model error, a
    reply cut twice: the stop says which), and a drift stop stays a drift.
    """
    why = writing.short.message if writing.short is not None else ""
    answered = state.finished_by in _ANSWERED
    if output is not None:
        answer = dataclasses.replace(
            record,
            source="composed",
            draft=draft,
            calls=writing.calls,
            output_mode=writing.mode,
            complete=writing.short is None,
            note=why or writing.fallback,
        )
        stop: StopReason | None = StopReason.FINAL if answered else state.stop
        error = None if stop is StopReason.FINAL else state.error
        return dataclasses.replace(state, output=output, answer=answer, stop=stop, error=error)
    note = why or writing.fallback or "no answer could be written"
    if draft is not None:  # the model's own words, rather than none
        answer = dataclasses.replace(
            record, calls=writing.calls, complete=not record.unused, note=note
        )
        return dataclasses.replace(state, output=draft, answer=answer)
    record = dataclasses.replace(record, calls=writing.calls, complete=False, note=note)
    if writing.unreadable and results and state.finished_by != Trigger.DRIFT:
        # The model ended in words and no answer in words came back: its results say it.
        answer = dataclasses.replace(record, source="results")
        return dataclasses.replace(
            state, output=plain_lines(results), answer=answer, stop=StopReason.FINAL, error=None
        )
    if answered and state.finished_by != Trigger.DRIFT and writing.short is not None:
        ends = writing.stop or StopReason.LLM_ERROR
        return dataclasses.replace(state, answer=record, stop=ends, error=writing.short)
    return dataclasses.replace(state, answer=record)  # a drift stop stays what it was


def nothing_to_report(
    state: AgentState, record: AnswerRecord, draft: str | None, results: Sequence[Result]
) -> AgentState:
    """Results that hold no data (receipts: "queued", "the call was received", ``[]``) give
    the stage nothing to write from, and a written report would invent its values: the
    model's own words stand, else the receipts themselves, and the note says so."""
    note = "the results hold no data (receipts only): nothing to write from them"
    if draft is not None:
        answer = dataclasses.replace(record, repair=Repair.NONE, unused=(), note=note)
        return dataclasses.replace(state, output=draft, answer=answer)
    answer = dataclasses.replace(record, source="results", repair=Repair.NONE, note=note)
    return dataclasses.replace(state, output=plain_lines(results), answer=answer)


def stopped(state: AgentState) -> AgentState:
    """A run the loop stopped (a limit, the breaker, drift) while the model was still
    acting: with successful results in hand, they are its answer, in plain lines
    (``complete=False``); ``output`` stays None only when nothing succeeded."""
    if state.stop not in _LOOP_STOPS or state.output is not None or state.answer is not None:
        return state
    results = gathered(state)
    if not results:
        return state
    note = (
        f"the run stopped ({state.stop.value}) before the model answered: its results as they came"
    )
    record = AnswerRecord(
        "results", Trigger.STOPPED, len(results), complete=False, note=note,
        language=language_of(state.task),
    )  # fmt: skip
    return dataclasses.replace(state, output=plain_lines(results), answer=record)

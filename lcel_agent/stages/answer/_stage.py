"""``answer``: the stage that makes sure the run's answer is an answer.

The last stage of the chain. It does nothing until the model has stopped acting
(``state.finished_by``). Then :func:`._judge.judge` decides whether the model's own
answer stands (at no extra cost) or the stage writes one, and, when it writes, it does
so in a fresh, short context: the user's instructions, the question and every
successful result of the run (from the run's records, never the memory window),
numbered, with a form that fits the question (one line per result and a summary for a
report, a short answer for a yes/no question or a choice), in the question's language.

What it writes is read before it is delivered (:mod:`._reply`): never protocol JSON, a
tool call, a cut line or an echo of the request. A reply it cannot read is asked once
more; after that, or with no loop left, the best answer the run has is delivered (the
model's own words, else the results in plain lines) and ``result.answer.note`` says why.
Results go in batches that fit ``batch_tokens``; a reply cut off at the length limit is
split and asked again. Where the server can hold a reply to a JSON schema
(:mod:`lcel_agent.stages.llm_profile`), a report's reply has one field per result and a
summary. Each request is one model call and counts as a loop: ``max_loops`` stays exact.

::

    agent = create_agent(llm, tools)                            # answer="auto"
    agent = create_agent(llm, tools, answer="model")            # never second-guess an answer
    agent = create_agent(llm, tools, answer=Answer(output="text", max_tokens=2048))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Generator, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.runnables import Runnable, RunnableConfig

from ..._redact import redact
from ..._shared.messages import message_text
from ...errors import ActionParseError, ErrorClass
from ...rules.gathered import Result, gathered
from ...rules.limits import Limits, run_limits
from ...rules.structured import ResponseFormat
from ...state import AgentState, AnswerRecord, Repair, StopReason, Trigger
from .._base import Stage
from ..clean import extract_json
from ..llm import CONTEXT_OVERFLOW, CallLLM
from ..llm_profile import SchemaForm, profile_of, refuses_schema, with_output_limit, with_schema
from ..parse import final_text
from ._checks import DEFAULT_CHECKS, AnswerCheck
from ._judge import judge
from ._language import language_of
from ._options import Answer
from ._question import asks_verbatim, shape_of
from ._receipts import holds_nothing, is_receipt
from ._reply import named, read_lines, read_text, words_of_reply
from ._request import Asking, Batch, batches, key_label, lines_schema, request
from ._writing import Writing, counted, nothing_to_report, outcome, stopped

__all__ = ["WriteAnswer"]

#: Stops after which nothing more is asked of the model.
_NO_MORE_CALLS = frozenset({StopReason.LLM_ERROR, StopReason.BUDGET, StopReason.PAUSED})


@dataclass(frozen=True, slots=True)
class _Ask:
    """One request of the stage: the state to call the model with, and the model."""

    state: AgentState
    model: Runnable[Any, Any]


class WriteAnswer(Stage):
    """The answer stage (see the module docstring).

    Args:
        llm: the agent's model without tools (``options.llm`` replaces it).
        options: the :class:`Answer` options.
        limits: the agent's limits (a run's ``configurable`` may override them).
        timeout, retries, backoff, max_retry_after: as for ``call_llm``.
        response_format: the agent's, when its answer must fit a schema.
        tools: the agent's tool names (a reply naming one alone is no answer).
        checks: the answer checks (``answer_checks``); those that write run here.
    """

    name = "answer"

    def __init__(
        self,
        llm: Runnable[Any, Any],
        *,
        options: Answer | None = None,
        limits: Limits | None = None,
        timeout: float | None = 60.0,
        retries: int = 3,
        backoff: tuple[float, float] = (0.5, 8.0),
        max_retry_after: float = 60.0,
        response_format: ResponseFormat | None = None,
        tools: Collection[str] = (),
        checks: Sequence[AnswerCheck] = DEFAULT_CHECKS,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.checks = tuple(checks)
        self.options = options or Answer()
        self.llm = self.options.llm or llm
        self.limits = limits or Limits()
        self.response_format = response_format
        self.tools = frozenset(tools)
        self._call = {"timeout": timeout, "retries": retries, "backoff": backoff,
                      "max_retry_after": max_retry_after}  # fmt: skip
        profile = profile_of(self.llm)
        if self.options.output == "text":
            profile = dataclasses.replace(profile, schema_forms=())
        elif self.options.output == "native" and not profile.schema_forms:
            # Asked for explicitly: try the standard form even where the profile knows none.
            profile = dataclasses.replace(profile, schema_forms=("json_schema",))
        self.profile = profile
        """What the stage knows of the model's server (which schema forms it takes)."""

    # --- decisions (pure but for what a server refused; shared by the sync and async drivers) ---
    def _ended(self, state: AgentState) -> bool:
        """Whether the acting has ended in a way this stage decides the answer of."""
        if state.stop is None or state.answer is not None:
            return False
        return state.stop not in _NO_MORE_CALLS and state.finished_by not in (None, Trigger.DIRECT)

    def may_replace(self, state: AgentState) -> bool:
        """Whether an answer the model gives from ``state`` on may yet be replaced (so an
        answer stream holds it until this stage has decided): tools have succeeded, and
        the mode may write over a usable answer."""
        return self.options.mode != "model" and bool(gathered(state))

    def on_stop(self, state: AgentState) -> AgentState:
        """What a run the loop stopped (a limit, the breaker, drift) while the model was still
        acting delivers: its results in plain lines, when any call succeeded (the loop asks
        at the end of every run; pure, and a run that has its answer is left as it is)."""
        return stopped(state)

    def stream_line(self, key: str, value: str) -> str | None:
        """A field of a schema-held reply as the answer delivers it (for answer streams):
        its words, led by the subject its key names where the line does not name it."""
        line = words_of_reply(value, self.tools)
        return named(line, key_label(key)) if line else None

    def _form(self, asking: Asking) -> SchemaForm | None:
        if asking.shape == "decision" and self.response_format is None:
            return None  # a short answer in words: no lines to hold to a schema
        return next(iter(self.profile.open_forms()), None)

    def _calls_left(self, state: AgentState, config: RunnableConfig) -> tuple[int, str]:
        limits = run_limits(self.limits, config.get("configurable"))
        if limits.token_budget is not None and state.usage.total_tokens >= limits.token_budget:
            return 0, f"token_budget={limits.token_budget} spent"
        left = limits.max_loops - state.loops
        return max(left, 0), "" if left > 0 else f"max_loops={limits.max_loops} reached"

    def _budget(self, batch: Batch, attempt: int) -> int:
        base = self.options.max_tokens or min(max(256 + 96 * len(batch.results), 512), 4096)
        return base << min(attempt, 1)  # twice as much after a reply cut at the limit

    def _ask(
        self, state: AgentState, asking: Asking, batch: Batch, writing: Writing, attempt: int
    ) -> tuple[_Ask, SchemaForm | None]:
        form = self._form(asking) if not writing.text_only else None
        fmt = self.response_format
        model = with_output_limit(self.llm, self._budget(batch, attempt))
        if form is not None:
            schema = fmt.json_schema if fmt is not None else lines_schema(batch)
            model = with_schema(model, form, schema)
        prompt = request(
            asking,
            batch,
            earlier=() if writing.brief else writing.lines,
            form="json" if form is not None else "text",
            schema=fmt.schema_text() if fmt is not None else None,
        )
        asked = dataclasses.replace(
            state, prompt=tuple(prompt), steps=(), stop=None, reply=None, loop_error=None,
            final_only=False,
        )  # fmt: skip
        return _Ask(asked, model), form

    # --- the stage's work, as a generator of model calls (see run / arun) ----------------
    def _steps(
        self, state: AgentState, config: RunnableConfig
    ) -> Generator[_Ask, AgentState, AgentState]:
        if not self._ended(state):
            return stopped(state)
        results = gathered(state)
        verdict = judge(state, self.options.mode, results, self.tools, self.checks)
        record = AnswerRecord(
            "model",
            state.finished_by or Trigger.FINAL,
            len(results),
            tuple(results[i].call for i in verdict.missing),
            repair=verdict.repair,
            language=language_of(state.task),
        )
        if not verdict.repair:
            if not results and (verdict.draft is None or verdict.draft == state.output):
                return state  # nothing looked up, nothing changed: no account to give
            output = verdict.draft if verdict.draft is not None else state.output
            return dataclasses.replace(state, output=output, answer=record)
        if not results:  # nothing to write from: the model's words, or what it said
            if verdict.draft is None or verdict.draft == state.output:
                return state  # a run with no results is left as it is
            return dataclasses.replace(state, output=verdict.draft, answer=record)
        if _nothing_to_write_from(verdict.repair, verdict.draft, results):
            return nothing_to_report(state, record, verdict.draft, results)
        left, why = self._calls_left(state, config)
        writing = Writing()
        if left == 0:
            note = f"{why}: no model call was left to write the answer"
            if verdict.draft is None and state.error is not None:
                # What the model did last (a cut reply, an echo) says why no answer came.
                note = f"{state.error.error_class.value}: {state.error.message}; {note}"
            writing.stop_short(state, StopReason.MAX_LOOPS, note)
            return outcome(state, record, verdict.draft, writing, None, results)
        # A question the cues do not read is asked for as a report, in its own language.
        shape, verbatim = shape_of(state.task) or "report", bool(asks_verbatim(state.task))
        asking = Asking(state.task, state.persona, shape, verbatim)
        fmt = self.response_format
        whole = fmt is not None or asking.shape == "decision"
        queue = (
            [Batch(tuple(results), 1, True)]
            if whole
            else batches(results, self.options.batch_tokens, state.memory.counter)
        )
        attempt = 0
        while queue and writing.short is None:
            if writing.calls >= left:
                note = f"{why or 'max_loops reached'}: results {queue[0].first} on were not written"
                writing.stop_short(state, StopReason.MAX_LOOPS, note)
                break
            batch = queue.pop(0)
            ask, form = self._ask(state, asking, batch, writing, attempt)
            after = yield ask
            writing.calls += 1
            state = counted(state, after)
            again = self._read(state, after, batch, form, writing, attempt)
            attempt = attempt + 1 if again == [batch] else 0
            queue[:0] = again
        return outcome(state, record, verdict.draft, writing, self._answer(writing), results)

    def _read(
        self,
        state: AgentState,
        after: AgentState,
        batch: Batch,
        form: SchemaForm | None,
        writing: Writing,
        attempt: int,
    ) -> list[Batch]:
        """Take one reply into ``writing``; the batches to ask (again) before the rest."""
        error = after.loop_error or (after.error if after.stop is not None else None)
        if error is None:
            text = message_text(after.reply) if after.reply is not None else ""
            if form is not None and self.response_format is None:
                lines = read_lines(text, batch, self.tools)
                if lines is None:  # a server that ignored the schema, or lines of no words
                    return self._fall_back(form, writing, "did not hold the reply to", batch)
            else:
                answer = read_text(text, self.tools) if self.response_format is None else text
                if answer is None or not answer.strip():
                    return self._unreadable(state, writing, batch, attempt)
                lines = [answer.strip()]
            writing.lines += lines
            writing.mode = "native" if form is not None else "text"
            return []
        if error.error_class is ErrorClass.TRUNCATED:
            if len(batch.results) > 1:
                return list(batch.halves())
            if attempt == 0:
                return [batch]  # once more, with twice the reply budget
            note = f"the reply for result {batch.first} was cut off at the length limit, twice"
            writing.stop_short(state, StopReason.MAX_ERRORS, note)
            return []
        fatal = error.error_class is ErrorClass.LLM_FATAL
        if fatal and CONTEXT_OVERFLOW in error.message:
            if len(batch.results) > 1:
                return list(batch.halves())
            if batch.last and writing.lines and not writing.brief:
                writing.brief = True  # the summary sees its own results only, then
                writing.fallback = "the summary was written without the earlier lines (too long)"
                return [batch]
        if form is not None and (fatal or refuses_schema(error.message)):
            # Refused the schema (or failed on it): once more, without it.
            return self._fall_back(form, writing, "refused", batch, error.message)
        stop = StopReason.BUDGET if after.stop is StopReason.BUDGET else StopReason.LLM_ERROR
        writing.stop_short(state, stop, error)
        return []

    def _unreadable(
        self, state: AgentState, writing: Writing, batch: Batch, attempt: int
    ) -> list[Batch]:
        """A reply that is no answer (protocol JSON, a call, nothing): asked once more."""
        if attempt == 0:
            writing.fallback = "a reply was not an answer in words: asked once more"
            return [batch]
        why = "the model's replies to the answer request were not answers in words, twice"
        writing.stop_short(state, StopReason.FINAL, why)
        writing.stop, writing.lines, writing.unreadable = None, [], True
        return []

    def _fall_back(
        self, form: SchemaForm, writing: Writing, what: str, batch: Batch, message: str = ""
    ) -> list[Batch]:
        if not message:  # the reply ignored the schema: it is not the server's refusal
            writing.text_only = True
        else:
            self.profile.refuse(form, message)
        following = None if writing.text_only else next(iter(self.profile.open_forms()), None)
        how = f"asked with {following}" if following is not None else "asked for text"
        writing.fallback = f"the server {what} the schema ({form}): {how}"
        return [batch]

    def _answer(self, writing: Writing) -> str | None:
        """The written answer (checked against ``response_format``), or None."""
        text = "\n".join(line for line in writing.lines if line).strip()
        if not text or self.response_format is None:
            return text or None
        checked = self.response_format.check(_json_or_text(text))
        if checked.problem is None:
            return final_text(checked.value)
        writing.fallback = (
            f"the written answer does not fit response_format: {redact(checked.problem)}"
        )
        return None

    # --- thin drivers --------------------------------------------------------------------
    def _caller(self, ask: _Ask) -> CallLLM:
        return CallLLM(
            ask.model,
            shrink=False,
            final_if=refuses_schema,
            name=self.name,
            **self._call,  # type: ignore[arg-type]
        )

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        steps = self._steps(state, config)
        try:
            ask = next(steps)
            while True:
                ask = steps.send(self._caller(ask).run(ask.state, config))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]

    async def arun(self, state: AgentState, config: RunnableConfig) -> AgentState:
        steps = self._steps(state, config)
        try:
            ask = next(steps)
            while True:
                ask = steps.send(await self._caller(ask).arun(ask.state, config))
        except StopIteration as done:
            return done.value  # type: ignore[no-any-return]


#: Repairs a model's usable answer may be spared when its results hold no data to write from.
_SECOND_GUESSES = frozenset({Repair.OMITS, Repair.ECHO, Repair.COMPOSE})


def _nothing_to_write_from(repair: str, draft: str | None, results: Sequence[Result]) -> bool:
    """Whether writing from ``results`` could only invent: with the model's own usable
    answer, results that are all receipts (acknowledgements, by what they hold); with no
    answer at all, results that hold nothing whatever (null, ``[]``, ids and statuses)."""
    if any(r.media for r in results):
        return False
    if draft is not None and repair in _SECOND_GUESSES:
        return all(is_receipt(r.text) for r in results)
    return draft is None and all(holds_nothing(r.text) for r in results)


def _json_or_text(text: str) -> Any:
    try:
        return extract_json(text)
    except ActionParseError:
        return text

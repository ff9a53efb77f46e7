"""``answer``: every fact the tools found reaches the answer.

The last stage of the chain. It does nothing until the model has stopped acting
with results in hand (``state.finished_by``: it answered, wrote its results out
instead of a call, was cut off while answering, or drifted or broke down after
gathering). Then, by its mode (``create_agent(answer=...)``):

* ``"auto"`` (the default): the model's own answer stays, unchanged and at no extra
  cost, when it uses every result the run gathered (:mod:`._coverage` decides: a
  merged weather word or a dropped temperature is a result unused). Otherwise the
  stage writes the answer itself, in a fresh, short context: the question and every
  successful result, numbered, one per line, and a form that asks for every result.
* ``"compose"``: always write it that way once tools have succeeded.
* ``"model"``: never: the model's own answer as it wrote it.

The results come from the run's records, never from the memory window, so nothing
the window forgot is lost. They go in batches that fit ``batch_tokens``; a reply cut
off at the length limit is split and asked again, never passed off as whole. Where
the server can hold a reply to a JSON schema (:mod:`lcel_agent.stages.llm_profile`), the
reply has one field per result and a summary; a server that refuses the schema
costs one failed request, then text. Each request is one model call and counts as
a loop: ``max_loops`` stays exact. What happened is in ``result.answer``
(:class:`~lcel_agent.state.AnswerRecord`) and in the steps of kind ``"answer"``.

::

    agent = create_agent(llm, tools)                            # answer="auto"
    agent = create_agent(llm, tools, answer="compose")
    agent = create_agent(llm, tools, answer=Answer(output="text", max_tokens=2048))
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any, Literal

from langchain_core.runnables import Runnable, RunnableConfig

from .._messages import message_text
from .._redact import redact
from ..errors import ActionParseError, ConfigurationError, ErrorClass
from ..limits import Limits, run_limits
from ..state import AgentState, AnswerRecord, StopReason
from ..structured import ResponseFormat
from ._base import Stage
from ._compose import Batch, batches, lines_schema, read_lines, read_text, request
from ._coverage import copies, unused
from ._results import gathered
from ._writing import Writing, counted, kept, outcome
from .clean import extract_json
from .llm import CONTEXT_OVERFLOW, CallLLM
from .llm_profile import (
    SchemaForm,
    profile_of,
    refuses_schema,
    with_output_limit,
    with_schema,
)
from .parse import final_text

__all__ = ["Answer", "AnswerMode", "OutputMode", "WriteAnswer"]

AnswerMode = Literal["auto", "compose", "model"]
OutputMode = Literal["auto", "native", "text"]

#: Triggers whose state carries the model's own answer (the draft).
_DRAFTS = frozenset({"final", "forced"})
#: Stops after which nothing more is asked of the model.
_NO_MORE_CALLS = frozenset({StopReason.LLM_ERROR, StopReason.BUDGET, StopReason.PAUSED})


@dataclass(frozen=True, slots=True)
class Answer:
    """How the final answer is written: ``create_agent(answer=Answer(...))`` or a mode name.

    Args:
        mode: ``"auto"``, ``"compose"`` or ``"model"`` (see the module docstring).
        output: ``"native"`` asks the server to hold the reply to a JSON schema (one field
            per result), ``"text"`` asks for text; ``"auto"`` uses the schema where the
            model's profile says the server can (:func:`lcel_agent.stages.llm_profile.profile_of`).
        max_tokens: the reply budget of one request; None: 256 plus 96 per result, at
            least 512 and at most 4096. A reply cut at the limit is asked again in halves.
        batch_tokens: the most tokens of results one request carries.
        llm: the model that writes the answer (default: the agent's).
    """

    mode: AnswerMode = "auto"
    output: OutputMode = "auto"
    max_tokens: int | None = None
    batch_tokens: int = 3000
    llm: Runnable[Any, Any] | None = None

    def __post_init__(self) -> None:
        if self.mode not in ("auto", "compose", "model"):
            raise ConfigurationError(
                f"answer mode must be 'auto', 'compose' or 'model', got {self.mode!r}"
            )
        if self.output not in ("auto", "native", "text"):
            raise ConfigurationError(
                f"answer output must be 'auto', 'native' or 'text', got {self.output!r}"
            )
        for name in ("max_tokens", "batch_tokens"):
            value = getattr(self, name)
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise ConfigurationError(
                    f"Answer({name}=...) must be a positive int, got {value!r}"
                )

    @classmethod
    def of(cls, value: Answer | str | None) -> Answer:
        """An :class:`Answer` from what ``create_agent(answer=...)`` was given."""
        if value is None:
            return cls()
        if isinstance(value, Answer):
            return value
        if isinstance(value, str):
            return cls(mode=value)  # type: ignore[arg-type]  # checked in __post_init__
        raise TypeError(
            f"answer must be 'auto', 'compose', 'model' or an Answer, not {type(value).__name__}"
        )


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
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.options = options or Answer()
        self.llm = self.options.llm or llm
        self.limits = limits or Limits()
        self.response_format = response_format
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
    def _trigger(self, state: AgentState) -> str | None:
        if state.stop is None or state.answer is not None or self.options.mode == "model":
            return None
        if state.stop in _NO_MORE_CALLS or state.finished_by in (None, "direct"):
            return None
        return state.finished_by

    def _form(self) -> SchemaForm | None:
        return next(iter(self.profile.open_forms()), None)

    def _calls_left(self, state: AgentState, config: RunnableConfig) -> tuple[int, str]:
        limits = run_limits(self.limits, config.get("configurable"))
        if limits.token_budget is not None and state.usage.total_tokens >= limits.token_budget:
            return 0, f"token_budget={limits.token_budget} spent"
        left = limits.max_loops - state.loops
        return max(left, 0), "" if left > 0 else f"max_loops={limits.max_loops} reached"

    def _budget(self, batch: Batch, attempt: int) -> int:
        base = self.options.max_tokens or min(max(256 + 96 * len(batch.results), 512), 4096)
        return base << attempt  # twice as much after a reply cut at the limit

    def _ask(
        self, state: AgentState, batch: Batch, writing: Writing, attempt: int
    ) -> tuple[_Ask, SchemaForm | None]:
        form = self._form()
        fmt = self.response_format
        model = with_output_limit(self.llm, self._budget(batch, attempt))
        if form is not None:
            schema = fmt.json_schema if fmt is not None else lines_schema(batch)
            model = with_schema(model, form, schema)
        prompt = request(
            state.task,
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
        trigger = self._trigger(state)
        results = gathered(state) if trigger is not None else []
        if trigger is None or not results:
            return state
        draft = state.output if trigger in _DRAFTS and isinstance(state.output, str) else None
        missing = unused(draft, results, state.task) if draft is not None else []
        copied = draft is not None and copies(draft, [r.text for r in results])
        record = AnswerRecord(
            "model",
            "echo" if copied else trigger,
            len(results),
            tuple(results[i].call for i in missing),
        )
        if draft is not None and self.options.mode == "auto" and not missing and not copied:
            return dataclasses.replace(state, answer=record)
        left, why = self._calls_left(state, config)
        if left == 0:
            return kept(state, record, draft, f"{why}: no model call was left to write the answer")
        fmt = self.response_format
        queue = (
            [Batch(tuple(results), 1, True)]
            if fmt is not None
            else batches(results, self.options.batch_tokens, state.memory.counter)
        )
        writing, attempt = Writing(), 0
        while queue and writing.short is None:
            if writing.calls >= left:
                note = f"{why or 'max_loops reached'}: results {queue[0].first} on were not written"
                writing.stop_short(state, StopReason.MAX_LOOPS, note)
                break
            batch = queue.pop(0)
            ask, form = self._ask(state, batch, writing, attempt)
            after = yield ask
            writing.calls += 1
            state = counted(state, after)
            again = self._read(state, after, batch, form, writing, attempt)
            attempt = attempt + 1 if again == [batch] else 0
            queue[:0] = again
        return outcome(state, record, draft, writing, self._answer(writing))

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
                lines = read_lines(text, batch)
                if lines is None:  # a server that ignored the schema: text from now on
                    return self._fall_back(form, writing, "did not hold the reply to", batch)
            else:
                answer = read_text(text)
                if answer is None:  # a call, or nothing: not an answer, and not asked again
                    writing.stop_short(
                        state, StopReason.MAX_ERRORS, "the model wrote no answer from the results"
                    )
                    return []
                lines = [answer]
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

    def _fall_back(
        self, form: SchemaForm, writing: Writing, what: str, batch: Batch, message: str = ""
    ) -> list[Batch]:
        self.profile.refuse(form, message)
        following = self._form()  # the next form the refusal leaves open, or text
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


def _json_or_text(text: str) -> Any:
    try:
        return extract_json(text)
    except ActionParseError:
        return text

"""An answer the model gives while acting, judged by the checks that send back.

``classify_error`` asks :func:`judge_answer` about every answer in words (a ``final``
action, or words with no call) before it ends the acting. In order, the agent's checks
that do not write (:mod:`._checks`: ``plan``, and a user's own):

* the first that fails sends the answer back once, with the protocol's notice (one
  notice between two successful calls, none on the loop reserved for an answer);
* failed again, a plan with results in hand ends the acting as ``plan`` and a user's
  check as ``failed_check``: the answer stage writes the answer from the results;
* failed again, a plan with *no* result in hand is no answer and no progress: a failed
  step of class ``plan`` that the circuit breaker counts, so a model that only ever says
  what it will do stops with ``max_errors`` within ``2 * max_errors + 1`` calls.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ..._redact import redact
from ...errors import ErrorClass
from ...rules.gathered import gathered
from ...state import AgentState, RunError, Trigger
from ...texts import CHECK_NOTICE, JSON_CHECK_NOTICE, JSON_PLAN_NOTICE, PLAN_NOTICE
from ._checks import AnswerCheck, Evidence

__all__ = ["Judged", "judge_answer"]

#: How much of a plan the error that stops a run shows.
_SHOWN_CHARS = 200


@dataclass(frozen=True, slots=True)
class Judged:
    """What an answer given while acting comes to (all None: it is the answer)."""

    notice: str | None = None
    """Send it back once with this notice."""
    error: RunError | None = None
    """A plan given again with nothing done: a failed step."""
    finished_by: str | None = None
    """``plan``: a plan given again with results in hand (the answer stage writes)."""
    failed_check: str | None = None
    """The user's check it failed again (the answer stage writes, ``repair`` its name)."""


def _notice(check: str, reason: str, json_protocol: bool) -> str:
    if check == "plan":  # measured texts (docs/answer.md): kept word for word
        return JSON_PLAN_NOTICE if json_protocol else PLAN_NOTICE
    return (JSON_CHECK_NOTICE if json_protocol else CHECK_NOTICE).format(reason=reason)


def judge_answer(
    state: AgentState,
    answer: str,
    checks: Sequence[AnswerCheck],
    tools: Collection[str],
    *,
    json_protocol: bool,
    stage: str,
) -> Judged:
    """Judge ``answer`` by the ``checks`` that send back (see the module docstring)."""
    if not tools:
        return Judged()  # an agent with no tools: its words are its answers
    results = tuple(gathered(state))
    record = Evidence(state.task, results, frozenset(tools), frozenset(r.tool for r in results))
    for check in checks:
        if check.writes:
            continue  # the answer stage's, once acting has ended
        reason = check(answer, record)
        if reason is None:
            continue
        if not state.noticed and not state.final_only:
            return Judged(notice=_notice(check.name, reason, json_protocol))
        if check.name != "plan":
            return Judged(failed_check=check.name)
        if results:
            return Judged(finished_by=Trigger.PLAN)
        said = " ".join(redact(answer).split())
        shown = said if len(said) <= _SHOWN_CHARS else said[:_SHOWN_CHARS] + "…"
        message = f"the model said what it would do and made no call: {shown!r}"
        notice = _notice("plan", reason, json_protocol)
        return Judged(error=RunError(state.loops, stage, ErrorClass.PLAN, message, notice=notice))
    return Judged()

"""The one decision: does the model's own answer stand, or does the stage write one?

The stage writes the answer only when acting ended without a usable one, or, in
``"auto"`` mode, when the model's answer provably leaves out a fact the question asks
for. In order:

============  ============================================================  ===========
repair        what the model did                                            modes
============  ============================================================  ===========
``cut``       its answer was cut off at the length limit                    all
``echo``      it copied its results out instead of a call                   all
``drift``     it only repeated calls it had made, until drift stopped it    auto, compose
``empty``     it replied with nothing                                       all
``plan``      it said what it would do, was told once, and said it again    all
``form``      its answer is protocol JSON, not words (a tool call, a cut    all
              action); a ``final`` action written out is unwrapped instead
*a check*     its answer failed a check that sends back, twice (the         all
              check's name: a user's ``answer_checks``)
``compose``   (any answer)                                                  compose
``echo``      its answer is mostly the results copied (not asked verbatim)  auto
``omits``     its answer provably leaves out a result (:mod:`._omits`)      auto
============  ============================================================  ===========

``echo`` and ``omits`` are the built-in checks that write at once (:mod:`._checks`); in
``"auto"`` mode every check of the agent's ``answer_checks`` that writes runs here, in
order, and the first reason decides. Anything else stands, at no extra cost: a capable
model's answer is never paid for twice.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ...rules.gathered import Result
from ...state import AgentState, Repair, Trigger
from ._checks import DEFAULT_CHECKS, AnswerCheck, Evidence
from ._reply import words_of_reply

__all__ = ["Verdict", "judge"]

#: Triggers whose state carries the model's own reply (the draft), whatever it is.
_DRAFTS = frozenset({Trigger.FINAL, Trigger.FORCED, Trigger.PLAN, Trigger.EMPTY})
#: Triggers that leave no usable answer: the stage writes one from the results.
_UNUSABLE = frozenset({Trigger.CUT, Trigger.ECHO, Trigger.DRIFT, Trigger.EMPTY, Trigger.PLAN})


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the stage makes of the model's answer."""

    draft: str | None
    """The model's own answer in words (a ``final`` written out, unwrapped), or None."""
    repair: str
    """Why the stage writes (a :class:`~lcel_agent.result.Repair`, or a check's name);
    empty: the draft stands."""
    missing: tuple[int, ...] = ()
    """The results the draft provably leaves out (``repair == "omits"``)."""


def judge(
    state: AgentState,
    mode: str,
    results: Sequence[Result],
    tools: Collection[str],
    checks: Sequence[AnswerCheck] = DEFAULT_CHECKS,
) -> Verdict:
    """The verdict on the acting's end (``state.finished_by``) in ``mode``, by ``checks``."""
    trigger = state.finished_by or ""
    raw = state.output if trigger in _DRAFTS and isinstance(state.output, str) else None
    draft = words_of_reply(raw, tools) if raw is not None and raw.strip() else None
    if trigger == Trigger.DRIFT and mode == "model":
        return Verdict(None, Repair.NONE)  # a stuck run's stop stands: nothing second-guessed
    if trigger in _UNUSABLE:
        return Verdict(None, Repair(trigger))  # no answer in words to keep, even as a last resort
    if draft is None:
        return Verdict(None, Repair.FORM)
    if state.failed_check is not None:  # sent back once for it, and failed it again
        return Verdict(draft, state.failed_check)
    if mode == "compose":
        return Verdict(draft, Repair.COMPOSE)
    if mode == "model" or not results:
        return Verdict(draft, Repair.NONE)
    record = Evidence(state.task, tuple(results), frozenset(tools))
    for check in checks:
        if not check.writes:
            continue  # sent back by classify_error while the model was acting
        missing = getattr(check, "missing", None)  # omits says which results, once
        if callable(missing):
            left = tuple(missing(draft, record))
            if left:
                return Verdict(draft, check.name, left)
        elif check(draft, record) is not None:
            return Verdict(draft, check.name)
    return Verdict(draft, Repair.NONE)

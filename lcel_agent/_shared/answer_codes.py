"""The answer stage's codes: what ended the acting (:class:`Trigger`) and why the stage
wrote the answer (:class:`Repair`), published by :mod:`lcel_agent.result`.

They sit on the bottom floor, like :class:`~lcel_agent.errors.ErrorClass`, because the
run's records, the answer stage and the report all name them (the report's own words for
each are keyed by them: ``lcel_agent.report._answer``).
"""

from __future__ import annotations

from enum import StrEnum

__all__ = ["Repair", "Trigger"]


class Trigger(StrEnum):
    """What ended the acting (``result.answer.trigger``, ``state.finished_by``). A ``str``
    enum: ``result.answer.trigger == "final"`` works."""

    FINAL = "final"
    """An answer, in JSON or in words."""
    FORCED = "forced"
    """An answer on the loop reserved for it (``reserve_final_answer``)."""
    EMPTY = "empty"
    """An empty reply, with results in hand."""
    PLAN = "plan"
    """A plan, sent back once and given again, with results in hand."""
    ECHO = "echo"
    """The results copied back instead of a call."""
    CUT = "cut"
    """A reply cut off at the length limit."""
    DRIFT = "drift"
    """The model only repeated calls it had made, until drift stopped it."""
    DIRECT = "direct"
    """A ``return_direct`` tool's result is the answer (the answer stage leaves it)."""
    STOPPED = "stopped"
    """The loop stopped the run (a limit, the breaker) before the model answered."""


class Repair(StrEnum):
    """Why the answer stage wrote the answer (``result.answer.repair``); the name of an
    ``answer_checks`` check the answer failed twice is a repair too (a plain ``str``)."""

    NONE = ""
    """The model's own answer stood."""
    CUT = "cut"
    """Its reply was cut off at the length limit."""
    ECHO = "echo"
    """It copied its results out (instead of a call, or as its answer unasked)."""
    EMPTY = "empty"
    """It replied with nothing, with results in hand."""
    PLAN = "plan"
    """It gave a plan again after the notice."""
    FORM = "form"
    """Its answer is protocol JSON, not words."""
    OMITS = "omits"
    """Its answer provably leaves out a result the question asks for (``unused``)."""
    DRIFT = "drift"
    """It only repeated calls it had made, until drift stopped it."""
    COMPOSE = "compose"
    """``answer="compose"``: the stage always writes."""

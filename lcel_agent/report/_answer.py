"""How the report says who wrote the answer: the answer stage's record, in one line.

The words for each :class:`~lcel_agent.result.Trigger` and :class:`~lcel_agent.result.Repair`
are keyed by the enums themselves, so a new member without words is a test failure, not
a report that prints a bare code.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._shared.answer_codes import Repair, Trigger

__all__ = ["REPAIRS", "TRIGGERS", "describe_answer"]

#: What ended the acting, in words.
TRIGGERS: Mapping[Trigger, str] = {
    Trigger.FINAL: "the model answered",
    Trigger.FORCED: "the model answered on the reserved last loop",
    Trigger.EMPTY: "the model replied with nothing",
    Trigger.PLAN: "the model gave a plan twice",
    Trigger.ECHO: "the model wrote its results out instead of a call",
    Trigger.CUT: "the model's answer was cut off at the length limit",
    Trigger.DRIFT: "the model only repeated calls it had made",
    Trigger.DIRECT: "a return_direct tool answered",
    Trigger.STOPPED: "the run was stopped before the model answered",
}
#: Why the answer stage wrote, in words (a check's own name is shown as it is).
REPAIRS: Mapping[Repair, str] = {
    Repair.NONE: "",
    Repair.CUT: "its answer was cut off",
    Repair.ECHO: "it copied its results out",
    Repair.EMPTY: "it said nothing",
    Repair.PLAN: "it only said what it would do",
    Repair.FORM: "its answer was protocol JSON, not words",
    Repair.OMITS: "its answer left a result out",
    Repair.DRIFT: "it only repeated its calls",
    Repair.COMPOSE: 'answer="compose"',
}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' * (n != 1)}"


def describe_answer(record: Any) -> str:
    """One line on ``result.answer`` (``to_dict()`` form); "" when there is none."""
    if not isinstance(record, Mapping) or not record.get("source"):
        return ""
    results = int(record.get("results") or 0)
    raw = str(record.get("trigger"))
    trigger = TRIGGERS.get(Trigger(raw), raw) if raw in set(Trigger) else raw
    unused = ", ".join(str(c) for c in record.get("unused") or ())
    source = record.get("source")
    if source == "composed":
        calls = int(record.get("calls") or 0)
        mode = str(record.get("output_mode") or "text")
        repair = str(record.get("repair") or "")
        why = REPAIRS.get(Repair(repair), repair) if repair in set(Repair) else f"check {repair}"
        line = (
            f"written by the answer stage from {_plural(results, 'result')} "
            f"({_plural(calls, 'call')}, {mode}) after {trigger}" + (f": {why}" if why else "")
        )
        if unused:
            line += f"; the model's own answer left out {unused}"
    elif source == "results":
        line = f"the results in plain lines ({_plural(results, 'result')}): {trigger}"
    else:
        line = f"the model's own answer ({trigger}), checked against {_plural(results, 'result')}"
        if unused:
            line += f"; it leaves out {unused}"
    if "language" in record and record.get("language") is None:
        line += "; the question's language is not one the rules read"
    if record.get("note"):
        line += f" — {record['note']}"
    if record.get("complete") is False:
        line += " (incomplete)"
    return line

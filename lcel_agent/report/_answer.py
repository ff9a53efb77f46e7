"""How the report says who wrote the answer: the answer stage's record, in one line."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["describe_answer"]

_TRIGGERS = {
    "final": "the model answered",
    "echo": "the model wrote its results out instead of a call",
    "cut": "the model's answer was cut off at the length limit",
    "forced": "the model answered on the reserved last loop",
}


def describe_answer(record: Any) -> str:
    """One line on ``result.answer`` (``to_dict()`` form); "" when there is none."""
    if not isinstance(record, Mapping) or not record.get("source"):
        return ""
    results = int(record.get("results") or 0)
    trigger = _TRIGGERS.get(str(record.get("trigger")), str(record.get("trigger")))
    unused = ", ".join(str(c) for c in record.get("unused") or ())
    if record.get("source") == "composed":
        calls = int(record.get("calls") or 0)
        mode = str(record.get("output_mode") or "text")
        line = (
            f"written by the answer stage from {results} result{'s' * (results != 1)} "
            f"({calls} call{'s' * (calls != 1)}, {mode}) after {trigger}"
        )
        if unused:
            line += f"; the model's own answer left out {unused}"
    else:
        line = f"the model's own answer ({trigger}), checked against {results} result{'s' * (results != 1)}"
        if unused:
            line += f"; it leaves out {unused}"
    if record.get("note"):
        line += f" — {record['note']}"
    if record.get("complete") is False:
        line += " (incomplete)"
    return line

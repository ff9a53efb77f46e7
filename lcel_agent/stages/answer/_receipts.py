"""Receipts: results that hold no data, so an answer need not repeat them. By what they
hold, in any language: no word list says "done".

A result is a receipt when it is short (at most 200 characters) and holds

* nothing at all (``null``, ``{}``, ``""``), or
* an object whose fields are only identifiers, flags and statuses (``{"status": "ok",
  "id": 5521}``, ``{"success": true, "ticket_id": 8812}``): any other field is data
  (``{"status": "open", "assignee": "maria"}``), or
* a line of a few words whose numbers are all identifiers (``message id 5521``,
  ``AF7731``, ``#4411``, ``R-204``, a number after a label that says it is one, in the
  script it is written in: ``id``, ``№``, ``编号``, ``رقم``, ``numara``, ...): ``queued:
  message id 5521``, ``Ticket #4411 closed; requester notified``, ``已发送，邮件编号
  5521``, ``réservé : AF7731``, ``تم الإرسال، رقم 5521``. A number that is no identifier
  (a date, a price, a count, a temperature) is data, and so are more than a sentence's
  worth of words.

A result of a few words and no number proves little either way: it is not held against
an answer (``Sunny`` read as a receipt only lets the model's words stand).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import regex

__all__ = ["is_receipt"]

_RECEIPT_CHARS = 200
#: More words than this make a line data (more than a sentence: news, a description).
_RECEIPT_WORDS = 16
_EMPTY = frozenset({"null", "{}", "[]", '""', "true", "false", "None"})
# Field names of identifiers and statuses (JSON keys are code, not the user's language).
_ID_KEY = regex.compile(r"(?:^|_|-|\b)(?:id|uuid|no|number|num|ref|reference|code|key|"
                        r"confirmation|receipt|tracking)s?$|[a-z]Id$", regex.IGNORECASE)  # fmt: skip
_STATUS_KEY = regex.compile(
    r"^(?:status|state|result|success|succeeded|ok|done|error|errors|message|msg|code|"
    r"acknowledged|queued|created|updated|deleted)$",
    regex.IGNORECASE,
)
_WORD = regex.compile(r"\p{L}[\p{L}\p{M}]*")
# A number, and what marks it as an identifier: Latin letters, a dash or # glued to it
# (AF7731, R-204, #4411), or a label before it ("id 5521", "№ 12", "编号 5521"). Scripts
# written without spaces glue every number to its words (温度39℃): only Latin codes count.
_NUMBER = regex.compile(r"(?<![A-Za-z0-9#\-/_.])\p{Nd}+(?:[.,]\p{Nd}+)*(?![A-Za-z0-9\-_/])")
# The labels are the word "number" (or "id", "code") as the scripts write it: a label, not a
# verdict on the result, so a language missing here only makes its receipts count as data.
_ID_LABEL = regex.compile(
    r"(?:\b(?:id|no|nr|ref|code|number|num[eé]ro|nummer|numer|numara|nomor|nambari|số|"
    r"αριθμός|номер|رقم|شماره|מספר|नंबर|संख्या|নম্বর|எண்|หมายเลข)\.?|#|№|编号|番号|单号)\s*:?\s*$",
    regex.IGNORECASE,
)


def is_receipt(text: str) -> bool:
    """Whether a result only acknowledges an action (see the module docstring)."""
    stripped = text.strip()
    if not stripped or stripped in _EMPTY:
        return True
    if len(stripped) > _RECEIPT_CHARS:
        return False
    try:
        value = json.loads(stripped)
    except ValueError:
        value = None
    if isinstance(value, Mapping):
        return bool(value) and all(_receipt_field(k, v) for k, v in value.items())
    if isinstance(value, list | int | float):
        return False  # a list or a bare number is data (an empty list is caught above)
    return not _facts_in(stripped) and len(_WORD.findall(stripped)) <= _RECEIPT_WORDS


def _receipt_field(key: Any, value: Any) -> bool:
    """A field of an identifier, a flag or a status, with a scalar value."""
    if isinstance(value, Mapping | list):
        return False
    name = str(key)
    if isinstance(value, bool) or value is None:
        return True
    if _ID_KEY.search(name):
        return True
    if _STATUS_KEY.match(name):
        return isinstance(value, int) or len(_WORD.findall(str(value))) <= _RECEIPT_WORDS
    return False


def _facts_in(text: str) -> bool:
    """Whether ``text`` holds a number that is no identifier (a date, a price, a count)."""
    return any(
        not _ID_LABEL.search(text[max(0, m.start() - 12) : m.start()])
        for m in _NUMBER.finditer(text)
    )

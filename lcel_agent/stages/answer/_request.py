"""What the answer stage asks: the question, a batch of results, numbered, and a form.

A request holds the user's instructions (the agent's ``system_prompt`` or the run's
own system message) before the stage's own system text, the question and a batch of
the run's results, one per line, and what to write: for a report, one line per
result then a summary (held to :func:`lines_schema` where the server can), for a yes/no
question or a choice a short answer; always in the question's language. Results are
put into batches that fit a token budget (:func:`batches`), the last batch also writing
the summary with the lines of the earlier ones before it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from ... import texts
from ...rules.gathered import Result
from ._question import Shape

__all__ = [
    "SUMMARY_KEY",
    "Batch",
    "batches",
    "key_label",
    "lines_schema",
    "plain_key",
    "readable",
    "request",
]

# A key names its result (the model writes it before the line, under the schema's grammar,
# which keeps the line on its subject): its number and the call's input, which the 1.5B
# model followed more closely than the whole call (7 of 8 complete answers against 6 of
# 8: docs/benchmarks.md, "The answer stage"). A key goes into the server's grammar, so it
# is kept plain: letters and digits of any script, spaces, '.', '-' and '_', at most 24
# characters (llama-cpp-python 0.3.36 died of one key with a '"' in it; issue 37).
_KEY_CHARS = 24
_UNSAFE = re.compile(r"[^\w .-]+")
_NUMBERED = re.compile(r"\d+\. ")
SUMMARY_KEY = "summary"


def plain_key(number: int, subject: str) -> str:
    """A schema key safe for any grammar converter: ``"{number}. {subject, plain}"``.

    Only word characters (any script), spaces, ``.``, ``-`` and ``_`` are kept, runs of
    anything else become one space, and the whole key is at most 24 characters; a
    subject with nothing plain left gives the number alone.
    """
    words = " ".join(_UNSAFE.sub(" ", subject).split())
    return f"{number}. {words}"[:_KEY_CHARS].rstrip(" .-") if words else str(number)


def key_label(key: str) -> str:
    """The subject a key names (``"1. 北京"`` -> ``"北京"``; ``"3"`` -> ``""``): the label a
    line written under the key is led by when it does not start with it."""
    numbered = _NUMBERED.match(key)
    return key[numbered.end() :] if numbered is not None else ""


@dataclass(frozen=True, slots=True)
class Batch:
    """Results written by one request: their numbers start at ``first`` (1-based)."""

    results: tuple[Result, ...]
    first: int
    last: bool
    """The batch that ends the answer: it writes the summary."""

    def keys(self) -> list[str]:
        """The schema's keys, one per result: its number and its subject made plain
        (``"1. 北京"``; ``"2. source log.txt"`` for ``{"source": "log.txt", ...``)."""
        return [plain_key(self.first + i, r.subject or r.tool) for i, r in enumerate(self.results)]

    def halves(self) -> tuple[Batch, Batch]:
        """The batch split in two (a reply cut short writes fewer results at a time)."""
        middle = len(self.results) // 2
        return (
            Batch(self.results[:middle], self.first, False),
            Batch(self.results[middle:], self.first + middle, self.last),
        )


def batches(results: Sequence[Result], budget: int, counter: Callable[[str], int]) -> list[Batch]:
    """``results`` in order, cut into batches of at most ``budget`` tokens of result text
    (a result larger than the budget is a batch of its own: it is never cut)."""
    out: list[list[Result]] = [[]]
    size = 0
    for result in results:
        cost = counter(result.text)
        if out[-1] and size + cost > budget:
            out.append([])
            size = 0
        out[-1].append(result)
        size += cost
    made: list[Batch] = []
    first = 1
    for index, group in enumerate(out):
        made.append(Batch(tuple(group), first, index == len(out) - 1))
        first += len(group)
    return made


def readable(text: str) -> str:
    """A result as the answer request shows it: a JSON result flattened to ``key: value``.

    A small model copies JSON poorly into a reply that is itself JSON (every quote to
    escape): on the 1.5B model the search's JSON hits were the one result it left out,
    writing the summary in their place. Text that is not JSON is shown as it is.
    """
    try:
        value = json.loads(text)
    except ValueError:
        return text
    if not isinstance(value, (dict, list)):
        return text
    parts = list(_flat(value))
    return "; ".join(parts) if parts else text


def _flat(value: Any, key: str = "") -> Iterator[str]:
    if isinstance(value, dict):
        for name, item in value.items():
            yield from _flat(item, str(name))
    elif isinstance(value, list):
        for item in value:
            yield from _flat(item, key)
    elif value is not None and str(value).strip():
        yield f"{key}: {value}" if key else str(value)


@dataclass(frozen=True, slots=True)
class Asking:
    """How a run's answer is asked for (the same for every request of the run)."""

    question: str
    persona: str | None = None
    shape: Shape = "report"
    verbatim: bool = False


def request(
    asking: Asking,
    batch: Batch,
    *,
    earlier: Sequence[str] = (),
    form: str = "text",
    schema: str | None = None,
) -> list[BaseMessage]:
    """The messages of one request: system, then the question, the batch and the form.

    ``form`` is ``"text"`` or ``"json"`` (one key per result); ``schema``, when given, is
    a ``response_format`` the whole answer must fit (then the batch is every result). A
    decision (yes/no, a choice) is asked for as a short text answer.
    """
    listed = "\n".join(
        texts.ANSWER_RESULT.format(n=batch.first + i, call=r.call, text=readable(r.text))
        for i, r in enumerate(batch.results)
    )
    parts = [texts.ANSWER_QUESTION.format(question=asking.question, results=listed)]
    if earlier and batch.last:
        parts.append(texts.ANSWER_EARLIER.format(lines="\n".join(earlier)))
    if schema is not None:
        parts.append(texts.ANSWER_STRUCTURED.format(schema=schema))
    elif asking.shape == "decision":
        parts.append(texts.ANSWER_DECISION)
    elif form == "json":
        parts.append(texts.ANSWER_JSON.format(ending=texts.ANSWER_SCHEMA if batch.last else ""))
    else:
        ending = texts.ANSWER_SUMMARY if batch.last else "nothing more"
        parts.append(texts.ANSWER_LINES.format(ending=ending))
    rules = [texts.ANSWER_LANGUAGE]
    if asking.verbatim:
        rules.append(texts.ANSWER_VERBATIM)
    parts.append(" ".join(rules))
    system = texts.ANSWER_SYSTEM
    if asking.persona and asking.persona.strip():
        system = texts.ANSWER_PERSONA.format(persona=asking.persona.strip()) + system
    return [SystemMessage(content=system), HumanMessage(content="\n\n".join(parts))]


def lines_schema(batch: Batch) -> dict[str, Any]:
    """The JSON schema of a batch's reply: one string per result, then the summary."""
    keys = [*batch.keys(), *([SUMMARY_KEY] if batch.last else [])]
    return {
        "type": "object",
        "properties": {key: {"type": "string"} for key in keys},
        "required": keys,
        "additionalProperties": False,
    }

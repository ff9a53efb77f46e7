"""The answer stage's requests and replies: what the model is asked, what is read back.

Pure helpers of :mod:`lcel_agent.stages.answer`. A request holds the question and a
batch of the run's results, numbered, one per line (:func:`request`); its reply is
read as text, or, when the server held it to :func:`lines_schema`, as one line per
result and a summary (:func:`read_lines`). Results are put into batches that fit a
token budget (:func:`batches`), the last batch also writing the summary with the lines
of the earlier ones before it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from .. import texts
from ..errors import ActionParseError
from ._coverage import CJK, Result
from .clean import extract_json

__all__ = [
    "Batch",
    "batches",
    "lines_schema",
    "plain_key",
    "read_lines",
    "read_text",
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
# A subject longer than this is no label to lead a line with.
_LABEL_CHARS = 40
_UNSAFE = re.compile(r"[^\w .-]+")
_CHINESE = re.compile(f"[{CJK}]")
SUMMARY_KEY = "summary"


@dataclass(frozen=True, slots=True)
class Batch:
    """Results written by one request: their numbers start at ``first`` (1-based)."""

    results: tuple[Result, ...]
    first: int
    last: bool
    """The batch that ends the answer: it writes the summary."""

    def keys(self) -> list[str]:
        """The schema's keys, one per result: its number and its subject made plain
        (``"1. 北京"``; ``"2. log.txt destination"`` for ``{"source": "log.txt", ...``)."""
        return [plain_key(self.first + i, r.subject or r.tool) for i, r in enumerate(self.results)]

    def halves(self) -> tuple[Batch, Batch]:
        """The batch split in two (a reply cut short writes fewer results at a time)."""
        middle = len(self.results) // 2
        return (
            Batch(self.results[:middle], self.first, False),
            Batch(self.results[middle:], self.first + middle, self.last),
        )


def plain_key(number: int, subject: str) -> str:
    """A schema key safe for any grammar converter: ``"{number}. {subject, plain}"``.

    Only word characters (any script), spaces, ``.``, ``-`` and ``_`` are kept, runs of
    anything else become one space, and the whole key is at most 24 characters; a
    subject with nothing plain left gives the number alone.
    """
    words = " ".join(_UNSAFE.sub(" ", subject).split())
    return f"{number}. {words}"[:_KEY_CHARS].rstrip(" .-") if words else str(number)


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


def request(
    question: str,
    batch: Batch,
    *,
    earlier: Sequence[str] = (),
    form: str = "text",
    schema: str | None = None,
) -> list[BaseMessage]:
    """The messages of one request: system, then the question, the batch and the form.

    ``form`` is ``"text"`` or ``"json"`` (one key per result); ``schema``, when given, is
    a ``response_format`` the whole answer must fit (then the batch is every result).
    """
    listed = "\n".join(
        texts.ANSWER_RESULT.format(n=batch.first + i, call=r.call, text=readable(r.text))
        for i, r in enumerate(batch.results)
    )
    parts = [texts.ANSWER_QUESTION.format(question=question, results=listed)]
    if earlier and batch.last:
        parts.append(texts.ANSWER_EARLIER.format(lines="\n".join(earlier)))
    if schema is not None:
        parts.append(texts.ANSWER_STRUCTURED.format(schema=schema))
    elif form == "json":
        parts.append(texts.ANSWER_JSON.format(ending=texts.ANSWER_SCHEMA if batch.last else ""))
    else:
        ending = texts.ANSWER_SUMMARY if batch.last else "nothing more"
        parts.append(texts.ANSWER_LINES.format(ending=ending))
    return [SystemMessage(content=texts.ANSWER_SYSTEM), HumanMessage(content="\n\n".join(parts))]


def lines_schema(batch: Batch) -> dict[str, Any]:
    """The JSON schema of a batch's reply: one string per result, then the summary."""
    keys = [*batch.keys(), *([SUMMARY_KEY] if batch.last else [])]
    return {
        "type": "object",
        "properties": {key: {"type": "string"} for key in keys},
        "required": keys,
        "additionalProperties": False,
    }


def read_lines(text: str, batch: Batch) -> list[str] | None:
    """The lines of a JSON reply (and the summary, last), or None when it does not fit.

    Keys are matched in order, so a model that numbered them its own way still counts:
    what must hold is one string per result (and the summary). A field that holds a
    ``final`` action out of habit counts as its answer (:func:`read_text`).
    """
    try:
        value = extract_json(text)
    except ActionParseError:
        return None
    if not isinstance(value, dict):
        return None
    wanted = len(batch.results) + (1 if batch.last else 0)
    fields = [v for v in value.values() if isinstance(v, str)]
    if len(fields) != wanted or len(value) != wanted:
        return None
    lines = [read_text(field) for field in fields]
    if not all(lines[: len(batch.results)]):
        return None
    named = [_named(line, r.subject) for line, r in zip(lines, batch.results, strict=False)]
    return [line for line in [*named, *lines[len(named) :]] if line]


def _named(line: str | None, subject: str) -> str | None:
    """A result's line led by its subject when the line does not name it.

    Under the schema the model writes each line under its result's key (``"1. 北京"``)
    and may leave the subject out of the line ("多云，温度26℃"): the key it wrote
    under says whose line it is, and a line read alone must say it too. The label is
    the call's input, never a result's words.
    """
    subject = subject.strip()
    if not line or not subject or subject in line or len(subject) > _LABEL_CHARS:
        return line
    return f"{subject}{'：' if _CHINESE.search(subject) else ': '}{line}"


def read_text(text: str) -> str | None:
    """A text reply as the answer: the text, or the answer of a ``final`` action written
    out of habit, bare or in prose (a model that has been acting in JSON may keep to
    it); None for a tool call written out of the same habit, which answers nothing."""
    stripped = text.strip()
    if "{" not in stripped:
        return stripped or None
    try:
        value = extract_json(stripped)
    except ActionParseError:
        return stripped
    items = value if isinstance(value, list) else [value]
    actions = [i for i in items if isinstance(i, dict) and "action" in i]
    if not actions or len(actions) != len(items):
        return stripped  # an answer that holds some JSON is still the answer
    final = next((a for a in actions if str(a["action"]).lower() == "final"), None)
    answer = final.get("action_input") if final is not None else None
    if isinstance(answer, str):
        return answer.strip() or None
    return None if answer is None else json.dumps(answer, ensure_ascii=False)

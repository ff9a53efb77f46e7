"""What is read back: a reply is an answer only if it is words.

Whatever the answer stage delivers, and whatever of the model's own it keeps, is checked
here first. Not an answer: protocol JSON (a tool call, an action object, a reply cut off
inside one: ``'{"action": "search_baidu",'``), a tool call in ``<tool_call>`` tags, an
empty reply, a line that is only a protocol word or its own label (``final``,
``SUMMARY``, ``北京``), and an echo of the stage's own request ("Tool results: ...").
A ``final`` action written out of habit is its answer, unwrapped::

    read_text('{"action": "final", "action_input": "北京晴"}', tools)   # "北京晴"
    read_text('{"action": "get_weather", "action_input": "北京"}', tools)   # None
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection, Sequence
from typing import Any

from ... import texts
from ...errors import ActionParseError
from .._shapes import FINAL_NAMES, INPUT_KEYS, NAME_KEYS
from ..clean import extract_json
from ._echo import WINDOW
from ._request import SUMMARY_KEY, Batch, key_label

__all__ = ["read_lines", "read_text", "unwrapped", "words_of_reply"]

_CHINESE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_TAGGED = re.compile(r"<tool_call>", re.IGNORECASE)
# A reply that opens with JSON, bare or in a fence.
_OPENS_JSON = re.compile(r"(?:```[\w-]*\s*)?[\[{]")
# The stage's own request, as a model may copy it back.
_REQUEST_TEXTS = [
    texts.ANSWER_LINES.split("{", 1)[0],
    texts.ANSWER_JSON.split("{", 1)[0],
    texts.ANSWER_DECISION,
    texts.ANSWER_LANGUAGE,
    "Tool results:\n",
]


def _action_items(value: Any) -> list[dict[str, Any]] | None:
    """The action objects of a parsed reply, or None when it is other JSON (an answer)."""
    items = value if isinstance(value, list) else [value]
    actions = [i for i in items if isinstance(i, dict) and _is_action(i)]
    if not actions or len(actions) != len(items):
        return None
    return actions


def unwrapped(text: str) -> tuple[str, str | None]:
    """``("words", text)``, ``("final", answer)`` or ``("form", None)`` for a reply.

    ``final``: a ``final`` action written out (its answer, as text). ``form``: protocol
    JSON that answers nothing (a tool call, an action cut off, a list of calls).
    """
    stripped = text.strip()
    if _TAGGED.search(stripped):
        return "form", None
    if not _OPENS_JSON.match(stripped):
        return "words", stripped
    try:
        value = extract_json(stripped)
    except ActionParseError:
        # It opens as JSON and does not read as JSON: an attempt at one, cut off or broken,
        # is no answer in words.
        return "form", None
    actions = _action_items(value)
    if actions is None:
        return "words", stripped  # an answer that is, or holds, some other JSON
    finals = [a for a in actions if _is_final(a)]
    if len(finals) != len(actions):
        return "form", None
    answer = _final_input(finals[-1])
    if answer is None:
        return "form", None
    return "final", answer


def _is_action(item: dict[str, Any]) -> bool:
    """An action object: a name, and an input or the name of the final answer
    (``{"name": "lcel-agent", "stars": 312}`` is a record, not a call)."""
    return any(isinstance(item.get(k), str) for k in NAME_KEYS) and (
        any(k in item for k in INPUT_KEYS) or _is_final(item)
    )


def _is_final(action: dict[str, Any]) -> bool:
    name = next((action[k] for k in NAME_KEYS if k in action), None)
    return isinstance(name, str) and name.strip().lower() in FINAL_NAMES


def _final_input(action: dict[str, Any]) -> str | None:
    value = next((action[k] for k in INPUT_KEYS if k in action), None)
    if value is None:
        rest = [v for k, v in action.items() if k not in NAME_KEYS]
        value = rest[0] if len(rest) == 1 else None
    if isinstance(value, str):
        return value.strip() or None
    return None if value is None else json.dumps(value, ensure_ascii=False)


def _copies_request(text: str) -> bool:
    return any(len(t) >= WINDOW and t[:WINDOW] in text for t in _REQUEST_TEXTS) or any(
        t.strip() and t.strip() in text for t in _REQUEST_TEXTS[-1:]
    )


def words_of_reply(text: str, tools: Collection[str] = ()) -> str | None:
    """The answer a reply gives in words (a ``final`` unwrapped), or None when it gives none."""
    kind, answer = unwrapped(text)
    if kind == "form" or answer is None:
        return None
    if kind == "final":
        # A final whose text is itself protocol JSON is no answer either.
        inner_kind, inner = unwrapped(answer)
        return inner if inner_kind != "form" else None
    if not answer or _copies_request(answer) or _only_a_word(answer, tools):
        return None
    return answer


def _only_a_word(line: str, tools: Collection[str], label: str = "") -> bool:
    """A line that is only a protocol word, a tool's name or its own label."""
    bare = line.strip().strip("：:.。-—").strip().lower()
    return (
        not bare
        or bare in FINAL_NAMES
        or bare == SUMMARY_KEY
        or bare in {t.lower() for t in tools}
        or (bool(label) and bare == label.strip().lower())
    )


def read_text(text: str, tools: Collection[str] = ()) -> str | None:
    """A text reply as the answer, or None when it is none (see the module docstring)."""
    return words_of_reply(text, tools)


def read_lines(text: str, batch: Batch, tools: Collection[str] = ()) -> list[str] | None:
    """The lines of a schema-held reply (and the summary, last), or None when it is not one.

    Keys are matched in order, so a model that numbered them its own way still counts:
    what must hold is one string per result (and the summary), each a line of words. A
    line that does not name its subject is led by it: the label the key carried.
    """
    try:
        value = extract_json(text)
    except ActionParseError:
        return None
    if not isinstance(value, dict) or _action_items(value) is not None:
        return None
    wanted = len(batch.results) + (1 if batch.last else 0)
    fields = [v for v in value.values() if isinstance(v, str)]
    if len(fields) != wanted or len(value) != wanted:
        return None
    keys = batch.keys()
    lines: list[str] = []
    for index, field in enumerate(fields):
        label = key_label(keys[index]) if index < len(keys) else ""
        line = words_of_reply(field, tools)
        if index >= len(keys) and not field.strip():
            continue  # an empty summary: the lines say it all
        if line is None or _only_a_word(line, tools, label):
            return None
        lines.append(named(line, label))
    return lines


def named(line: str, label: str) -> str:
    """``line`` led by ``label`` when it does not name it (``北京：多云，温度26℃``).

    Under the schema the model writes each line under its result's key (``"1. 北京"``)
    and may leave the subject out of the line: the key says whose line it is, and a line
    read alone must say it too. The label is the call's input as the key holds it,
    never a result's words.
    """
    if not label or label in line:
        return line
    return f"{label}{'：' if _CHINESE.search(label) else ': '}{line}"


def plain_lines(results: Sequence[Any]) -> str:
    """The results as plain lines, for when no answer could be had at all."""
    return "\n".join(f"{r.call}: {r.text}" for r in results)

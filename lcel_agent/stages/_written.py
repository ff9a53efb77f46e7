"""Calls written in words: a tool's name with its arguments beside it, read as that call.

Small models asked to call a tool often describe the call instead, arguments and all::

    You can use the `get_forecast` tool with the following input:
    ```json
    {"city": "Paris"}
    ```

:func:`written_calls` reads such a reply as the call(s) it writes, in these forms:

* a tool's name, then an object of its arguments in the same sentence ("I'll call
  get_forecast with {"city": "Paris"}") or on the line after it, fenced or not (the
  line between may be a label: ``Input:``, ``Action Input:``, as ReAct writes it);
* Python call syntax, as BFCL's format and small models write it:
  ``get_forecast(city="Paris", days=3)``, literal values only; positional values take
  the arguments in the order the tool lists them;
* an object that names the tool itself (``{"name": ..., "arguments": ...}``, any shape
  :func:`~lcel_agent.stages._shapes.read_action` reads), inside prose;

several of them for parallel calls. An object beside a name is the tool's arguments
only when every key is one of them (an object with a key the tool does not take is
data, not a call); a required argument left out is the dispatcher's to name. What is
never a call: a tool named with a bare value or no value ("Let me call get_weather for
上海": a plan stays a plan), a signature (``get_weather(city)``), JSON with no tool
named beside it (a result quoted back), and a call the sentence reports or shows rather
than makes ("I called …", "… returned {…}", "For example, …", ``get_weather(city="x"):
sunny``).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..state import Action
from ._repair import end_of_group, top_level_spans
from ._shapes import INPUT_KEYS, ShapeError, read_action

__all__ = ["WrittenCall", "written_calls"]


@dataclass(frozen=True, slots=True)
class WrittenCall:
    """One call read out of a reply's words."""

    tool: str
    arguments: Any
    start: int
    """Where it starts in the text (calls come back in the order they were written)."""


# A sentence that reports a call made, shows a result, or gives an example: what follows
# in it is not a call. English and Chinese, the languages the benchmarks' models write.
_NOT_A_CALL = re.compile(
    r"\b(?:i|we|i've|we've|i have|we have|already|was|were|been|had)\s+"
    r"(?:called|used|ran|run|invoked|executed|queried|checked|tried)\b"
    r"|\b(?:returned|returns|responded|responds|gave|gives|yielded|yields|showed|shows|"
    r"says|said|came back|produced|produces|takes|accepts|expects)\b"
    r"|\b(?:result|results|output|response|answer)\s*(?:is|was|were|:)"
    r"|\b(?:for example|for instance|example|such as)\b|\be\.g\.|\bwould(?! like)\b"
    r"|调用了|使用了|用了|查询了|查了|返回|结果|例如|比如|示例|举例",
    re.IGNORECASE,
)
# After a call's closing parenthesis: a result listed beside it (`f(x=1): 3`, `f(x=1) -> 3`).
_RESULT_AFTER = re.compile(r"\s*(?::|->|→|=(?!=)|\breturns?\b|\bgives\b)", re.IGNORECASE)
# Later in the same sentence: the call was made already ("… both succeeded").
_DONE_AFTER = re.compile(
    r"\b(?:succeeded|failed|worked|returned|gave|said|showed|came back)\b|成功|失败|返回了",
    re.IGNORECASE,
)
# The end of a sentence; "e.g." and "i.e." do not end one.
_SENTENCE_END = re.compile(r"(?<!\be\.g)(?<!\bi\.e)[.!?。！？](?=\s|$)", re.IGNORECASE)
# A line that only labels what follows ("Input:", "Action Input:", "参数：").
_LABEL = re.compile(r"^\W*[\w ]{0,30}[:：]\s*$")
# A fence's opening line, left between a name's line and the object it introduces.
_FENCE_OPEN = re.compile(r"```[\w-]*[ \t]*$")
_JSON_NAMES = {"true": True, "false": False, "null": None, "none": None}
# A value that only names what goes there ("<city>"), as a description of the tool writes it.
_PLACEHOLDER = re.compile(r"\s*<[^<>]*>\s*")


def _last_sentence(line: str) -> str:
    """The last sentence of ``line`` that holds words."""
    starts = [0, *(m.end() for m in _SENTENCE_END.finditer(line))]
    sentences = [line[a:b] for a, b in zip(starts, [*starts[1:], len(line)], strict=True)]
    return next((s for s in reversed(sentences) if s.strip()), "")


def _reported_after(text: str, end: int) -> bool:
    """Whether the sentence going on after ``end`` says the call was made already."""
    line_end = text.find("\n", end)
    rest = text[end : len(text) if line_end < 0 else line_end]
    sentence = _SENTENCE_END.split(rest, maxsplit=1)[0]
    return _DONE_AFTER.search(sentence) is not None


def _mentions(text: str, tools: Collection[str]) -> list[tuple[int, str]]:
    """Where each tool is named in ``text``, in order.

    Bounded by what cannot go on an identifier, not by ``\\b``: Chinese runs straight into
    a name (``调用get_weather``), and its characters are word characters to ``re``.
    """
    found = [
        (m.start(), name)
        for name in tools
        for m in re.finditer(rf"(?<![A-Za-z0-9_.]){re.escape(name)}(?![A-Za-z0-9_(])", text)
    ]
    return sorted(found)


def _lead(text: str, start: int, floor: int) -> str:
    """The sentence that introduces the object at ``start``: the words just before it.

    The end of the same line, or, when the object opens its own line (fenced or not), the
    line before it; a label line ("Action Input:") adds the line before it.
    """
    lines = text[floor:start].split("\n")
    if _FENCE_OPEN.search(lines[-1]):
        lines[-1] = _FENCE_OPEN.sub("", lines[-1])
    lines = [line for line in lines if line.strip()]
    if lines and _FENCE_OPEN.fullmatch(lines[-1].strip()):
        lines.pop()
    if not lines:
        return ""
    last = lines[-1]
    if _LABEL.match(last) and len(lines) > 1:
        return _last_sentence(lines[-2]) + " " + last
    return _last_sentence(last)


def _fits(value: Any, arguments: Collection[str]) -> Any:
    """``value`` as the tool's arguments when every key is one of them; else None.

    An object wrapped in one input key (``{"input": {...}}``) is unwrapped first.
    """
    if isinstance(value, dict) and len(value) == 1:
        ((key, inner),) = value.items()
        if key in INPUT_KEYS and key not in arguments and isinstance(inner, dict):
            value = inner
    if not isinstance(value, dict) or set(value) - set(arguments):
        return None
    if any(isinstance(v, str) and _PLACEHOLDER.fullmatch(v) for v in value.values()):
        return None
    return value if value or not arguments else None


def _literal(node: ast.expr) -> Any:
    """A literal argument's value (tuples become lists); ValueError for anything else."""
    if isinstance(node, ast.Name) and node.id.lower() in _JSON_NAMES:
        return _JSON_NAMES[node.id.lower()]
    if isinstance(node, ast.Tuple | ast.List):
        return [_literal(item) for item in node.elts]
    if isinstance(node, ast.Dict):
        if any(key is None for key in node.keys):
            raise ValueError("** in a dict")
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True)}  # type: ignore[arg-type]
    value = ast.literal_eval(node)
    if isinstance(value, set | frozenset | bytes | complex):
        raise ValueError("not a JSON value")
    return value


def _python_arguments(source: str, name: str, arguments: Collection[str]) -> Any:
    """The arguments of ``name(...)`` as an object, or None when it is not a literal call."""
    try:
        node = ast.parse(source, mode="eval").body
    except (SyntaxError, ValueError):
        return None
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        return None
    names = list(arguments)
    if len(node.args) > len(names) or any(k.arg is None for k in node.keywords):
        return None
    try:
        given = {names[i]: _literal(arg) for i, arg in enumerate(node.args)}
        for keyword in node.keywords:
            if keyword.arg in given:
                return None
            given[str(keyword.arg)] = _literal(keyword.value)
    except (ValueError, TypeError, SyntaxError, RecursionError):
        return None
    return _fits(given, arguments)


def _python_calls(
    text: str, tools: Mapping[str, Collection[str]]
) -> Iterator[tuple[int, int, WrittenCall]]:
    for name, arguments in tools.items():
        # No space before the parenthesis: "get_forecast (3 days)" is words about the tool.
        for match in re.finditer(rf"(?<![A-Za-z0-9_.$]){re.escape(name)}\(", text):
            end = end_of_group(text, match.end() - 1)
            if end is None:
                continue
            before = text[: match.start()].rstrip()
            if before.endswith("=") or re.search(r"\bdef$", before):
                continue  # code that assigns or defines, not a call made
            if _RESULT_AFTER.match(text, end) or _reported_after(text, end):
                continue
            line_start = text.rfind("\n", 0, match.start()) + 1
            if _NOT_A_CALL.search(_last_sentence(text[line_start : match.start()])):
                continue
            value = _python_arguments(text[match.start() : end], name, arguments)
            if value is not None:
                yield match.start(), end, WrittenCall(name, value, match.start())


def _named_object(value: Any, tools: Mapping[str, Collection[str]]) -> list[tuple[str, Any]]:
    """The calls of an object (or list of objects) that names its tool, else []."""
    items = value if isinstance(value, list) else [value]
    try:
        read = [read_action(item, tools, tools) for item in items]
    except ShapeError:
        return []
    return read if all(name in tools for name, _ in read) else []


def _object_calls(
    text: str, tools: Mapping[str, Collection[str]], taken: list[tuple[int, int]]
) -> Iterator[WrittenCall]:
    floor = 0
    for start, end, value in top_level_spans(text):
        if any(lo <= start < hi for lo, hi in taken):
            continue  # inside a Python call already read
        lead = _lead(text, start, floor)
        floor = end
        if _NOT_A_CALL.search(lead) or _reported_after(text, end):
            continue
        named = _named_object(value, tools)
        if named:
            yield from (WrittenCall(name, args, start) for name, args in named)
            continue
        mentioned = _mentions(lead, tools)
        if not mentioned:
            continue
        name = mentioned[-1][1]  # the nearest name before the object
        fitted = _fits(value, tools[name])
        if fitted is not None:
            yield WrittenCall(name, fitted, start)


def written_calls(
    text: str, tools: Mapping[str, Collection[str]], done: Collection[str] = ()
) -> tuple[WrittenCall, ...]:
    """The calls written in ``text`` (see the module docstring), in the order written.

    Args:
        text: the reply's text.
        tools: each tool's argument names, in the order the tool lists them.
        done: signatures (:meth:`~lcel_agent.state.Action.signature`) of the calls that
            already succeeded in the run: written again, they are reported, not made.
    """
    if not tools or not text.strip():
        return ()
    python = list(_python_calls(text, tools))
    taken = [(lo, hi) for lo, hi, _ in python]
    calls = [call for _, _, call in python] + list(_object_calls(text, tools, taken))
    calls.sort(key=lambda c: c.start)
    return tuple(c for c in calls if Action(c.tool, c.arguments).signature() not in done)

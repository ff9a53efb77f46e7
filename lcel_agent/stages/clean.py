"""``clean_json``: read the JSON value out of a model's reply.

Models asked for "JSON only" still wrap it in markdown fences, put a sentence
before or after it, or embed it in prose. :func:`extract_json` tries, in order:
the whole text and each fenced block; a text that ends the way a value closes, as one
value repaired (its writer finished it and slipped inside); every ``{`` or ``[`` from
left to right with a real JSON decoder; and returns the first object or list it can
read. Failing that, it reads JSON as models write it (a line break inside a string,
Python quotes, trailing commas, a comment after the object: see
:mod:`lcel_agent.stages._repair`), but only a whole object or list: a reply cut
off mid-value is never completed into an action. Inside the agent, a reply that
writes several objects one after another (a plan without the list's brackets)
is read as the list of them (:func:`several_values`). A reply whose JSON is not an
action (or that has none) but that writes a call in words, a tool's name with its
arguments beside it or in call syntax, is read as that call before anything else is
decided about its words (:mod:`lcel_agent.stages._written`).

Works on its own in any chain::

    chain = prompt | llm | CleanJson()      # AIMessage or str in, dict/list out
    CleanJson().invoke('```json\\n{"action": "final", "action_input": "hi"}\\n```')

Inside the agent it sets ``state.parsed``, or a ``format`` loop error whose
message stays out of the model's history. A reply of plain text (no ``{`` at all) is
read as words (:mod:`lcel_agent.stages._words`): before any tool call has succeeded it
is sent back once with the prose re-prompt (an answer in the wrong form, or thinking
aloud: "I need to check the weather first."); once one has, it is the final answer,
tool names and all: small models answer in prose once they have their results, and
re-prompted, a 1.5B model copied the re-prompt instead of its answer
(docs/benchmarks.md, "Real models"). Whether such an answer is a plan is one of the
answer checks, made in ``classify_error``; an empty reply with results in hand is an
empty answer, which the answer stage writes. ``CleanJson(prose_answers=False)`` takes no
words for an answer: a reply without JSON is a ``format`` error every time.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Callable, Collection, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig

from .._redact import redact
from .._shared.messages import message_text
from ..errors import ActionParseError, ErrorClass, error_reason
from ..rules.gathered import gathered
from ..state import FINAL_ACTION, AgentState, RunError
from ..texts import FORMAT_REPROMPT, PROSE_REPROMPT
from ._base import Stage
from ._repair import read_closed_outer, read_lenient, top_level_values
from ._shapes import ShapeError, read_action
from ._words import judge_words
from ._written import written_calls

__all__ = [
    "CleanJson",
    "KeepReply",
    "extract_json",
    "is_prose",
    "message_text",
    "several_values",
    "succeeded",
]

_FENCE = re.compile(r"```[ \t]*([A-Za-z0-9_-]*)[^\n`]*\n(.*?)(?:```|\Z)", re.DOTALL)
_DECODER = json.JSONDecoder()


def _whole(text: str) -> Any:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, (dict, list)) else None


def _scan(text: str) -> Any:
    for index, char in enumerate(text):
        if char not in "{[":
            continue
        try:
            value, _ = _DECODER.raw_decode(text, index)
        except ValueError:
            continue
        if isinstance(value, (dict, list)):
            return value
    return None


def _first(read: Callable[[str], Any], candidates: list[str]) -> Any:
    """What ``read`` reads of the first candidate it reads anything of (None: of none)."""
    for candidate in candidates:
        if (value := read(candidate)) is not None:
            return value
    return None


def extract_json(text: str) -> dict[str, Any] | list[Any]:
    """Return the first JSON object or list in ``text``.

    Raises:
        ActionParseError: when there is none. Its ``observation`` is the fixed
            re-prompt text, never the decoder's message.
    """
    stripped = text.strip().lstrip("\ufeff")
    candidates = [stripped, *(m.group(2).strip() for m in _FENCE.finditer(stripped))]
    readers: tuple[Callable[[], Any], ...] = (  # in the order of the module docstring
        lambda: _first(_whole, candidates),
        lambda: read_closed_outer(stripped),
        lambda: _first(_scan, candidates),
        lambda: read_lenient(stripped),
    )
    for read in readers:
        if (value := read()) is not None:
            return value  # type: ignore[no-any-return]
    preview = stripped[:80] + ("…" if len(stripped) > 80 else "")
    raise ActionParseError(
        f"no JSON object or list in the reply: {preview!r}",
        llm_output=text,
        observation=FORMAT_REPROMPT,
    )


def several_values(text: str) -> list[Any] | None:
    """The actions of a reply that writes several objects one after another, as one list.

    ``{...}\n{...}`` (a plan written without the list's brackets) reads as
    ``[{...}, {...}]``; lists among them are spliced in. None when the reply holds one
    value or fewer, or anything but objects.
    """
    if text.count("{") + text.count("[") < 2:
        return None
    values = top_level_values(text)
    if len(values) < 2:
        return None
    items = [item for v in values for item in (v if isinstance(v, list) else [v])]
    return items if all(isinstance(item, dict) for item in items) else None


def is_prose(text: str, tools: Collection[str] = ()) -> bool:
    """Whether ``text`` is plain words: not empty, no ``{``, and none of ``tools`` named.

    A tool named in prose (``get_weather(北京)``, "I will call search_baidu") is an
    attempt at a call, never an answer.
    """
    stripped = text.strip()
    return bool(stripped) and "{" not in stripped and not any(t in stripped for t in tools)


class CleanJson(Stage):
    """Parse the reply's JSON into ``state.parsed`` (or a str/message into a value).

    A reply whose JSON is not an action but which writes a call in words ("I'll call
    get_weather with {"city": "北京"}", ``get_weather(city="北京")``) is read as that call
    (:mod:`lcel_agent.stages._written`), before it is judged as an answer or a plan.

    Args:
        tools: the agent's tool names; a plain-text reply that names one is not an answer.
            Given as a mapping of each tool's argument names (as ``create_agent`` does), a
            call written in words is read too: its arguments must be the tool's.
        prose_answers: take a plain-text reply as the final answer when it carries a fact
            of the run's results (the default); False re-prompts for JSON instead.
    """

    name = "clean_json"

    def __init__(
        self,
        *,
        tools: Collection[str] | Mapping[str, Collection[str]] = (),
        prose_answers: bool = True,
        name: str | None = None,
    ) -> None:
        super().__init__(name=name)
        self.tools = tuple(tools)
        self.arguments: Mapping[str, Collection[str]] = (
            dict(tools) if isinstance(tools, Mapping) else {}
        )
        self.prose_answers = prose_answers

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        if state.stop is not None or state.loop_error is not None or state.reply is None:
            return state
        text = message_text(state.reply)
        parsed: Any = None
        failure: Exception | None = None
        try:
            parsed = several_values(text) or extract_json(text)
        except (ActionParseError, TypeError) as exc:
            failure = exc
        if not _names_actions(parsed, self.tools):
            written = written_calls(text, self.arguments, succeeded(state))
            if written:
                actions = [{"action": c.tool, "action_input": c.arguments} for c in written]
                return dataclasses.replace(state, parsed=actions)
        if failure is None:
            return dataclasses.replace(state, parsed=parsed)
        return self._words(state, text, failure)

    def _words(self, state: AgentState, text: str, failure: Exception) -> AgentState:
        """A reply with no JSON to read: the answer, a plan sent back, or a format error."""
        stripped = text.strip()
        if self.prose_answers and "{" not in stripped:
            if not stripped and gathered(state):  # said nothing, with results in hand
                return dataclasses.replace(state, parsed=_final(""))
            if stripped:
                words = judge_words(stripped, state, self.tools, json_protocol=True)
                if words.notice is not None:
                    return dataclasses.replace(state, notice=words.notice)
                return dataclasses.replace(state, parsed=_final(stripped))
        error = RunError(
            state.loops,
            self.name or "clean_json",
            ErrorClass.FORMAT,
            redact(error_reason(failure)),
            notice=PROSE_REPROMPT if is_prose(text, self.tools) else None,
        )
        return dataclasses.replace(state, loop_error=error)

    def run_standalone(self, value: Any, config: RunnableConfig) -> Any:
        return extract_json(message_text(value))


def succeeded(state: AgentState) -> frozenset[str]:
    """The signatures of the run's calls that succeeded: written again, they are reported."""
    return frozenset(signature for signature, ok, _ in state.history if ok)


def _names_actions(parsed: Any, tools: Collection[str]) -> bool:
    """Whether the reply's JSON is actions as it stands (each object names one)."""
    items = parsed if isinstance(parsed, list) else [parsed]
    try:
        return bool(items) and all(read_action(item, tools) for item in items)
    except ShapeError:
        return False


def _final(text: str) -> dict[str, str]:
    return {"action": FINAL_ACTION, "action_input": text}


class KeepReply(Stage):
    """The ``clean_json`` slot of the tool-calling protocol: there is no text to clean."""

    name = "clean_json"

    def run(self, state: AgentState, config: RunnableConfig) -> AgentState:
        return state

"""What the article's simulated model reads from a conversation.

:class:`ConversationReader` scans the text of every non-system message for the facts
of a :class:`~lcel_agent.testing.tasks.WeatherSearchTask` (weather lines such as
``北京市天气：晴，温度25℃，湿度40%``, search hits as a JSON list of ``{"title", "link"}``)
and finds the model's own earlier calls and what came of each, in any agent's layout
(JSON actions, native tool calls, ReAct steps). :class:`~lcel_agent.testing.article.ArticleTaskModel`
decides and writes from the :class:`View` it returns.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from lcel_agent.testing.tasks import ADCODES, WeatherSearchTask
from lcel_agent.texts import ANSWER_SYSTEM

__all__ = [
    "REPEATING",
    "Attempt",
    "Call",
    "ConversationReader",
    "View",
    "arg_text",
    "first_json",
    "is_answer_request",
    "is_summary_request",
    "search_hit",
    "text_of",
    "weather_line",
]


@dataclass(frozen=True)
class Call:
    tool: str
    arg: str


@dataclass
class Attempt:
    call: Call
    observation: str = ""
    succeeded: bool = False
    failed: bool = False


@dataclass
class View:
    """What the model reads from the conversation."""

    weather: dict[str, str] = field(default_factory=dict)
    search: dict[str, tuple[str, str]] = field(default_factory=dict)
    """query -> (title, link) of a hit."""
    attempts: list[Attempt] = field(default_factory=list)
    last_batch: list[Attempt] = field(default_factory=list)
    after_last: str = ""
    done: set[Call] = field(default_factory=set)
    """Calls a ledger line says were made and worked (``get_weather(北京) ✓``): the model
    reads them as done, their results kept elsewhere (the agent's answer stage)."""


# A ledger line: a call made, its result no longer shown (see DigestCompactor).
_LEDGER = re.compile(r"^(\w+)\((.*)\) ✓$", re.MULTILINE)


def text_of(content: Any) -> str:
    """The text of a message ``content``: a string or a list of text parts."""
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def first_json(text: str, openers: str = "{[") -> Any:
    """The first JSON value in ``text`` starting at one of ``openers``, else None."""
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in openers:
            try:
                return decoder.raw_decode(text, i)[0]
            except ValueError:
                continue
    return None


def is_summary_request(messages: list[dict[str, Any]]) -> bool:
    """Whether the request asks for notes (the summary compactor's system prompt)."""
    first = messages[0] if messages else {}
    return first.get("role") == "system" and text_of(first.get("content")).startswith(
        "You keep the notes of an agent"
    )


def is_answer_request(messages: list[dict[str, Any]]) -> bool:
    """Whether the request is the answer stage's (its system prompt)."""
    first = messages[0] if messages else {}
    return first.get("role") == "system" and text_of(first.get("content")) == ANSWER_SYSTEM


def arg_text(value: Any) -> str:
    """A call's argument as text."""
    # Its own dict_input noise nests a dict in the arguments: read through it.
    while isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, (str, dict))), "")
    return str(value).strip().strip("'\"")


REPEATING = re.compile(r"repeat|重复", re.I)
"""How the model recognises being told it is repeating itself."""

_REACT_STEP = re.compile(
    r"Action:[ \t]*([^\n]*)\nAction Input:[ \t]*([^\n]*)\nObservation:(.*?)(?=\nThought:|\nAction:|\Z)",
    re.S,
)


def weather_line(city: str, text: str) -> str | None:
    """The first weather line of ``city`` (or its adcode) in ``text``, else None."""
    names = "|".join(re.escape(n) for n in (city, ADCODES.get(city)) if n)
    match = re.search(rf"(?:{names})市?天气：[^\n\"\\{{}}\[\]]*", text)
    return match.group(0).rstrip("，。 ") if match else None


def search_hit(text: str, keyword: str) -> tuple[str, str] | None:
    """``(title, link)`` of the first search result in ``text`` whose title has ``keyword``."""
    if '"link"' not in text:
        text = text.replace('\\"', '"')
    start = 0
    while (i := text.find("[", start)) >= 0:
        start = i + 1
        found = first_json(text[i:], "[")
        for item in found if isinstance(found, list) else ():
            title = str(item.get("title", "")) if isinstance(item, dict) else ""
            if keyword in title and "link" in item:
                return title, str(item["link"])
    # The answer stage shows a JSON result flattened: "title: …; link: …; title: …".
    flat = re.search(rf"title: ([^;\n]*{re.escape(keyword)}[^;\n]*); link: ([^;\s]+)", text)
    return (flat.group(1), flat.group(2)) if flat else None


class ConversationReader:
    """Reads a :class:`View` of ``task`` from a conversation; ``known`` are the tool names
    (misspellings included) whose calls count as the model's own attempts."""

    def __init__(self, task: WeatherSearchTask, known: set[str]) -> None:
        self.task, self.known = task, known

    def read(self, messages: list[dict[str, Any]], protocol: str) -> View:
        """The facts, attempts and latest observations in ``messages``."""
        view = View()
        convo = [m for m in messages if m.get("role") != "system"]
        everything = "\n".join(text_of(m.get("content")) for m in convo)
        view.weather = {c: line for c in self.task.cities if (line := weather_line(c, everything))}
        view.search = {
            q: hit for q, keyword in self.task.searches if (hit := search_hit(everything, keyword))
        }
        view.done = {
            Call(tool, arg_text(arg))
            for tool, arg in _LEDGER.findall(everything)
            if tool in self.known
        }
        if protocol == "react":
            for tool, arg, obs in _REACT_STEP.findall(everything):
                if tool.strip() in self.known:
                    view.last_batch = [Attempt(Call(tool.strip(), arg_text(arg)), obs)]
                    view.attempts += view.last_batch
                    view.after_last = obs
        else:
            self._read_turns(convo, protocol, view)
        for a in view.attempts:
            a.succeeded = self.fact_in(a.call, a.observation)
            a.failed = not a.succeeded and "ERROR" in a.observation
        return view

    def _read_turns(self, convo: list[dict[str, Any]], protocol: str, view: View) -> None:
        by_id: dict[str, Attempt] = {}
        for m in convo:
            text = text_of(m.get("content"))
            batch: list[Attempt] = []
            if m.get("role") == "assistant" and protocol == "native":
                for tc in m.get("tool_calls") or ():
                    fn = tc.get("function") or {}
                    try:
                        args = json.loads(fn.get("arguments") or "{}")
                    except ValueError:
                        args = {}
                    by_id[str(tc.get("id"))] = Attempt(Call(str(fn.get("name")), arg_text(args)))
                    batch.append(by_id[str(tc.get("id"))])
            elif m.get("role") == "assistant":
                actions = first_json(text.replace("```json", "").replace("```", ""))
                items = actions if isinstance(actions, list) else [actions]
                batch = [
                    Attempt(Call(str(a["action"]), arg_text(a.get("action_input", ""))))
                    for a in items
                    if isinstance(a, dict) and a.get("action") in self.known
                ]
            if batch:
                view.attempts += batch
                view.last_batch, view.after_last = batch, ""
                continue
            target = by_id.get(str(m.get("tool_call_id")))
            for a in [target] if target is not None else view.last_batch:
                a.observation += text + "\n"
            view.after_last += text + "\n"

    def keyword(self, query: str) -> str:
        return dict(self.task.searches).get(query, query)

    def fact_in(self, call: Call, observation: str) -> bool:
        """Whether ``observation`` holds the fact ``call`` was after."""
        if call.tool == self.task.search_tool:
            return search_hit(observation, self.keyword(call.arg)) is not None
        city = next((c for c, code in ADCODES.items() if code == call.arg), call.arg)
        return call.tool == self.task.weather_tool and weather_line(city, observation) is not None

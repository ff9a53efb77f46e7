"""A simulated model for the article's task, with the noise real models show.

The task: "查询北京和上海今天的天气，然后百度搜索“台风最新路径”，最后总结这两条信息".
:class:`ArticleTaskModel` is a policy for :class:`~lcel_agent.testing.server.SimulatedOpenAIServer`
that reads the whole conversation, calls the tools it still needs (``get_weather(city)``,
``search_baidu(query)``) and answers once it has every fact::

    model = ArticleTaskModel(noise=NoiseProfile(fenced_json=0.2, misspelt_tool=0.1), seed=7)
    with SimulatedOpenAIServer(model) as srv:
        ...  # point your agent at srv.base_url

Facts are found by scanning the text of every non-system message, so any agent's
layout works: weather lines such as ``北京市天气：晴，温度25℃，湿度40%`` and a JSON list of
``{"title", "link"}`` whose titles mention the task's keyword (台风). The tasks and the
noise live in :mod:`lcel_agent.testing.tasks` (re-exported here); the reading in
:mod:`lcel_agent.testing._reading`; this module decides and writes the replies.

Three protocols (``protocol="auto"`` picks per request): ``"native"`` tool calls when the
request carries ``tools``; ``"react"`` (Thought/Action/Action Input/Final Answer, as
LangChain's classic ``AgentExecutor`` expects) when the prompt contains ``Action Input:``;
else ``"json"``: one ``{"action": ..., "action_input": ...}`` object, or a list of them
when ``parallel=True``.

A ledger line (``get_weather(北京) ✓``: a call the agent's window says was made, its result
kept for the answer stage) counts as done: it is not called again, and the answer, which
writes only what the model can read, leaves it out (the answer stage writes it in).

Behaviour: after an observation containing ``ERROR`` it retries the same call once
(under the right name when the failure was a misspelt tool; never when the error says
it was repeating itself),
then moves on to other missing facts (and comes back stubbornly); when a message after
its last action says it is repeating ("repeat" or "重复") it uses the city's adcode, or
gives a partial answer when no untried call is left. Asked to keep notes (a request whose
system message starts like :data:`lcel_agent.memory.summary.SUMMARY_PROMPT`), it answers
with the fact lines it can read, one per line, as a careful summariser would. Asked by the
answer stage (its system message is :data:`lcel_agent.texts.ANSWER_SYSTEM`) it writes one
line per numbered result, the facts it can read in it, then a summary line.

``varied=True`` draws the details of each damage from a second seeded stream, in every
protocol: where a cut-off reply (or tool-call arguments) is cut, which misspelling of a
tool name, which sentence wraps the JSON or leads a ReAct step. The noise *rates* (and so
the first stream) are the same with or without it. ``repeat_success`` repeats a call whose
result the model can read anywhere in the conversation (its own turns, a digest, a
summary), so the noise hits every agent alike, however it keeps its history.
"""

from __future__ import annotations

import json
import random
import re
import threading
from collections import Counter
from dataclasses import fields
from typing import Any, Literal

from lcel_agent.testing._reading import (
    REPEATING,
    Call,
    ConversationReader,
    View,
    is_answer_request,
    is_summary_request,
    search_hit,
    text_of,
    weather_line,
)
from lcel_agent.testing.policies import Reply
from lcel_agent.testing.tasks import (
    ADCODES,
    ARTICLE_TASK,
    LONG_TASK,
    STRESS_TASK,
    NoiseProfile,
    WeatherSearchTask,
)

# The task names are re-exported here, where they were first published.
__all__ = [
    "ADCODES",
    "ARTICLE_TASK",
    "LONG_TASK",
    "STRESS_TASK",
    "ArticleTaskModel",
    "NoiseProfile",
    "WeatherSearchTask",
]

_MISSPELT = {"get_weather": "get_wether", "search_baidu": "serach_baidu"}
# With varied damage: the other ways a model gets a tool's name wrong.
_VARIANTS = {
    "get_weather": ("get_wether", "get_weathr", "getweather", "get_Weather", "weather_get"),
    "search_baidu": (
        "serach_baidu",
        "search_baidoo",
        "searchbaidu",
        "Search_baidu",
        "baidu_search",
    ),
}
_CORRECTED = {wrong: right for right, names in _VARIANTS.items() for wrong in names}
_PROSE = (
    ("好的，下面是我的操作：\n", "\n请执行。"),
    ("Sure! Here is the next step:\n", ""),
    ("我先调用工具。", "\n等待结果。"),
    ("", "\nLet me know the result."),
)


class ArticleTaskModel:
    """A policy ``(messages, tools) -> Reply`` that solves a :class:`WeatherSearchTask`.

    ``seed`` fixes the noise; draws are sequential, so run one conversation at a time
    (or one model per conversation) when you need the same transcript twice.
    ``noise_counts`` counts the noise applied so far, by :class:`NoiseProfile` field name.
    """

    def __init__(
        self,
        task: WeatherSearchTask = ARTICLE_TASK,
        *,
        noise: NoiseProfile | None = None,
        seed: int | None = 0,
        protocol: Literal["auto", "json", "react", "native"] = "auto",
        parallel: bool = False,
        varied: bool = False,
    ) -> None:
        self.task, self.noise, self.protocol, self.parallel = (
            task,
            noise or NoiseProfile(),
            protocol,
            parallel,
        )
        self.varied = varied
        self.noise_counts: Counter[str] = Counter()
        self.replies = 0
        self._rng = random.Random(seed)
        # The details of varied damage come from their own stream, so the first stream
        # (whether damage happens) is the same with or without them.
        self._details = random.Random(f"{seed}-details")
        self._lock = threading.Lock()
        self._known = {task.weather_tool, task.search_tool} | {
            _MISSPELT.get(t, t + "_x") for t in (task.weather_tool, task.search_tool)
        }
        for tool in (task.weather_tool, task.search_tool):
            self._known |= set(_VARIANTS.get(tool, ()))
        self._reader = ConversationReader(task, self._known)

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Reply:
        if is_summary_request(messages):
            return Reply(content=self._notes(messages))
        if is_answer_request(messages):
            return Reply(content=self._written_answer(messages))
        protocol = self._protocol(messages, tools)
        view = self._reader.read(messages, protocol)
        with self._lock:
            self.replies += 1
            draws = {
                f.name: self._rng.random() < getattr(self.noise, f.name) for f in fields(self.noise)
            }
            calls = self._decide(view)
            if calls is None:
                return self._render_final(view, protocol, draws)
            return self._render_calls(calls, view, protocol, draws, tools)

    # -- reading ---------------------------------------------------------------------------

    def _protocol(self, messages: list[dict[str, Any]], tools: Any) -> str:
        if self.protocol != "auto":
            return self.protocol
        if tools:
            return "native"
        if any("Action Input:" in text_of(m.get("content")) for m in messages):
            return "react"
        return "json"

    # -- deciding --------------------------------------------------------------------------

    def _decide(self, view: View) -> list[Call] | None:
        """The calls to make next, or None to answer."""
        done = view.done
        missing: list[tuple[str, str]] = [
            ("city", c)
            for c in self.task.cities
            if c not in view.weather and Call(self.task.weather_tool, c) not in done
        ]
        missing += [
            ("search", q)
            for q, _ in self.task.searches
            if q not in view.search and Call(self.task.search_tool, q) not in done
        ]
        if not missing:
            return None
        fails = Counter(a.call for a in view.attempts if a.failed)
        # A call to a tool that does not exist is retried under the real name: the error
        # lists the tools (and suggests the closest), as models given that hint do.
        # ... but not a call it was just told it repeated: that is a cue to change course.
        retry = [
            Call(_CORRECTED.get(a.call.tool, a.call.tool), a.call.arg)
            for a in view.last_batch
            if a.failed and fails[a.call] == 1 and not REPEATING.search(a.observation)
        ]
        if retry:
            return retry if self.parallel else retry[:1]
        told = REPEATING.search(view.after_last) is not None
        calls = []
        for item in missing:
            call = self._call_for(item, view, told)
            if fails[call] < 2:
                calls.append(call)
                if not self.parallel:
                    break
        if not calls:
            if told:
                return None  # nothing untried is left: answer with what it has
            calls = [self._call_for(missing[0], view, False)]
        return calls

    def _call_for(self, missing: tuple[str, str], view: View, told: bool) -> Call:
        kind, item = missing
        if kind == "search":
            return Call(self.task.search_tool, item)
        code = ADCODES.get(item)
        use_code = code is not None and (told or any(a.call.arg == code for a in view.attempts))
        return Call(self.task.weather_tool, code if use_code and code else item)

    # -- writing ---------------------------------------------------------------------------

    def _noise(self, name: str) -> None:
        self.noise_counts[name] += 1

    def _render_calls(
        self, calls: list[Call], view: View, protocol: str, draws: dict[str, bool], tools: Any
    ) -> Reply:
        if protocol == "react":
            calls = calls[:1]
        # What it already knows, wherever it read it (its own turns, a digest, a summary):
        # repeating one of those calls is the noise, however the agent keeps its history.
        done = [Call(self.task.weather_tool, c) for c in self.task.cities if c in view.weather]
        done += [Call(self.task.search_tool, q) for q, _ in self.task.searches if q in view.search]
        if draws["repeat_success"] and done:
            calls = [done[-1]]
            self._noise("repeat_success")
        if draws["misspelt_tool"]:
            calls[0] = Call(self._misspelt(calls[0].tool), calls[0].arg)
            self._noise("misspelt_tool")
        keys = [self._arg_name(c.tool, tools) for c in calls]
        inputs: list[Any] = [c.arg for c in calls]
        if draws["dict_input"]:
            inputs[0] = {keys[0]: calls[0].arg}
            self._noise("dict_input")
        if protocol == "native":
            tool_calls: list[dict[str, Any]] = [
                {"name": c.tool, "arguments": {k: v}}
                for c, k, v in zip(calls, keys, inputs, strict=True)
            ]
            if draws["invalid_json"]:
                text = json.dumps(tool_calls[0]["arguments"], ensure_ascii=False)
                tool_calls[0]["arguments"] = text[: int(len(text) * self._cut())]
                self._noise("invalid_json")
            return Reply(tool_calls=tuple(tool_calls))
        if protocol == "react":
            about = (
                f"搜索“{calls[0].arg}”"
                if calls[0].tool == self.task.search_tool
                else f"查询{calls[0].arg}的天气"
            )
            shown = (
                inputs[0]
                if isinstance(inputs[0], str)
                else json.dumps(inputs[0], ensure_ascii=False)
            )
            text = f"Thought: 我需要{about}。\nAction: {calls[0].tool}\nAction Input: {shown}"
            if draws["invalid_json"]:
                text = f"Thought: 我需要{about}。\nAction: {calls[0].tool} {shown}"
                self._noise("invalid_json")
            if draws["prose_json"]:
                before = self._details.choice(_PROSE)[0] if self.varied else ""
                text = (before or "好的，我们一步一步来。\n") + text
                self._noise("prose_json")
            return Reply(content=text)
        actions = [
            {"action": c.tool, "action_input": v} for c, v in zip(calls, inputs, strict=True)
        ]
        return Reply(content=self._json_text(actions[0] if len(actions) == 1 else actions, draws))

    def _render_final(self, view: View, protocol: str, draws: dict[str, bool]) -> Reply:
        answer = self._summary(view)
        if protocol == "native":
            return Reply(content=answer)
        if protocol == "react":
            return Reply(content=f"Thought: I now know the final answer\nFinal Answer: {answer}")
        return Reply(content=self._json_text({"action": "final", "action_input": answer}, draws))

    def _cut(self) -> float:
        """Where a cut-off reply ends, as a share of its length."""
        return self._details.uniform(0.2, 0.9) if self.varied else 2 / 3

    def _misspelt(self, tool: str) -> str:
        if self.varied and tool in _VARIANTS:
            return self._details.choice(_VARIANTS[tool])
        return _MISSPELT.get(tool, tool + "_x")

    def _json_text(self, value: Any, draws: dict[str, bool]) -> str:
        text = json.dumps(value, ensure_ascii=False)
        if draws["invalid_json"]:
            text = text[: int(len(text) * self._cut())]
            self._noise("invalid_json")
        if draws["fenced_json"]:
            text = f"```json\n{text}\n```"
            self._noise("fenced_json")
        if draws["prose_json"]:
            before, after = self._details.choice(_PROSE) if self.varied else _PROSE[0]
            text = f"{before}{text}{after}"
            self._noise("prose_json")
        return text

    def _arg_name(self, tool: str, tools: Any) -> str:
        for spec in tools or ():
            function = spec.get("function") or {} if isinstance(spec, dict) else {}
            if function.get("name") == tool:
                props = (function.get("parameters") or {}).get("properties") or {}
                if props:
                    return str(next(iter(props)))
        return "query" if tool == self.task.search_tool else "city"

    def _summary(self, view: View) -> str:
        lines = ["今天的天气：", *(view.weather[c] for c in self.task.cities if c in view.weather)]
        for query, _ in self.task.searches:
            if query in view.search:
                title, link = view.search[query]
                lines.append(f"“{query}”的搜索结果：{title}（{link}）")
        missing = [c for c in self.task.cities if c not in view.weather]
        missing += [f"“{q}”的搜索结果" for q, _ in self.task.searches if q not in view.search]
        if missing:
            lines.append("未能获取：" + "、".join(missing))
        if not self.task.cities and not self.task.searches:
            return "（模拟模型）这个任务里没有它认识的城市，也没有用引号括起来的搜索词：它只会查天气和搜索。"
        about = f"和“{self.task.query}”的最新信息" if self.task.query else ""
        lines.append(f"总结：以上是今天的天气{about}，请据此合理安排出行。")
        return "\n".join(lines)

    def _written_answer(self, messages: list[dict[str, Any]]) -> str:
        """One line per numbered result of the request (its facts), then a summary."""
        request = text_of(messages[-1].get("content"))
        lines = []
        for numbered in re.findall(r"^\d+\. (.*)$", request, re.MULTILINE):
            line = next(
                (found for c in self.task.cities if (found := weather_line(c, numbered))), None
            )
            for query, keyword in self.task.searches:
                if line is None and (hit := search_hit(numbered, keyword)):
                    line = f"“{query}”的搜索结果：{hit[0]}（{hit[1]}）"
            lines.append(line or numbered.split(":", 1)[0])
        if "summary" in request:
            about = f"和“{self.task.query}”的最新信息" if self.task.query else ""
            lines.append(f"总结：以上是今天的天气{about}，请据此合理安排出行。")
        return "\n".join(lines)

    def _notes(self, messages: list[dict[str, Any]]) -> str:
        """A summariser's notes: every weather line and search hit it can read, one a line."""
        text = "\n".join(text_of(m.get("content")) for m in messages if m.get("role") != "system")
        lines = [line for c in self.task.cities if (line := weather_line(c, text))]
        for query, keyword in self.task.searches:
            if hit := search_hit(text, keyword):
                item = {"title": hit[0], "link": hit[1]}
                lines.append(f"{query}: " + json.dumps([item], ensure_ascii=False))
        return "\n".join(lines) or "(nothing yet)"

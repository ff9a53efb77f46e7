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
``{"title", "link"}`` whose titles mention the task's keyword (台风).

Three protocols (``protocol="auto"`` picks per request): ``"native"`` tool calls when the
request carries ``tools``; ``"react"`` (Thought/Action/Action Input/Final Answer, as
LangChain's classic ``AgentExecutor`` expects) when the prompt contains ``Action Input:``;
else ``"json"``: one ``{"action": ..., "action_input": ...}`` object, or a list of them
when ``parallel=True``.

Behaviour: after an observation containing ``ERROR`` it retries the same call once
(under the right name when the failure was a misspelt tool; never when the error says
it was repeating itself),
then moves on to other missing facts (and comes back stubbornly); when a message after
its last action says it is repeating ("repeat" or "重复") it uses the city's adcode, or
gives a partial answer when no untried call is left. Asked to keep notes (a request whose
system message starts like :data:`lcel_agent.memory.summary.SUMMARY_PROMPT`), it answers
with the fact lines it can read, one per line, as a careful summariser would.

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
from dataclasses import dataclass, field, fields
from typing import Any, Literal

from lcel_agent.testing.policies import Reply

__all__ = [
    "ADCODES",
    "ARTICLE_TASK",
    "LONG_TASK",
    "STRESS_TASK",
    "ArticleTaskModel",
    "NoiseProfile",
    "WeatherSearchTask",
]

ADCODES: dict[str, str] = {
    "北京": "110000", "上海": "310000", "天津": "120000", "重庆": "500000",
    "广州": "440100", "深圳": "440300", "杭州": "330100", "南京": "320100",
    "成都": "510100", "武汉": "420100", "西安": "610100", "苏州": "320500",
    "长沙": "430100", "郑州": "410100", "青岛": "370200", "沈阳": "210100",
    "大连": "210200", "厦门": "350200", "昆明": "530100", "合肥": "340100",
    "福州": "350100", "济南": "370100", "哈尔滨": "230100", "长春": "220100",
}  # fmt: skip
"""Amap adcodes of some cities: what the model switches to when told it is repeating."""

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


@dataclass(frozen=True)
class WeatherSearchTask:
    """Get the weather of ``cities`` (in order), search ``query`` (then ``more_queries``), summarise."""

    cities: tuple[str, ...] = ("北京", "上海")
    query: str = "台风最新路径"
    keyword: str = "台风"
    """A search result for ``query`` counts only if one of its titles contains this."""
    weather_tool: str = "get_weather"
    search_tool: str = "search_baidu"
    more_queries: tuple[str, ...] = ()
    """Further searches; a result for one counts if a title contains the query itself."""

    @property
    def searches(self) -> tuple[tuple[str, str], ...]:
        """``(query, keyword)`` of every search, in order."""
        return ((self.query, self.keyword), *((q, q) for q in self.more_queries))

    @property
    def prompt(self) -> str:
        """The user's question for this task (the article's exact words for two cities)."""
        if len(self.cities) == 2:
            where, what = "和".join(self.cities), "这两条信息"
        else:
            where, what = "、".join(self.cities), "这些信息"
        quoted = [f"“{q}”" for q, _ in self.searches]
        searched = quoted[0] if len(quoted) == 1 else "、".join(quoted[:-1]) + "和" + quoted[-1]
        return f"查询{where}今天的天气，然后百度搜索{searched}，最后总结{what}"


ARTICLE_TASK = WeatherSearchTask()
"""The article's task: 北京 and 上海, then 台风最新路径."""
LONG_TASK = WeatherSearchTask(
    cities=("北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "武汉")
)
"""Eight cities then the search: nine tool calls, for memory-window benchmarks."""
_STRESS_CITIES = (
    "北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "武汉", "西安", "重庆", "天津",
    "苏州", "长沙", "郑州", "青岛", "沈阳", "大连", "厦门", "昆明", "合肥", "福州", "济南",
)  # fmt: skip
STRESS_TASK = WeatherSearchTask(cities=_STRESS_CITIES, more_queries=("暴雨预警", "高温预警"))
"""Twenty-two cities then three searches: 25 tool calls at least, far more than an
800-token window holds word for word (about 1,700 tokens of turns)."""


@dataclass(frozen=True)
class NoiseProfile:
    """Probability (0..1) of each kind of noise per reply, drawn in the field order.

    Six numbers are drawn for every reply, whichever apply, so a seed fixes the noise.
    """

    repeat_success: float = 0.0
    """Repeat a call that already succeeded instead of the needed one."""
    misspelt_tool: float = 0.0
    """Misspell the tool name (get_wether)."""
    dict_input: float = 0.0
    """A dict where the string belongs: ``{"action_input": {"city": "北京"}}``."""
    fenced_json: float = 0.0
    """Wrap the JSON in a markdown fence (JSON protocol)."""
    prose_json: float = 0.0
    """Wrap the JSON in prose (JSON protocol; a leading sentence in ReAct)."""
    invalid_json: float = 0.0
    """Truncated JSON (native: truncated arguments; ReAct: no ``Action Input:`` line)."""

    def __post_init__(self) -> None:
        for f in fields(self):
            if not 0.0 <= getattr(self, f.name) <= 1.0:
                raise ValueError(f"NoiseProfile.{f.name} must be within 0..1")


@dataclass(frozen=True)
class _Call:
    tool: str
    arg: str


@dataclass
class _Attempt:
    call: _Call
    observation: str = ""
    succeeded: bool = False
    failed: bool = False


@dataclass
class _View:
    """What the model reads from the conversation."""

    weather: dict[str, str] = field(default_factory=dict)
    search: dict[str, tuple[str, str]] = field(default_factory=dict)
    """query -> (title, link) of a hit."""
    attempts: list[_Attempt] = field(default_factory=list)
    last_batch: list[_Attempt] = field(default_factory=list)
    after_last: str = ""


def _text(content: Any) -> str:
    if isinstance(content, list):
        return "".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return content if isinstance(content, str) else ""


def _first_json(text: str, openers: str = "{[") -> Any:
    """The first JSON value in ``text`` starting at one of ``openers``, else None."""
    decoder = json.JSONDecoder()
    for i, ch in enumerate(text):
        if ch in openers:
            try:
                return decoder.raw_decode(text, i)[0]
            except ValueError:
                continue
    return None


def _is_summary_request(messages: list[dict[str, Any]]) -> bool:
    first = messages[0] if messages else {}
    return first.get("role") == "system" and _text(first.get("content")).startswith(
        "You keep the notes of an agent"
    )


def _arg(value: Any) -> str:
    # Its own dict_input noise nests a dict in the arguments: read through it.
    while isinstance(value, dict):
        value = next((v for v in value.values() if isinstance(v, (str, dict))), "")
    return str(value).strip().strip("'\"")


_REPEATING = re.compile(r"repeat|重复", re.I)
"""How the model recognises being told it is repeating itself."""

_REACT_STEP = re.compile(
    r"Action:[ \t]*([^\n]*)\nAction Input:[ \t]*([^\n]*)\nObservation:(.*?)(?=\nThought:|\nAction:|\Z)",
    re.S,
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

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Reply:
        if _is_summary_request(messages):
            return Reply(content=self._notes(messages))
        protocol = self._protocol(messages, tools)
        view = self._read(messages, protocol)
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
        if any("Action Input:" in _text(m.get("content")) for m in messages):
            return "react"
        return "json"

    def _read(self, messages: list[dict[str, Any]], protocol: str) -> _View:
        view = _View()
        convo = [m for m in messages if m.get("role") != "system"]
        everything = "\n".join(_text(m.get("content")) for m in convo)
        view.weather = {
            c: line for c in self.task.cities if (line := self._weather_line(c, everything))
        }
        view.search = {
            q: hit
            for q, keyword in self.task.searches
            if (hit := self._search_hit(everything, keyword))
        }
        if protocol == "react":
            for tool, arg, obs in _REACT_STEP.findall(everything):
                if tool.strip() in self._known:
                    view.last_batch = [_Attempt(_Call(tool.strip(), _arg(arg)), obs)]
                    view.attempts += view.last_batch
                    view.after_last = obs
        else:
            self._read_turns(convo, protocol, view)
        for a in view.attempts:
            a.succeeded = self._fact_in(a.call, a.observation)
            a.failed = not a.succeeded and "ERROR" in a.observation
        return view

    def _read_turns(self, convo: list[dict[str, Any]], protocol: str, view: _View) -> None:
        by_id: dict[str, _Attempt] = {}
        for m in convo:
            text = _text(m.get("content"))
            batch: list[_Attempt] = []
            if m.get("role") == "assistant" and protocol == "native":
                for tc in m.get("tool_calls") or ():
                    fn = tc.get("function") or {}
                    try:
                        args = json.loads(fn.get("arguments") or "{}")
                    except ValueError:
                        args = {}
                    by_id[str(tc.get("id"))] = _Attempt(_Call(str(fn.get("name")), _arg(args)))
                    batch.append(by_id[str(tc.get("id"))])
            elif m.get("role") == "assistant":
                actions = _first_json(text.replace("```json", "").replace("```", ""))
                items = actions if isinstance(actions, list) else [actions]
                batch = [
                    _Attempt(_Call(str(a["action"]), _arg(a.get("action_input", ""))))
                    for a in items
                    if isinstance(a, dict) and a.get("action") in self._known
                ]
            if batch:
                view.attempts += batch
                view.last_batch, view.after_last = batch, ""
                continue
            target = by_id.get(str(m.get("tool_call_id")))
            for a in [target] if target is not None else view.last_batch:
                a.observation += text + "\n"
            view.after_last += text + "\n"

    def _weather_line(self, city: str, text: str) -> str | None:
        names = "|".join(re.escape(n) for n in (city, ADCODES.get(city)) if n)
        match = re.search(rf"(?:{names})市?天气：[^\n\"\\{{}}\[\]]*", text)
        return match.group(0).rstrip("，。 ") if match else None

    def _search_hit(self, text: str, keyword: str) -> tuple[str, str] | None:
        if '"link"' not in text:
            text = text.replace('\\"', '"')
        start = 0
        while (i := text.find("[", start)) >= 0:
            start = i + 1
            found = _first_json(text[i:], "[")
            for item in found if isinstance(found, list) else ():
                title = str(item.get("title", "")) if isinstance(item, dict) else ""
                if keyword in title and "link" in item:
                    return title, str(item["link"])
        return None

    def _keyword(self, query: str) -> str:
        return dict(self.task.searches).get(query, query)

    def _fact_in(self, call: _Call, observation: str) -> bool:
        if call.tool == self.task.search_tool:
            return self._search_hit(observation, self._keyword(call.arg)) is not None
        city = next((c for c, code in ADCODES.items() if code == call.arg), call.arg)
        return (
            call.tool == self.task.weather_tool
            and self._weather_line(city, observation) is not None
        )

    # -- deciding --------------------------------------------------------------------------

    def _decide(self, view: _View) -> list[_Call] | None:
        """The calls to make next, or None to answer."""
        missing: list[tuple[str, str]] = [
            ("city", c) for c in self.task.cities if c not in view.weather
        ]
        missing += [("search", q) for q, _ in self.task.searches if q not in view.search]
        if not missing:
            return None
        fails = Counter(a.call for a in view.attempts if a.failed)
        # A call to a tool that does not exist is retried under the real name: the error
        # lists the tools (and suggests the closest), as models given that hint do.
        # ... but not a call it was just told it repeated: that is a cue to change course.
        retry = [
            _Call(_CORRECTED.get(a.call.tool, a.call.tool), a.call.arg)
            for a in view.last_batch
            if a.failed and fails[a.call] == 1 and not _REPEATING.search(a.observation)
        ]
        if retry:
            return retry if self.parallel else retry[:1]
        told = _REPEATING.search(view.after_last) is not None
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

    def _call_for(self, missing: tuple[str, str], view: _View, told: bool) -> _Call:
        kind, item = missing
        if kind == "search":
            return _Call(self.task.search_tool, item)
        code = ADCODES.get(item)
        use_code = code is not None and (told or any(a.call.arg == code for a in view.attempts))
        return _Call(self.task.weather_tool, code if use_code and code else item)

    # -- writing ---------------------------------------------------------------------------

    def _noise(self, name: str) -> None:
        self.noise_counts[name] += 1

    def _render_calls(
        self, calls: list[_Call], view: _View, protocol: str, draws: dict[str, bool], tools: Any
    ) -> Reply:
        if protocol == "react":
            calls = calls[:1]
        # What it already knows, wherever it read it (its own turns, a digest, a summary):
        # repeating one of those calls is the noise, however the agent keeps its history.
        done = [_Call(self.task.weather_tool, c) for c in self.task.cities if c in view.weather]
        done += [_Call(self.task.search_tool, q) for q, _ in self.task.searches if q in view.search]
        if draws["repeat_success"] and done:
            calls = [done[-1]]
            self._noise("repeat_success")
        if draws["misspelt_tool"]:
            calls[0] = _Call(self._misspelt(calls[0].tool), calls[0].arg)
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

    def _render_final(self, view: _View, protocol: str, draws: dict[str, bool]) -> Reply:
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

    def _summary(self, view: _View) -> str:
        lines = ["今天的天气：", *(view.weather[c] for c in self.task.cities if c in view.weather)]
        for query, _ in self.task.searches:
            if query in view.search:
                title, link = view.search[query]
                lines.append(f"“{query}”的搜索结果：{title}（{link}）")
        missing = [c for c in self.task.cities if c not in view.weather]
        missing += [f"“{q}”的搜索结果" for q, _ in self.task.searches if q not in view.search]
        if missing:
            lines.append("未能获取：" + "、".join(missing))
        lines.append(f"总结：以上是今天的天气和“{self.task.query}”的最新信息，请据此合理安排出行。")
        return "\n".join(lines)

    def _notes(self, messages: list[dict[str, Any]]) -> str:
        """A summariser's notes: every weather line and search hit it can read, one a line."""
        text = "\n".join(_text(m.get("content")) for m in messages if m.get("role") != "system")
        lines = [line for c in self.task.cities if (line := self._weather_line(c, text))]
        for query, keyword in self.task.searches:
            if hit := self._search_hit(text, keyword):
                item = {"title": hit[0], "link": hit[1]}
                lines.append(f"{query}: " + json.dumps([item], ensure_ascii=False))
        return "\n".join(lines) or "(nothing yet)"

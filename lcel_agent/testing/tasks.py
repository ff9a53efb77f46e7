"""The tasks the article's simulated model solves, and the noise it can be given.

:data:`ARTICLE_TASK` is the article's own question; :data:`LONG_TASK` and
:data:`STRESS_TASK` ask for more cities and searches, for memory-window benchmarks.
A :class:`NoiseProfile` says how often each kind of damage happens to a reply::

    from lcel_agent.testing.tasks import ARTICLE_TASK, NoiseProfile, WeatherSearchTask
    ARTICLE_TASK.prompt       # "查询北京和上海今天的天气，然后百度搜索“台风最新路径”，最后总结这两条信息"
    WeatherSearchTask(cities=("广州",)).prompt
    NoiseProfile(fenced_json=0.2, misspelt_tool=0.1)

:class:`~lcel_agent.testing.article.ArticleTaskModel` plays the model for them.
"""

from __future__ import annotations

from dataclasses import dataclass, fields

__all__ = [
    "ADCODES",
    "ARTICLE_TASK",
    "LONG_TASK",
    "STRESS_TASK",
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


@dataclass(frozen=True)
class WeatherSearchTask:
    """Get the weather of ``cities`` (in order), search ``query`` (then ``more_queries``), summarise."""

    cities: tuple[str, ...] = ("北京", "上海")
    query: str = "台风最新路径"
    """The first search; empty for a task with no search."""
    keyword: str = "台风"
    """A search result for ``query`` counts only if one of its titles contains this."""
    weather_tool: str = "get_weather"
    search_tool: str = "search_baidu"
    more_queries: tuple[str, ...] = ()
    """Further searches; a result for one counts if a title contains the query itself."""

    @property
    def searches(self) -> tuple[tuple[str, str], ...]:
        """``(query, keyword)`` of every search, in order (an empty ``query``: none first)."""
        first = ((self.query, self.keyword),) if self.query else ()
        return (*first, *((q, q) for q in self.more_queries))

    @property
    def prompt(self) -> str:
        """The user's question for this task (the article's exact words for two cities)."""
        if len(self.cities) == 2:
            where, what = "和".join(self.cities), "这两条信息"
        else:
            where, what = "、".join(self.cities), "这些信息"
        quoted = [f"“{q}”" for q, _ in self.searches]
        if not quoted:
            return f"查询{where}今天的天气，最后总结{what}"
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

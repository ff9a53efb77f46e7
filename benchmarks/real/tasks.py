"""The real-model tasks, each seed's world (the tools' facts), and the fact check.

A run is judged by facts only: the weather of every city and the search hit that the
seeded fake services returned must appear in the final answer. The values are drawn
per seed (temperature, humidity, weather words, the typhoon in the search titles), so
a model cannot guess them, and every framework's run ``i`` sees the same ones::

    task = TASKS["article"]
    world = World.draw(task, seed=3)
    verdict = judge(task, world, "北京晴，29℃；上海小雨，17℃；台风“桃芝”……")
    verdict.success, verdict.missing

Stdlib only (the unit tests import it without the benchmark's extras).
"""

from __future__ import annotations

import dataclasses
import random
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from lcel_agent.testing.article import ADCODES
from lcel_agent.testing.services import AMAP_CITIES

#: Amap's weather words (its ``weather`` field), the ones a summer day can draw.
WEATHER_WORDS = (
    "晴", "少云", "晴间多云", "多云", "阴", "阵雨", "雷阵雨", "小雨", "中雨", "大雨",
    "暴雨", "毛毛雨", "雾", "霾", "浮尘", "扬沙", "有风", "雷阵雨伴有冰雹",
)  # fmt: skip
WIND_DIRECTIONS = ("东", "南", "西", "北", "东南", "东北", "西南", "西北", "无风向")
WIND_POWERS = ("≤3", "4", "5", "6")
TYPHOON_NAMES = (
    "海葵", "杜苏芮", "卡努", "苏拉", "泰利", "小犬", "摩羯", "贝碧嘉", "普拉桑", "山陀儿",
    "康妮", "银杏", "桃芝", "天兔", "玉兔", "帕布", "圆规", "木兰", "马鞍", "暹芭",
    "梅花", "轩岚诺", "奥鹿", "纳沙", "尼格", "海燕",
)  # fmt: skip
COASTS = ("浙江", "福建", "广东", "海南", "台湾", "江苏", "上海")
REPORT_TIME = "2026-07-01 08:30:00"
SEARCH_QUERY = "台风最新路径"


@dataclass(frozen=True)
class Task:
    """One task: the question, the cities whose weather it needs, how it is judged."""

    key: str
    prompt: str
    cities: tuple[str, ...]
    """Chinese names as Amap knows them, in the order the question asks."""
    max_loops: int
    """The most model calls any framework may make on it."""
    aliases: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Other names the answer may use for a city (the pinyin the question used)."""
    one_line_per_city: bool = False
    """The answer must give each city on its own line."""

    def names(self, city: str) -> tuple[str, ...]:
        """Every name that identifies ``city`` in an answer."""
        return (city, *self.aliases.get(city, ()))


_EIGHT = ("北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "武汉")
TASKS: dict[str, Task] = {
    t.key: t
    for t in (
        Task("article", "查询北京和上海今天的天气，然后百度搜索“台风最新路径”，最后总结这两条信息",
             ("北京", "上海"), max_loops=10),
        Task("eight", "查询" + "、".join(_EIGHT) + "今天的天气，然后百度搜索“台风最新路径”，最后总结这些信息",
             _EIGHT, max_loops=20),
        Task("lines", "查询北京、上海、广州和深圳今天的天气，然后百度搜索“台风最新路径”。"
             "最后分行回答：每个城市单独一行，写出天气、温度和湿度；最后一行写台风的最新消息",
             ("北京", "上海", "广州", "深圳"), max_loops=12, one_line_per_city=True),
        Task("error", "查询 Suzhou 和 Xiamen 今天的天气，然后百度搜索“台风最新路径”，最后总结这些信息",
             ("苏州", "厦门"), max_loops=12,
             aliases={"苏州": ("Suzhou",), "厦门": ("Xiamen",)}),
    )
}  # fmt: skip
"""The four tasks. ``error``'s question names the cities in pinyin, which get_weather
refuses with an ``ERROR:`` asking for the Chinese name; the model must read it and retry."""


@dataclass(frozen=True)
class CityWeather:
    """One city's live weather as the fake Amap answers it (Amap's ``lives[0]`` fields)."""

    province: str
    city: str
    """Amap's name, with 市 (北京市)."""
    adcode: str
    weather: str
    temperature: int
    winddirection: str
    windpower: str
    humidity: int

    def live(self) -> dict[str, str]:
        """The record as Amap's JSON holds it (every value a string)."""
        return {
            "province": self.province,
            "city": self.city,
            "adcode": self.adcode,
            "weather": self.weather,
            "temperature": str(self.temperature),
            "winddirection": self.winddirection,
            "windpower": self.windpower,
            "humidity": str(self.humidity),
            "reporttime": REPORT_TIME,
            "temperature_float": f"{self.temperature}.0",
            "humidity_float": f"{self.humidity}.0",
        }


@dataclass(frozen=True)
class Typhoon:
    """The search's subject: its name is the fact the answer must carry."""

    number: int
    name: str
    coast: str
    distance_km: int

    def titles(self) -> tuple[str, ...]:
        """The four result titles of a search for 台风最新路径 (the tool keeps three)."""
        return (
            f"2026年第{self.number}号台风“{self.name}”最新路径：距{self.coast}沿海约{self.distance_km}公里",
            f"台风“{self.name}”实时路径图 - 中央气象台",
            f"第{self.number}号台风{self.name}预计明日在{self.coast}沿海登陆",
            "台风最新路径_百度百科",
        )


@dataclass(frozen=True)
class World:
    """What the tools answer in one seeded run of one task."""

    weather: dict[str, CityWeather]
    """Chinese city name (as the task lists it) -> its weather."""
    typhoon: Typhoon

    @classmethod
    def draw(cls, task: Task, seed: int) -> World:
        """The world of ``task``'s run ``seed``: the same for every framework."""
        rng = random.Random(f"{task.key}:{seed}")
        words = _distinct_words(rng, len(task.cities))
        temperatures = rng.sample(range(3, 40), len(task.cities))
        humidities = rng.sample(range(12, 98), len(task.cities))
        weather = {}
        for city, word, temp, hum in zip(task.cities, words, temperatures, humidities, strict=True):
            province, name, *_ = AMAP_CITIES[ADCODES[city]]
            weather[city] = CityWeather(
                province=province, city=name, adcode=ADCODES[city], weather=word,
                temperature=temp, winddirection=rng.choice(WIND_DIRECTIONS),
                windpower=rng.choice(WIND_POWERS), humidity=hum,
            )  # fmt: skip
        typhoon = Typhoon(
            number=rng.randint(2, 29),
            name=rng.choice(TYPHOON_NAMES),
            coast=rng.choice(COASTS),
            distance_km=rng.randrange(180, 990, 10),
        )
        return cls(weather, typhoon)


def _distinct_words(rng: random.Random, n: int) -> list[str]:
    """``n`` weather words none of which contains another (阵雨 would hide in 雷阵雨)."""
    chosen: list[str] = []
    for word in rng.sample(WEATHER_WORDS, len(WEATHER_WORDS)):
        if all(word not in other and other not in word for other in chosen):
            chosen.append(word)
        if len(chosen) == n:
            return chosen
    raise ValueError(f"cannot draw {n} weather words that do not contain each other")


_UNIT = r"\s*(?:℃|°C|°c|°|度|摄氏度|degrees)"


def has_temperature(text: str, value: int) -> bool:
    """``value`` written as a temperature: with a unit (29℃, 29.0°C, 29度) or after 温度/气温."""
    number = rf"(?<![\d.]){value}(?:\.0)?(?![\d])"
    with_unit = re.search(number + _UNIT, text)
    after_word = re.search(rf"(?:温度|气温|temperature)[^\d\n]{{0,8}}{number}", text, re.I)
    return bool(with_unit or after_word)


def has_humidity(text: str, value: int) -> bool:
    """``value`` written as a humidity: 40%, 40.0 %, or after 湿度."""
    number = rf"(?<![\d.]){value}(?:\.0)?(?![\d])"
    return bool(
        re.search(number + r"\s*%", text)
        or re.search(rf"(?:湿度|humidity)[^\d\n]{{0,8}}{number}", text, re.I)
    )


@dataclass(frozen=True)
class Verdict:
    """The fact check of one answer."""

    success: bool
    found: dict[str, bool]
    """Fact name (``北京.temperature``, ``search``...) -> found in the answer."""
    humidity: dict[str, bool]
    """City -> its humidity appears (reported, not required)."""

    @property
    def missing(self) -> list[str]:
        """The required facts the answer lacks."""
        return [name for name, ok in self.found.items() if not ok]


def judge(task: Task, world: World, answer: str | None) -> Verdict:
    """Check ``answer`` against the tools' facts (see the module docstring).

    Required: each city's temperature and weather word and the typhoon's name. Under
    ``one_line_per_city`` each city's facts must sit on a line naming that city and
    no other city. Humidity is recorded but not required.
    """
    text = answer or ""
    lines = [line for line in text.splitlines() if line.strip()]
    found: dict[str, bool] = {}
    humidity: dict[str, bool] = {}
    for city in task.cities:
        fact = world.weather[city]
        scopes = [text]
        if task.one_line_per_city:
            others = [n for c in task.cities if c != city for n in task.names(c)]
            scopes = [
                line for line in lines
                if any(n in line for n in task.names(city)) and not any(o in line for o in others)
            ]  # fmt: skip
        found[f"{city}.temperature"] = any(has_temperature(s, fact.temperature) for s in scopes)
        found[f"{city}.weather"] = any(fact.weather in s for s in scopes)
        humidity[city] = any(has_humidity(s, fact.humidity) for s in scopes)
    found["search"] = world.typhoon.name in text
    return Verdict(success=bool(text) and all(found.values()), found=found, humidity=humidity)


def gathered(task: Task, world: World, outputs: list[str]) -> Verdict:
    """Whether the tools' successful results hold every required fact (the judge, on them).

    The answer can only carry what the run gathered: this tells a run whose answer lost
    facts it had from one that never found them. Lines are not required here.
    """
    loose = dataclasses.replace(task, one_line_per_city=False)
    found = [o for o in outputs if not o.startswith("ERROR:")]
    return judge(loose, world, "\n".join(found) if found else None)


def weather_line(live: Mapping[str, str]) -> str:
    """get_weather's line in this benchmark: every field of Amap's live record (80-120 characters)."""
    return (
        f"{live['city']}（{live['province']}，adcode {live['adcode']}）实时天气：{live['weather']}，"
        f"温度{live['temperature']}℃（{live['temperature_float']}），风向{live['winddirection']}，"
        f"风力{live['windpower']}级，湿度{live['humidity']}%（{live['humidity_float']}），"
        f"发布时间{live['reporttime']}"
    )

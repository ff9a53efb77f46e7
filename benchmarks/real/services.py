"""The tools and the fake services of the real-model benchmark, answering each seed's world.

The tools are the library's ``get_weather`` and ``search_baidu`` (their argument checks,
HTTP, ``ERROR:`` texts), subclassed through their documented ``_call`` hook to record
every call, and ``get_weather`` to write all of Amap's live fields into its line (about
95 characters, as long as a tool passing Amap's record on writes; the library's own line
is about 20). The fakes are the testing kit's loopback servers, answering from a
:class:`~benchmarks.real.tasks.World` set per run::

    with SeededAmap() as amap, SeededBaidu() as baidu, use_services(amap, baidu):
        amap.world = baidu.world = World.draw(task, seed)
        tools = make_tools()
"""

from __future__ import annotations

import html
import json
import threading
import time
from typing import Any, NamedTuple
from urllib.parse import quote

import requests
from pydantic import Field

from benchmarks.real.tasks import SEARCH_QUERY, World, weather_line
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services
from lcel_agent.tools import BaiduSearchTool, WeatherTool

__all__ = ["SeededAmap", "SeededBaidu", "ToolLog", "make_tools", "use_services"]


class ToolLog:
    """Every tool call of one run: ``{"tool", "input", "output", "t"}`` in call order."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.calls: list[dict[str, str]] = []

    def add(self, tool: str, value: str, output: str) -> None:
        with self._lock:  # frameworks may run a batch of calls on threads
            self.calls.append({"tool": tool, "input": value, "output": output, "t": time.time()})


class RecordingWeatherTool(WeatherTool):
    """``get_weather`` writing Amap's whole live record into its line, every call logged."""

    log: Any = Field(default=None, exclude=True)

    def _call(self, city: str) -> str:
        output = super()._call(city)
        if self.log is not None:
            self.log.add(self.name, city, output)
        return output

    @staticmethod
    def _read(response: requests.Response, city: str, *, detailed: bool = False) -> str:
        short = WeatherTool._read(response, city)
        if short.startswith("ERROR:"):
            return short
        return weather_line(response.json()["lives"][0])


class RecordingSearchTool(BaiduSearchTool):
    """``search_baidu`` as it comes, every call logged."""

    log: Any = Field(default=None, exclude=True)

    def _call(self, query: str) -> str:
        output = super()._call(query)
        if self.log is not None:
            self.log.add(self.name, query, output)
        return output


def make_tools(log: ToolLog) -> list[WeatherTool | BaiduSearchTool]:
    """Fresh tools for one run, logging into ``log``."""
    return [RecordingWeatherTool(log=log), RecordingSearchTool(log=log)]


class Answer(NamedTuple):
    """What a fake's ``_answer`` returns: the fields the kit's request handler reads."""

    status: int
    content_type: str
    body: bytes
    headers: dict[str, str] | None = None


class SeededAmap(FakeAmapServer):
    """FakeAmapServer answering the world's cities (by name, name with 市, or adcode)."""

    world: World | None = None

    def _answer(self, mode: str, path: str, query: dict[str, str]) -> Any:
        city = query.get("city", "")
        record = self._record(city)
        fine = path == "/v3/weather/weatherInfo" and query.get("key") == self.key
        if record is None or mode != "ok" or not fine:
            return super()._answer(mode, path, query)
        body = {"status": "1", "count": "1", "info": "OK", "infocode": "10000", "lives": [record]}
        data = json.dumps(body, ensure_ascii=False).encode("utf-8")
        return Answer(200, "application/json;charset=UTF-8", data)

    def _record(self, city: str) -> dict[str, str] | None:
        if self.world is None:
            return None
        for name, fact in self.world.weather.items():
            if city in (name, fact.city, fact.adcode):
                return fact.live()
        return None


_CARD = (
    '<div class="result c-container" id="{n}"><div class="c-container">'
    '<h3 class="t"><a href="{href}" target="_blank">{title}</a></h3>'
    '<div class="c-abstract">{abstract}</div></div></div>'
)
_PAGE = (
    '<!DOCTYPE html><html><head><meta charset="utf-8"><title>{query}_百度搜索</title></head>'
    '<body><div id="content_left">{cards}</div></body></html>'
)


class SeededBaidu(FakeBaiduServer):
    """FakeBaiduServer answering a search about 台风 with the world's typhoon titles."""

    world: World | None = None

    def _answer(self, mode: str, path: str, query: dict[str, str]) -> Any:
        wd = query.get("wd", "")
        if self.world is None or mode != "ok" or path != "/s" or "台风" not in wd:
            return super()._answer(mode, path, query)
        cards = "".join(
            _CARD.format(
                n=i + 1,
                href=f"http://www.baidu.com/link?url=typhoon{i + 1}-{quote(wd)}",
                title=html.escape(title),
                abstract=html.escape(f"{SEARCH_QUERY}相关内容摘要 {i + 1}"),
            )
            for i, title in enumerate(self.world.typhoon.titles())
        )
        page = _PAGE.format(query=html.escape(wd), cards=cards).encode("utf-8")
        return Answer(200, "text/html; charset=utf-8", page)


def describe_world(world: World) -> dict[str, Any]:
    """The world as JSON (recorded with each run, so a reader can check the verdict)."""
    return {
        "weather": {city: fact.live() for city, fact in world.weather.items()},
        "typhoon": json.loads(json.dumps(world.typhoon.__dict__, ensure_ascii=False)),
        "search_titles": list(world.typhoon.titles()),
    }

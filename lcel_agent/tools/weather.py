"""``get_weather``: the current weather of a Chinese city from Amap (高德) Web API.

Set ``AMAP_KEY`` to a "Web服务" key from https://console.amap.com/dev/key/app;
``AMAP_BASE_URL`` points the tool elsewhere (a proxy, or
:class:`lcel_agent.testing.services.FakeAmapServer` in tests). Both are read at
call time::

    from lcel_agent.tools import get_weather
    get_weather.invoke("北京")        # "北京市天气：晴，温度25℃，湿度40%"
    get_weather.invoke({"city": "110000"})

Every failure is an ``ERROR:`` string; the key never appears in one.
"""

from __future__ import annotations

import os
import re
from typing import Any

import requests
from pydantic import Field

from lcel_agent._redact import redact, register_secret
from lcel_agent.tools._args import SingleArgInput, text_problem
from lcel_agent.tools._http import USER_AGENT, HttpTool, fetch

__all__ = ["DEFAULT_AMAP_BASE_URL", "WeatherInput", "WeatherTool", "get_weather"]

DEFAULT_AMAP_BASE_URL = "https://restapi.amap.com"
_PATH = "/v3/weather/weatherInfo"
_SERVICE = "Amap weather API"
_MAX_CITY_CHARS = 30
_ADCODE = re.compile(r"[1-9]\d{5}")
# CJK ideographs, plus the middle dot that transliterated names sometimes carry.
_CITY_CHARS = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff·]+")

# Amap's infocodes worth explaining to the model (and to the developer reading the trace).
_INFOCODE_HINTS = {
    "10001": "the key is wrong or is not a Web服务 key: check AMAP_KEY",
    "10002": "this key may not use the weather service",
    "10003": "the key's daily quota is used up",
    "10004": "too many requests: wait a little before asking again",
    "10005": "this machine's IP is not on the key's whitelist",
    "10009": "the key belongs to another platform: use a Web服务 key",
    "10014": "too many requests: wait a little before asking again",
    "10044": "the account's daily quota is used up",
    "20000": "the request's parameters were rejected: give a Chinese city name or adcode",
    "20001": "a required parameter is missing",
}


class WeatherInput(SingleArgInput):
    """Arguments of ``get_weather``."""

    city: str = Field(description="中文城市名或 adcode")


def _check_city(city: str) -> str | None:
    """Return an ``ERROR:`` text if ``city`` cannot be a Chinese city name or adcode."""
    hint = "give one Chinese city name such as 北京"
    if problem := text_problem(city, "the city", _MAX_CITY_CHARS, hint):
        return problem
    if _ADCODE.fullmatch(city) or _CITY_CHARS.fullmatch(city):
        return None
    if not any(_CITY_CHARS.fullmatch(ch) for ch in city):
        return (
            f"ERROR: '{city}' is not a Chinese city name or a 6-digit adcode: "
            "write the name in Chinese, e.g. 北京 instead of Beijing"
        )
    return f"ERROR: '{city}' must be one Chinese city name (no punctuation, one city per call)"


def _describe_failure(data: dict[str, Any]) -> str:
    info = str(data.get("info") or "unknown error")
    code = str(data.get("infocode") or "?")
    hint = _INFOCODE_HINTS.get(code)
    return f"ERROR: Amap refused the request ({info}, infocode {code})" + (
        f": {hint}" if hint else ""
    )


class WeatherTool(HttpTool):
    """Amap's live weather for one city (see the module docstring)."""

    name: str = "get_weather"
    description: str = "中国城市的实时天气"
    args_schema: type[WeatherInput] = WeatherInput
    # The HTTP limits are HttpTool's defaults: 5 s per attempt, 12 s in all, 2 attempts.
    detailed: bool = False
    """Write all of Amap's live fields (wind, report time, province, adcode: about 80
    characters a line) instead of the article's weather, temperature and humidity."""

    def _call(self, city: str) -> str:
        if problem := _check_city(city):
            return problem
        key = os.environ.get("AMAP_KEY", "").strip()
        if not key:
            return (
                "ERROR: AMAP_KEY is not set. Create a Web服务 key at "
                "https://console.amap.com/dev/key/app and run: export AMAP_KEY=<your key>"
            )
        register_secret(key)
        base = os.environ.get("AMAP_BASE_URL", "").strip() or DEFAULT_AMAP_BASE_URL
        answer = fetch(
            _SERVICE,
            base.rstrip("/") + _PATH,
            params={"city": city, "key": key, "extensions": "base", "output": "JSON"},
            headers={"User-Agent": USER_AGENT, "Accept": "application/json"},
            **self.fetch_limits(),
        )
        if isinstance(answer, str):
            return answer
        return redact(self._read(answer, city, detailed=self.detailed), [key])

    @staticmethod
    def _read(response: requests.Response, city: str, *, detailed: bool = False) -> str:
        if response.status_code != 200:
            return f"ERROR: {_SERVICE} answered HTTP {response.status_code}"
        try:
            data = response.json()
        except ValueError:
            return f"ERROR: {_SERVICE} answered something that is not JSON"
        if not isinstance(data, dict):
            return f"ERROR: {_SERVICE} answered an unexpected JSON shape"
        if str(data.get("status")) != "1":
            return _describe_failure(data)
        lives = data.get("lives")
        if not lives or not isinstance(lives, list) or not isinstance(lives[0], dict):
            return (
                f"ERROR: Amap has no weather for '{city}': check the name, or give a "
                "prefecture-level city (e.g. 杭州) or its adcode"
            )
        live = lives[0]
        try:
            line = (
                f"{live['city']}天气：{live['weather']}，温度{live['temperature']}℃，"
                f"湿度{live['humidity']}%"
            )
            if detailed:
                line += (
                    f"，风向{live['winddirection']}风，风力{live['windpower']}级，"
                    f"数据发布于{live['reporttime']}，所属省份{live['province']}，"
                    f"城市编码(adcode){live['adcode']}"
                )
            return line
        except KeyError as missing:
            return f"ERROR: {_SERVICE} answered without the field {missing}"


get_weather = WeatherTool()
"""The ready-made tool: ``get_weather.invoke("北京")``."""

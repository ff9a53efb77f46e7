"""Loopback fakes of Amap's weather API and Baidu search, for tests, demos and benchmarks.

Each is a real HTTP server on 127.0.0.1 (a free port), so the tools are tested
over real sockets with nothing patched::

    from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services
    from lcel_agent.tools import get_weather

    with FakeAmapServer() as amap, FakeBaiduServer() as baidu, use_services(amap, baidu):
        get_weather.invoke("北京")            # "北京市天气：晴，温度25℃，湿度40%"
        amap.fail_next(1, "error500")         # the next request fails, then all is well
        amap.mode = "invalid_key"             # every request from now on
        assert amap.requests[0].query["city"] == "北京"

Modes shared by both: ``ok``, ``slow`` (answer normally after ``slow_seconds``),
``error500`` and ``drop`` (close the connection without answering). Amap adds
``invalid_key`` and ``empty``; Baidu adds ``captcha`` (the 百度安全验证 page),
``captcha_redirect`` (a 302 to wappass.baidu.com) and ``empty``. A request's
mode is, in order: the next one scheduled by :meth:`fail_next`, a seeded random
fault (``fault_rate``/``fault_mode``/``seed``, for benchmarks), else ``mode``.
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import quote

from lcel_agent.testing._fake_service import COMMON_MODES, Answer, FakeService, RecordedRequest

__all__ = [
    "AMAP_CITIES",
    "FakeAmapServer",
    "FakeBaiduServer",
    "RecordedRequest",
    "use_services",
]


# --- Amap ---------------------------------------------------------------------------

#: The cities FakeAmapServer knows: adcode -> (province, city, weather, temperature,
#: winddirection, windpower, humidity).
AMAP_CITIES: dict[str, tuple[str, str, str, str, str, str, str]] = {
    "110000": ("北京", "北京市", "晴", "25", "西北", "≤3", "40"),
    "310000": ("上海", "上海市", "多云", "28", "东南", "4", "75"),
    "440100": ("广东", "广州市", "雷阵雨", "31", "南", "≤3", "85"),
    "440300": ("广东", "深圳市", "阵雨", "30", "西南", "≤3", "82"),
    "330100": ("浙江", "杭州市", "阴", "27", "东", "≤3", "70"),
    "510100": ("四川", "成都市", "小雨", "22", "北", "≤3", "88"),
    "420100": ("湖北", "武汉市", "晴", "33", "东南", "≤3", "60"),
    "320100": ("江苏", "南京市", "多云", "29", "东", "≤3", "65"),
    "610100": ("陕西", "西安市", "晴", "26", "西", "≤3", "35"),
    "500000": ("重庆", "重庆市", "阴", "30", "无风向", "≤3", "78"),
    "120000": ("天津", "天津市", "霾", "24", "西南", "≤3", "55"),
    "320500": ("江苏", "苏州市", "多云", "28", "东南", "≤3", "72"),
    "430100": ("湖南", "长沙市", "晴", "34", "南", "≤3", "58"),
    "410100": ("河南", "郑州市", "晴", "32", "南", "4", "45"),
    "370200": ("山东", "青岛市", "雾", "23", "东", "≤3", "90"),
    "210100": ("辽宁", "沈阳市", "多云", "21", "北", "≤3", "50"),
    "210200": ("辽宁", "大连市", "晴", "22", "西北", "4", "60"),
    "350200": ("福建", "厦门市", "阵雨", "29", "东南", "≤3", "84"),
    "530100": ("云南", "昆明市", "小雨", "19", "西南", "≤3", "80"),
    "340100": ("安徽", "合肥市", "晴", "31", "东", "≤3", "62"),
    "350100": ("福建", "福州市", "雷阵雨", "30", "南", "≤3", "86"),
    "370100": ("山东", "济南市", "晴", "30", "西南", "≤3", "48"),
    "230100": ("黑龙江", "哈尔滨市", "多云", "18", "西北", "4", "52"),
    "220100": ("吉林", "长春市", "阴", "19", "北", "≤3", "64"),
}
_AMAP_BY_NAME = {
    name: adcode
    for adcode, (_, city, *_rest) in AMAP_CITIES.items()
    for name in (city, city.removesuffix("市"))
}
_REPORT_TIME = "2025-07-01 10:00:00"


def _json(data: dict[str, Any], status: int = 200) -> Answer:
    body = json.dumps(data, ensure_ascii=False).encode("utf-8")
    return Answer(status, "application/json;charset=UTF-8", body)


class FakeAmapServer(FakeService):
    """A fake of ``GET /v3/weather/weatherInfo`` (``extensions=base``) answering Amap's JSON.

    Requests whose ``key`` is not ``key`` get ``INVALID_USER_KEY`` (infocode
    10001); unknown cities get ``"lives": []`` as the real API does.
    """

    MODES = COMMON_MODES | {"invalid_key", "empty"}

    def __init__(self, *, key: str = "test-amap-key", **options: Any) -> None:
        self.key = key
        super().__init__(**options)

    def _answer(self, mode: str, path: str, query: dict[str, str]) -> Answer:
        if path != "/v3/weather/weatherInfo":
            return _json({"status": "0", "info": "INVALID_REQUEST", "infocode": "10026"}, 404)
        if mode == "invalid_key" or query.get("key") != self.key:
            return _json({"status": "0", "info": "INVALID_USER_KEY", "infocode": "10001"})
        if not query.get("city"):
            return _json({"status": "0", "info": "MISSING_REQUIRED_PARAMS", "infocode": "20001"})
        city = query["city"]
        adcode = city if city in AMAP_CITIES else _AMAP_BY_NAME.get(city)
        if mode == "empty" or adcode is None:
            return _json(
                {"status": "1", "count": "0", "info": "OK", "infocode": "10000", "lives": []}
            )
        province, name, weather, temperature, wind, power, humidity = AMAP_CITIES[adcode]
        live = {
            "province": province,
            "city": name,
            "adcode": adcode,
            "weather": weather,
            "temperature": temperature,
            "winddirection": wind,
            "windpower": power,
            "humidity": humidity,
            "reporttime": _REPORT_TIME,
            "temperature_float": f"{temperature}.0",
            "humidity_float": f"{humidity}.0",
        }
        return _json(
            {"status": "1", "count": "1", "info": "OK", "infocode": "10000", "lives": [live]}
        )


# --- Baidu ----------------------------------------------------------------------------

_TYPHOON_TITLES = (
    "台风最新路径实时发布 - 中央气象台",
    "2025年第5号台风最新消息：路径图实时更新",
    "台风路径实时发布系统 &amp; 预警信息",
    "台风最新路径_百度百科",
)
_RESULT_TEMPLATE = """
<div class="result c-container xpath-log new-pmd" srcid="1599" id="{n}" tpl="se_com_default">
  <div class="c-container">
    <h3 class="c-title t t tts-title"><a href="{href}" target="_blank">{title}</a></h3>
    <div class="c-abstract">{abstract}</div>
  </div>
</div>"""
_PAGE_TEMPLATE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{query}_百度搜索</title></head>
<body><div id="wrapper"><div id="content_left">{results}</div>{extra}</div></body></html>"""
_VERIFY_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>百度安全验证</title></head>
<body><div class="timeout-title">网络不给力，请稍后重试</div>
<a href="https://wappass.baidu.com/static/captcha/tuxing.html?ak=fake">返回首页</a>
</body></html>"""


def _baidu_page(query: str) -> str:
    escaped = html.escape(query)
    if "台风" in query:
        titles = [t.replace("台风", "<em>台风</em>", 1) for t in _TYPHOON_TITLES]
    else:
        titles = [
            f"<em>{escaped}</em>_百度百科",
            f"{escaped}最新消息 - 新闻资讯",
            f"关于<em>{escaped}</em>的常见问题",
            f"{escaped} - 知乎",
        ]
    results = "".join(
        _RESULT_TEMPLATE.format(
            n=i + 1,
            href=f"http://www.baidu.com/link?url=fake{i + 1}-{quote(query)}",
            title=title,
            abstract=f"{escaped}相关内容摘要 {i + 1}……",
        )
        for i, title in enumerate(titles)
    )
    return _PAGE_TEMPLATE.format(query=escaped, results=results, extra="")


class FakeBaiduServer(FakeService):
    """A fake of ``GET /s?wd=...`` answering result pages in Baidu's markup.

    Pages hold four ``div.result.c-container`` cards with ``h3 > a`` titles (about
    台风最新路径 when the query mentions 台风).
    """

    MODES = COMMON_MODES | {"captcha", "captcha_redirect", "empty"}

    def _answer(self, mode: str, path: str, query: dict[str, str]) -> Answer:
        html_type = "text/html; charset=utf-8"
        if path != "/s":
            return Answer(404, html_type, b"<h1>404</h1>")
        if mode == "captcha":
            return Answer(200, html_type, _VERIFY_PAGE.encode("utf-8"))
        if mode == "captcha_redirect":
            location = "https://wappass.baidu.com/static/captcha/tuxing.html?ak=fake&backurl=%2Fs"
            return Answer(302, html_type, b"", {"Location": location})
        wd = query.get("wd", "")
        if mode == "empty":
            extra = f'<div class="nors"><p>抱歉没有找到与“{html.escape(wd)}”相关的网页。</p></div>'
            page = _PAGE_TEMPLATE.format(query=html.escape(wd), results="", extra=extra)
        else:
            page = _baidu_page(wd)
        return Answer(200, html_type, page.encode("utf-8"))


# --- environment ------------------------------------------------------------------------


@contextmanager
def use_services(
    amap: FakeAmapServer | None = None, baidu: FakeBaiduServer | None = None
) -> Iterator[None]:
    """Point the tools at the fakes: set ``AMAP_BASE_URL``, ``AMAP_KEY`` and ``BAIDU_BASE_URL``.

    The previous values (or their absence) come back on exit. The environment is
    the process's, so do not run two of these concurrently.
    """
    wanted: dict[str, str] = {}
    if amap is not None:
        wanted |= {"AMAP_BASE_URL": amap.base_url, "AMAP_KEY": amap.key}
    if baidu is not None:
        wanted["BAIDU_BASE_URL"] = baidu.base_url
    with set_environment(wanted):
        yield


@contextmanager
def set_environment(values: dict[str, str]) -> Iterator[None]:
    """Set ``values`` in ``os.environ`` for the ``with`` block: ``with set_environment({"A": "1"}):``.

    The previous values (or their absence) come back on exit. The environment is
    the process's, so do not run two of these concurrently.
    """
    saved = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value

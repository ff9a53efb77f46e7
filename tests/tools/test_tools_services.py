"""The loopback fakes themselves: modes, scripted failures, seeded faults, env handling."""

from __future__ import annotations

import os

import pytest
import requests

from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services

WEATHER = "/v3/weather/weatherInfo"


def _get(server, path, **params):
    return requests.get(server.base_url + path, params=params, timeout=5)


def test_amap_answers_the_real_json_shape(amap):
    data = _get(amap, WEATHER, city="广州", key=amap.key, extensions="base").json()
    assert data["status"] == "1" and data["infocode"] == "10000" and data["count"] == "1"
    (live,) = data["lives"]
    assert set(live) >= {
        "province",
        "city",
        "adcode",
        "weather",
        "temperature",
        "winddirection",
        "windpower",
        "humidity",
        "reporttime",
    }
    assert (live["city"], live["adcode"], live["province"]) == ("广州市", "440100", "广东")


@pytest.mark.parametrize(
    ("city", "adcode"),
    [
        ("北京", "110000"),
        ("北京市", "110000"),
        ("110000", "110000"),
        ("上海市", "310000"),
        ("深圳", "440300"),
        ("杭州", "330100"),
        ("成都", "510100"),
        ("武汉", "420100"),
        ("南京", "320100"),
        ("西安", "610100"),
        ("重庆", "500000"),
    ],
)
def test_amap_city_table(amap, city, adcode):
    data = _get(amap, WEATHER, city=city, key=amap.key).json()
    assert data["lives"][0]["adcode"] == adcode


def test_amap_wrong_key_and_unknown_city(amap):
    assert _get(amap, WEATHER, city="北京", key="nope").json() == {
        "status": "0",
        "info": "INVALID_USER_KEY",
        "infocode": "10001",
    }
    assert _get(amap, WEATHER, city="火星", key=amap.key).json()["lives"] == []


def test_request_log(amap):
    _get(amap, WEATHER, city="北京", key=amap.key)
    (request,) = amap.requests
    assert request.path == WEATHER
    assert request.query == {"city": "北京", "key": amap.key}
    assert "User-Agent" in request.headers


def test_fail_next_then_back_to_normal(amap):
    amap.fail_next(2, "error500")
    codes = [_get(amap, WEATHER, city="北京", key=amap.key).status_code for _ in range(3)]
    assert codes == [500, 500, 200]


def test_drop_closes_without_an_answer(amap):
    amap.mode = "drop"
    with pytest.raises(requests.ConnectionError):
        _get(amap, WEATHER, city="北京", key=amap.key)


def test_slow_mode_delays_the_answer(amap):
    amap.mode, amap.slow_seconds = "slow", 1.0
    with pytest.raises(requests.Timeout):
        requests.get(amap.base_url + WEATHER, params={"city": "北京"}, timeout=0.2)


def test_seeded_fault_rate_is_reproducible():
    def codes(seed):
        with FakeAmapServer(fault_rate=0.5, fault_mode="error500", seed=seed) as server:
            return [
                _get(server, WEATHER, city="北京", key=server.key).status_code for _ in range(16)
            ]

    first = codes(7)
    assert first == codes(7)
    assert set(first) == {200, 500}
    assert codes(8) != first


def test_bad_modes_are_rejected(amap, baidu):
    with pytest.raises(ValueError):
        amap.mode = "captcha"
    with pytest.raises(ValueError):
        baidu.fail_next(1, "invalid_key")
    with pytest.raises(ValueError):
        FakeAmapServer(fault_rate=2)


def test_baidu_pages(baidu):
    page = _get(baidu, "/s", wd="台风最新路径").text
    assert page.count('class="result c-container') == 4 and "<h3" in page and "台风" in page
    baidu.mode = "captcha"
    assert "百度安全验证" in _get(baidu, "/s", wd="x").text
    baidu.mode = "captcha_redirect"
    answer = requests.get(baidu.base_url + "/s?wd=x", allow_redirects=False, timeout=5)
    assert answer.status_code == 302 and "wappass.baidu.com" in answer.headers["Location"]
    baidu.mode = "empty"
    assert "result" not in _get(baidu, "/s", wd="x").text.split("<body>")[1]
    baidu.mode = "error500"
    assert _get(baidu, "/s", wd="x").status_code == 500


def test_handler_disables_nagle(amap):
    assert amap._server.RequestHandlerClass.disable_nagle_algorithm is True


def test_close_is_idempotent_and_frees_the_port():
    server = FakeBaiduServer()
    url = server.base_url
    server.close()
    server.close()
    with pytest.raises(requests.ConnectionError):
        requests.get(url + "/s?wd=x", timeout=2)


def test_use_services_sets_and_restores_the_environment(amap, baidu, monkeypatch):
    monkeypatch.setenv("AMAP_KEY", "previous-key")
    monkeypatch.delenv("AMAP_BASE_URL", raising=False)
    monkeypatch.delenv("BAIDU_BASE_URL", raising=False)
    with use_services(amap, baidu):
        assert os.environ["AMAP_BASE_URL"] == amap.base_url
        assert os.environ["AMAP_KEY"] == amap.key
        assert os.environ["BAIDU_BASE_URL"] == baidu.base_url
    assert os.environ["AMAP_KEY"] == "previous-key"
    assert "AMAP_BASE_URL" not in os.environ and "BAIDU_BASE_URL" not in os.environ


def test_use_services_restores_after_an_exception(amap, monkeypatch):
    monkeypatch.delenv("AMAP_BASE_URL", raising=False)
    with pytest.raises(RuntimeError), use_services(amap):
        raise RuntimeError("boom")
    assert "AMAP_BASE_URL" not in os.environ

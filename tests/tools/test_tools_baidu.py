"""search_baidu against a loopback fake of Baidu's result pages."""

from __future__ import annotations

import json

import pytest

from lcel_agent.tools import BaiduSearchTool, search_baidu
from lcel_agent.tools.baidu import parse_results

fast_search = BaiduSearchTool(request_timeout=0.3, retry_wait=0.05)


def test_top_three_results_as_json(services, call):
    result = call(search_baidu, "台风最新路径")
    items = json.loads(result)
    assert [item["title"] for item in items] == [
        "台风最新路径实时发布 - 中央气象台",
        "2025年第5号台风最新消息：路径图实时更新",
        "台风路径实时发布系统 & 预警信息",
    ]
    assert all(item["link"].startswith("http://www.baidu.com/link?url=fake") for item in items)
    assert "台风" in result  # ensure_ascii=False: readable, and 3x shorter for the model


def test_generic_query(services, call):
    items = json.loads(call(search_baidu, {"query": "python 教程"}))
    assert len(items) == 3
    assert items[0]["title"] == "python 教程_百度百科"


@pytest.mark.parametrize(
    "value", ["天气", {"query": "天气"}, {"action_input": "天气"}, '{"query": "天气"}']
)
def test_loose_argument_shapes_are_coerced(services, baidu, call, value):
    assert len(json.loads(call(search_baidu, value))) == 3
    assert baidu.requests[0].query == {"wd": "天气"}


def test_request_shape(services, baidu, call):
    call(search_baidu, "台风 & 暴雨=预警")
    (request,) = baidu.requests
    assert request.path == "/s"
    assert request.query == {"wd": "台风 & 暴雨=预警"}  # encoded by requests, decoded intact
    assert request.headers["User-Agent"].startswith("Mozilla/5.0")


@pytest.mark.parametrize("mode", ["captcha", "captcha_redirect"])
def test_verification_page_is_an_error(services, baidu, call, mode):
    baidu.mode = mode
    result = call(search_baidu, "台风")
    assert result.startswith("ERROR: Baidu answered with its verification page")
    assert len(baidu.requests) == 1  # the wappass redirect is not followed


def test_empty_result_page(services, baidu, call):
    baidu.mode = "empty"
    assert (
        call(search_baidu, "zzqxj")
        == "ERROR: Baidu found no results for 'zzqxj': try other keywords"
    )


def test_500_is_retried_once_then_errors(services, baidu, call):
    baidu.mode = "error500"
    assert call(fast_search, "台风") == "ERROR: Baidu search answered HTTP 500 (2 attempts)"
    assert len(baidu.requests) == 2


def test_slow_past_the_timeout_retries_once_then_errors(services, baidu, call):
    baidu.mode = "slow"
    assert call(fast_search, "台风").startswith("ERROR: Baidu search did not answer in time")
    assert len(baidu.requests) == 2


def test_one_dropped_connection_is_absorbed(services, baidu, call):
    baidu.fail_next(1, "drop")
    assert len(json.loads(call(fast_search, "台风"))) == 3


def test_refused_connection(services, call, monkeypatch, closed_port_url):
    monkeypatch.setenv("BAIDU_BASE_URL", closed_port_url)
    assert call(fast_search, "台风").startswith("ERROR: could not connect to Baidu search")


@pytest.mark.parametrize(
    ("value", "fragment"),
    [("", "empty"), ("  ", "empty"), ("a" * 201, "too long"), ("台风\x07", "control")],
)
def test_absurd_input_is_rejected_without_a_request(services, baidu, call, value, fragment):
    result = call(search_baidu, value)
    assert result.startswith("ERROR:") and fragment in result
    assert baidu.requests == []


def test_metadata_for_the_dispatcher():
    assert search_baidu.metadata == {"idempotent": True, "timeout": 20.0}


def test_parser_takes_the_first_title_of_each_card_and_skips_junk():
    page = """<html><head><title>x_百度搜索</title></head><body>
    <div class="result-op c-container"><div class="c-container">
      <h3><a href="/link?url=1">第一 <em>条</em></a></h3>
      <h3><a href="/link?url=inner">同一卡片的第二个标题</a></h3></div></div>
    <div class="s_tab"><h3><a href="/not-a-result">导航</a></h3></div>
    <div class="result"><h3><a href="javascript:void(0)">脚本链接</a></h3></div>
    <div class="result"><h3><a>没有链接</a></h3></div>
    <div class="result c-container"><h3 class="t"><a href="https://example.com/2">第二&amp;条</a></h3></div>
    </body></html>"""
    title, results = parse_results(page, "https://www.baidu.com/s?wd=x")
    assert title == "x_百度搜索"
    assert results == [
        {"title": "第一 条", "link": "https://www.baidu.com/link?url=1"},
        {"title": "第二&条", "link": "https://example.com/2"},
    ]

"""get_weather against a loopback fake of Amap's weather API."""

from __future__ import annotations

import pytest
from langchain_core.messages import ToolMessage

from lcel_agent.tools import TransientError, WeatherTool, get_weather, is_error_result

# Short limits so the slow and failing cases take a fraction of a second.
fast_weather = WeatherTool(request_timeout=0.3, retry_wait=0.05)


def test_success_keeps_the_exact_format(services, call):
    assert call(get_weather, "北京") == "北京市天气：晴，温度25℃，湿度40%"


def test_a_detailed_line_holds_all_of_amaps_live_fields(services, call):
    line = call(WeatherTool(detailed=True), "北京")
    assert line == (
        "北京市天气：晴，温度25℃，湿度40%，风向西北风，风力≤3级，"
        "数据发布于2025-07-01 10:00:00，所属省份北京，城市编码(adcode)110000"
    )
    assert 80 <= len(line) <= 120  # as long as the lines real Amap answers make
    assert call(WeatherTool(detailed=True), "火星").startswith("ERROR:")


@pytest.mark.parametrize(
    ("city", "expected"),
    [
        ("北京市", "北京市"),
        ("110000", "北京市"),
        ("上海", "上海市"),
        ("440100", "广州市"),
        ("重庆", "重庆市"),
        ("  西安  ", "西安市"),
    ],
)
def test_names_with_or_without_shi_and_adcodes(services, call, city, expected):
    assert call(get_weather, city).startswith(f"{expected}天气：")


@pytest.mark.parametrize(
    "value",
    [
        "北京",
        {"city": "北京"},
        {"action_input": "北京"},
        '{"city": "北京"}',
        '{"action_input": "北京"}',
        {"city": {"action_input": "北京"}},
        {"location": "北京"},
    ],
)
def test_loose_argument_shapes_are_coerced(services, call, value):
    assert call(get_weather, value) == "北京市天气：晴，温度25℃，湿度40%"


def test_tool_call_gives_a_tool_message(services, call):
    tool_call = {"name": "get_weather", "args": {"city": "上海"}, "id": "c1", "type": "tool_call"}
    message = call(get_weather, tool_call)
    assert isinstance(message, ToolMessage)
    assert message.content == "上海市天气：多云，温度28℃，湿度75%"
    assert message.tool_call_id == "c1"


def test_request_shape(services, amap, call):
    call(get_weather, "杭州")
    (request,) = amap.requests
    assert request.path == "/v3/weather/weatherInfo"
    assert request.query["city"] == "杭州"
    assert request.query["extensions"] == "base"
    assert request.query["key"] == amap.key
    assert request.headers["User-Agent"].startswith("lcel-agent/")


def test_invalid_key(services, amap, call, monkeypatch):
    monkeypatch.setenv("AMAP_KEY", "wrong-key-0123456789")
    result = call(get_weather, "北京")
    assert result.startswith("ERROR:")
    assert "INVALID_USER_KEY" in result and "10001" in result
    assert "wrong-key-0123456789" not in result


def test_invalid_key_mode(services, amap, call):
    amap.mode = "invalid_key"
    assert "INVALID_USER_KEY" in call(get_weather, "北京")


def test_missing_key_explains_how_to_set_it(services, amap, call, monkeypatch):
    monkeypatch.delenv("AMAP_KEY")
    result = call(get_weather, "北京")
    assert result.startswith("ERROR: AMAP_KEY is not set")
    assert "export AMAP_KEY=" in result
    assert amap.requests == []


@pytest.mark.parametrize("mode", ["ok", "empty"])
def test_empty_lives(services, amap, call, mode):
    amap.mode = mode
    city = "拉萨" if mode == "ok" else "北京"
    result = call(get_weather, city)
    assert result.startswith("ERROR:") and f"'{city}'" in result


def test_slow_past_the_timeout_retries_once_then_errors(services, amap, call):
    amap.mode = "slow"
    result = call(fast_weather, "北京")
    assert result.startswith("ERROR: Amap weather API did not answer in time (2 attempts")
    assert len(amap.requests) == 2


def test_500_is_retried_once_then_errors(services, amap, call):
    amap.mode = "error500"
    assert call(fast_weather, "北京") == "ERROR: Amap weather API answered HTTP 500 (2 attempts)"
    assert len(amap.requests) == 2


@pytest.mark.parametrize("fault", ["error500", "drop", "slow"])
def test_one_transient_failure_is_absorbed_by_the_retry(services, amap, call, fault):
    amap.fail_next(1, fault)
    assert call(fast_weather, "北京") == "北京市天气：晴，温度25℃，湿度40%"
    assert len(amap.requests) == 2


@pytest.mark.parametrize("mode", ["slow", "error500", "drop"])
def test_failures_that_may_clear_are_marked_transient(services, amap, mode):
    amap.mode = mode
    result = fast_weather.invoke("北京")
    # The plain string to any reader; to lcel_agent's dispatcher, worth one more try.
    assert isinstance(result, TransientError) and result.startswith("ERROR:")
    amap.mode = "invalid_key"
    refused = fast_weather.invoke("北京")
    assert is_error_result(refused) and not isinstance(refused, TransientError)
    with pytest.raises(ValueError):
        TransientError("fine")


def test_refused_connection(services, call, monkeypatch, closed_port_url):
    monkeypatch.setenv("AMAP_BASE_URL", closed_port_url)
    result = call(fast_weather, "北京")
    assert result.startswith("ERROR: could not connect to Amap weather API (2 attempts)")


def test_base_url_is_read_at_call_time(services, call, monkeypatch, closed_port_url):
    assert not is_error_result(call(get_weather, "北京"))
    monkeypatch.setenv("AMAP_BASE_URL", closed_port_url)
    assert is_error_result(call(fast_weather, "北京"))


def test_only_one_attempt_when_the_time_limit_is_spent(services, amap, call):
    amap.mode = "slow"
    tool = WeatherTool(request_timeout=0.3, time_limit=0.35, retry_wait=0.1)
    assert is_error_result(call(tool, "北京"))
    assert len(amap.requests) == 1


@pytest.mark.parametrize(
    ("value", "fragment"),
    [
        ("", "empty"),
        ("   ", "empty"),
        ("Beijing", "not a Chinese city name"),
        ("12345", "not a Chinese city name"),
        ("北京\x00", "control characters"),
        ("北京\u200b", "control characters"),
        ("北" * 31, "too long"),
        ("北京,上海", "one Chinese city name"),
        ("北京 上海", "one Chinese city name"),
        ({"a": "北京", "b": "上海"}, "invalid tool input"),
        ({"city": None}, "invalid tool input"),
        (["北京", "上海"], "invalid tool input"),
    ],
)
def test_absurd_input_is_rejected_without_a_request(services, amap, call, value, fragment):
    result = call(get_weather, value)
    assert result.startswith("ERROR:")
    assert fragment in result
    assert amap.requests == []


def test_metadata_for_the_dispatcher():
    assert get_weather.metadata == {"idempotent": True, "timeout": 12.0}
    assert WeatherTool(time_limit=3).metadata == {"idempotent": True, "timeout": 3}


def test_schema_is_one_string_field():
    schema = get_weather.tool_call_schema.model_json_schema()
    assert list(schema["properties"]) == ["city"]
    assert schema["properties"]["city"]["type"] == "string"
    assert schema["required"] == ["city"]

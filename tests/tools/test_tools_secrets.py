"""The Amap key never reaches a result, an error or a log line, even where the URL does."""

from __future__ import annotations

import logging

import pytest

from lcel_agent.tools import WeatherTool, get_weather

fast_weather = WeatherTool(request_timeout=0.3, retry_wait=0.05)


def _all_log_text(caplog: pytest.LogCaptureFixture) -> str:
    return "\n".join(record.getMessage() for record in caplog.records)


@pytest.mark.parametrize("setup", ["ok", "invalid_key", "error500", "slow", "drop", "refused"])
def test_key_never_leaks(services, amap, call, caplog, monkeypatch, closed_port_url, setup):
    caplog.set_level(logging.DEBUG)
    if setup == "refused":
        monkeypatch.setenv("AMAP_BASE_URL", closed_port_url)
    else:
        amap.mode = setup
    result = call(fast_weather, "北京")
    assert amap.key not in result
    assert amap.key not in _all_log_text(caplog)
    assert amap.key not in caplog.text
    if setup in ("ok", "invalid_key", "error500"):
        # The check means something: urllib3 logged each answered request, query and all.
        assert "weatherInfo?city=" in _all_log_text(caplog)


def test_error_message_keeps_the_url_but_not_the_key(
    services, amap, call, monkeypatch, closed_port_url
):
    monkeypatch.setenv("AMAP_BASE_URL", closed_port_url)
    result = call(fast_weather, "北京")
    assert "/v3/weather/weatherInfo?city=" in result  # requests quoted the URL ...
    assert "key=***" in result  # ... and the key was masked
    assert amap.key not in result


def test_key_is_registered_so_it_stays_masked_after_the_env_changes(services, amap, call):
    from lcel_agent._redact import redact

    call(get_weather, "北京")
    # use_services will remove AMAP_KEY; the registered value is still masked.
    assert redact(f"token {amap.key} here") == "token *** here"


def test_urllib3_log_filter_masks_any_key_parameter(caplog):
    caplog.set_level(logging.DEBUG)
    logging.getLogger("urllib3.connectionpool").debug(
        '%s "GET %s HTTP/1.1" %s', "http://h:1", "/v3/x?city=a&key=unregistered-secret-42", 200
    )
    assert "unregistered-secret-42" not in caplog.text
    assert "key=***" in caplog.text

"""safe_tool: exceptions, timeouts, odd output and long output all become bounded strings."""

from __future__ import annotations

import asyncio
import json
import threading

import pytest
from langchain_core.messages import ToolMessage
from langchain_core.tools import BaseTool, tool

from lcel_agent.tools import SafeTool, get_weather, is_error_result, safe_tool


@safe_tool
def shout(text: str) -> str:
    """Say it louder."""
    return text.upper() + "!"


@safe_tool(timeout=5, idempotent=True, name="add", description="Add two integers.")
async def add_numbers(a: int, b: int) -> int:
    await asyncio.sleep(0)
    return a + b


def test_decorator_without_arguments(call):
    assert isinstance(shout, SafeTool)
    assert shout.name == "shout" and shout.description == "Say it louder."
    assert shout.metadata == {"idempotent": False, "timeout": 30.0}
    assert call(shout, {"text": "hi"}) == "HI!"
    assert call(shout, "hi") == "HI!"


def test_decorator_with_arguments_on_an_async_function(call):
    assert add_numbers.name == "add"
    assert add_numbers.metadata == {"idempotent": True, "timeout": 5}
    assert add_numbers.tool_call_schema.model_json_schema()["required"] == ["a", "b"]
    assert call(add_numbers, {"a": 2, "b": 3}) == "5"


def test_exception_becomes_a_redacted_error(call, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-leakyleakyleaky123")

    @safe_tool
    def broken(x: str) -> str:
        """Always fails."""
        raise RuntimeError("upstream said no (key sk-leakyleakyleaky123, url /a?key=zzzzzzzz9)")

    result = call(broken, "x")
    assert result.startswith("ERROR: tool 'broken' failed: RuntimeError: upstream said no")
    assert "sk-leakyleakyleaky123" not in result and "zzzzzzzz9" not in result


def test_bad_arguments_become_an_error(call):
    result = call(add_numbers, {"a": "two", "b": 3})
    assert result.startswith("ERROR: invalid tool input:")


def test_error_results_pass_through(call):
    @safe_tool
    def polite_failure(x: str) -> str:
        """Fails the article's way."""
        return "ERROR: no such thing"

    assert call(polite_failure, "x") == "ERROR: no such thing"


def test_sync_tool_past_its_timeout_is_abandoned(call):
    release = threading.Event()
    ran_on: list[threading.Thread] = []

    @safe_tool(timeout=0.2)
    def hangs(x: str) -> str:
        """Hangs until released."""
        ran_on.append(threading.current_thread())
        release.wait(10)
        return "late"

    try:
        assert call(hangs, "x") == "ERROR: tool 'hangs' timed out after 0.2 s"
        (thread,) = ran_on
        # Abandoned, still running, on a daemon thread that cannot keep the process alive.
        assert thread is not threading.current_thread() and thread.is_alive() and thread.daemon
    finally:
        release.set()


def test_async_tool_past_its_timeout_is_cancelled(call):
    cancelled = threading.Event()

    @safe_tool(timeout=0.2)
    async def sleeps(x: str) -> str:
        """Sleeps too long."""
        try:
            await asyncio.sleep(10)
        except asyncio.CancelledError:
            cancelled.set()
            raise
        return "late"

    assert call(sleeps, "x") == "ERROR: tool 'sleeps' timed out after 0.2 s"
    assert cancelled.wait(2)


def test_timeout_error_raised_by_the_tool_is_a_failure_not_a_timeout(call):
    @safe_tool(timeout=5)
    async def raises_timeout(x: str) -> str:
        """Its own client timed out."""
        raise TimeoutError("socket read timed out")

    assert call(raises_timeout, "x") == (
        "ERROR: tool 'raises_timeout' failed: TimeoutError: socket read timed out"
    )


def test_no_timeout(call):
    @safe_tool(timeout=None)
    def quick(x: str) -> str:
        """Quick."""
        return x

    assert quick.metadata["timeout"] is None
    assert call(quick, "ok") == "ok"


def test_non_string_output_is_json_or_str(call):
    @safe_tool
    def structured(x: str) -> dict:
        """Returns a dict."""
        return {"城市": "北京", "温度": 25}

    class Opaque:
        def __str__(self) -> str:
            return "<opaque>"

    @safe_tool
    def opaque(x: str) -> object:
        """Returns an object."""
        return Opaque()

    assert json.loads(call(structured, "x")) == {"城市": "北京", "温度": 25}
    assert "北京" in call(structured, "x")
    assert call(opaque, "x") == "<opaque>"


def test_long_output_is_truncated_keeping_head_and_tail(call):
    @safe_tool(max_output_chars=1000)
    def verbose(x: str) -> str:
        """Talks a lot."""
        return "H" * 10 + "m" * 50_000 + "T" * 10

    result = call(verbose, "x")
    assert len(result) <= 1000
    assert result.startswith("H" * 10) and result.endswith("T" * 10)
    assert "…[truncated 49,0" in result


def test_wrapping_an_existing_tool_keeps_its_schema_and_coercion(services, call):
    wrapped = safe_tool(get_weather, timeout=15, idempotent=True)
    assert wrapped.name == "get_weather"
    assert wrapped.args_schema is get_weather.args_schema
    assert wrapped.metadata == {"idempotent": True, "timeout": 15}
    assert call(wrapped, {"action_input": "北京"}) == "北京市天气：晴，温度25℃，湿度40%"


def test_wrapping_a_safe_tool_replaces_its_settings(call):
    rewrapped = safe_tool(shout, timeout=1, idempotent=True)
    assert rewrapped.inner is shout.inner
    assert rewrapped.metadata == {"idempotent": True, "timeout": 1}


def test_wrapping_a_base_tool_subclass_that_raises(call):
    class Flaky(BaseTool):
        name: str = "flaky"
        description: str = "Raises."

        def _run(self, query: str) -> str:
            raise ConnectionError("reset by peer")

    assert (
        call(safe_tool(Flaky()), "q")
        == "ERROR: tool 'flaky' failed: ConnectionError: reset by peer"
    )


def test_sync_only_tool_with_async_caller_does_not_block_the_loop():
    release = threading.Event()

    @safe_tool(timeout=0.2)
    def blocking(x: str) -> str:
        """Blocks."""
        release.wait(10)
        return "late"

    async def main() -> tuple[str, int]:
        ticks = 0

        async def ticker() -> None:
            nonlocal ticks
            while True:
                await asyncio.sleep(0.01)
                ticks += 1

        task = asyncio.create_task(ticker())
        result = await blocking.ainvoke("x")
        task.cancel()
        return result, ticks

    try:
        result, ticks = asyncio.run(main())
    finally:
        release.set()
    assert result.startswith("ERROR: tool 'blocking' timed out")
    assert ticks > 0  # the event loop kept running while the tool hung


def test_async_only_tool_works_from_sync_code():
    assert add_numbers.invoke({"a": 40, "b": 2}) == "42"


def test_tool_call_gives_a_tool_message(call):
    message = call(
        shout, {"name": "shout", "args": {"text": "ok"}, "id": "t1", "type": "tool_call"}
    )
    assert isinstance(message, ToolMessage)
    assert message.content == "OK!" and message.tool_call_id == "t1"


def test_plain_langchain_tool_is_accepted(call):
    @tool
    def echo(text: str) -> str:
        """Echo."""
        return text

    assert call(safe_tool(echo), {"text": "回声"}) == "回声"


def test_error_results_are_recognised():
    assert is_error_result(shout.invoke("x")) is False


@pytest.mark.parametrize("kwargs", [{"timeout": 0}, {"timeout": -1}, {"max_output_chars": 0}])
def test_bad_settings_raise_at_once(kwargs):
    with pytest.raises(ValueError):
        safe_tool(**kwargs)


def test_function_without_docstring_needs_a_description():
    def nameless(x: str) -> str:
        return x

    with pytest.raises(ValueError):
        safe_tool(nameless)
    assert safe_tool(nameless, description="Echo.").invoke("a") == "a"


def test_timeouts_do_not_wait_for_the_abandoned_call():
    release = threading.Event()

    @safe_tool(timeout=0.1)
    def hangs(x: str) -> str:
        """Hangs."""
        release.wait(10)
        return "late"

    try:
        results = [hangs.invoke("x") for _ in range(3)]
    finally:
        release.set()
    assert all(r.startswith("ERROR:") for r in results)

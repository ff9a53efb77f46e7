"""The simulated server through the real ``openai`` client: replies, streams, usage, the log."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import openai
import pytest

from lcel_agent.memory.counters import default_exact_counter
from lcel_agent.testing.policies import Reply, ScriptedPolicy
from lcel_agent.testing.server import SimulatedOpenAIServer, completion_tokens, prompt_tokens

pytest_plugins = ["lcel_agent.testing.fixtures"]

COUNT = default_exact_counter()
HELLO = [{"role": "user", "content": "你好"}]


def hello_prompt_tokens() -> int:
    # OpenAI's recipe written out: 3 per message + role + content, plus 3 priming the reply.
    return 3 + 3 + COUNT("user") + COUNT("你好")


def test_plain_reply_carries_exact_usage(simulated_openai, oai):
    srv = simulated_openai(["北京今天晴，25℃。"])
    out = oai(srv).chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    assert out.choices[0].message.content == "北京今天晴，25℃。"
    assert out.choices[0].finish_reason == "stop"
    assert out.usage is not None
    assert out.usage.prompt_tokens == hello_prompt_tokens()
    assert out.usage.completion_tokens == COUNT("北京今天晴，25℃。")
    assert out.usage.total_tokens == out.usage.prompt_tokens + out.usage.completion_tokens


async def test_plain_reply_carries_exact_usage_async(simulated_openai, aoai):
    srv = simulated_openai(["北京今天晴，25℃。"])
    out = await aoai(srv).chat.completions.create(model="gpt-4o-mini", messages=HELLO)
    assert out.choices[0].message.content == "北京今天晴，25℃。"
    assert out.usage is not None
    assert out.usage.prompt_tokens == hello_prompt_tokens()
    assert out.usage.completion_tokens == COUNT("北京今天晴，25℃。")


TEXT = "今天北京晴，上海多云；台风正向东北方向移动。"


def test_stream_sends_deltas_finish_and_usage(simulated_openai, oai):
    srv = simulated_openai([TEXT])
    stream = oai(srv).chat.completions.create(
        model="m", messages=HELLO, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text == TEXT
    assert len([c for c in chunks if c.choices and c.choices[0].delta.content]) > 1
    assert [c.choices[0].finish_reason for c in chunks if c.choices][-1] == "stop"
    assert chunks[-1].choices == []
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == COUNT(TEXT)
    assert chunks[-1].usage.prompt_tokens == hello_prompt_tokens()


async def test_stream_sends_deltas_finish_and_usage_async(simulated_openai, aoai):
    srv = simulated_openai([TEXT])
    stream = await aoai(srv).chat.completions.create(
        model="m", messages=HELLO, stream=True, stream_options={"include_usage": True}
    )
    chunks = [c async for c in stream]
    assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == TEXT
    assert chunks[-1].usage is not None
    assert chunks[-1].usage.completion_tokens == COUNT(TEXT)


def test_stream_without_include_usage_has_no_usage(simulated_openai, oai):
    srv = simulated_openai([TEXT])
    chunks = list(oai(srv).chat.completions.create(model="m", messages=HELLO, stream=True))
    assert all(c.usage is None for c in chunks)
    assert all(c.choices for c in chunks)


CALL = {"name": "get_weather", "arguments": {"city": "北京"}}


def test_tool_call_reply_plain_and_streamed(simulated_openai, oai):
    srv = simulated_openai([CALL, CALL])
    c = oai(srv)
    out = c.chat.completions.create(model="m", messages=HELLO)
    (call,) = out.choices[0].message.tool_calls or []
    assert out.choices[0].finish_reason == "tool_calls"
    assert call.function.name == "get_weather"
    assert json.loads(call.function.arguments) == {"city": "北京"}
    assert out.usage is not None
    assert out.usage.completion_tokens == COUNT("get_weather") + COUNT('{"city": "北京"}')

    args, names = "", []
    for chunk in c.chat.completions.create(model="m", messages=HELLO, stream=True):
        for delta in (chunk.choices[0].delta.tool_calls or []) if chunk.choices else []:
            names += [delta.function.name] if delta.function and delta.function.name else []
            args += delta.function.arguments or "" if delta.function else ""
    assert names == ["get_weather"]
    assert json.loads(args) == {"city": "北京"}


def test_policy_callable_sees_messages_and_tools(simulated_openai, oai):
    seen = []

    def policy(messages, tools):
        seen.append((messages, tools))
        return Reply(content="ok", tool_calls=[{"name": "t", "arguments": "{not json"}])

    srv = simulated_openai(policy)
    tools = [{"type": "function", "function": {"name": "t", "parameters": {"type": "object"}}}]
    out = oai(srv).chat.completions.create(model="m", messages=HELLO, tools=tools)
    assert seen == [(HELLO, tools)]
    # A string argument is sent verbatim, so tests can send broken arguments.
    assert out.choices[0].message.tool_calls[0].function.arguments == "{not json"
    assert srv.requests[0].usage["prompt_tokens"] == prompt_tokens(HELLO, tools, COUNT)


def test_prompt_tokens_counts_names_and_tool_calls():
    messages = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ]},
        {"role": "tool", "content": "结果", "tool_call_id": "1", "name": "f"},
    ]  # fmt: skip
    expected = 3 + (3 + COUNT("assistant") + COUNT("f") + COUNT("{}"))
    expected += 3 + COUNT("tool") + COUNT("结果") + 1 + COUNT("f")
    assert prompt_tokens(messages, None, COUNT) == expected
    assert completion_tokens(Reply(content="ab"), COUNT) == COUNT("ab")


def test_models_list(simulated_openai, oai):
    srv = simulated_openai([], model="sim-model")
    assert [m.id for m in oai(srv).models.list()] == ["sim-model"]


def test_wrong_key_is_401_and_never_logged(simulated_openai, oai):
    srv = simulated_openai(["ok"], require_key="sk-right")
    with pytest.raises(openai.AuthenticationError) as info:
        oai(srv, key="sk-wrong").chat.completions.create(model="m", messages=HELLO)
    assert info.value.status_code == 401
    assert info.value.code == "invalid_api_key"
    assert "sk-wrong" not in str(info.value)
    out = oai(srv, key="sk-right").chat.completions.create(model="m", messages=HELLO)
    assert out.choices[0].message.content == "ok"
    assert [(r.status, r.authorized) for r in srv.requests] == [(401, False), (200, True)]
    assert all(r.headers["authorization"] == "Bearer ***" for r in srv.requests)


def test_context_limit_is_400_without_consuming_the_script(simulated_openai, oai):
    policy = ScriptedPolicy(["ok"])
    srv = simulated_openai(policy, context_limit=5)
    with pytest.raises(openai.BadRequestError) as info:
        oai(srv).chat.completions.create(model="m", messages=HELLO * 3)
    assert info.value.code == "context_length_exceeded"
    assert "maximum context length is 5 tokens" in info.value.message
    assert policy.remaining == 1


def test_exhausted_script_is_a_clear_500(simulated_openai, oai):
    srv = simulated_openai(["only one"])
    c = oai(srv)
    c.chat.completions.create(model="m", messages=HELLO)
    with pytest.raises(openai.InternalServerError) as info:
        c.chat.completions.create(model="m", messages=HELLO)
    assert "ran out of replies" in info.value.message


def test_stop_and_max_tokens_cut_the_text(simulated_openai, oai):
    text = "Thought: 查天气\nAction: get_weather\nAction Input: 北京\nObservation: 编造的结果"
    srv = simulated_openai([text, "一二三四五六七八九十" * 5])
    c = oai(srv)
    out = c.chat.completions.create(model="m", messages=HELLO, stop=["\nObservation"])
    assert out.choices[0].message.content == text.split("\nObservation")[0]
    out = c.chat.completions.create(model="m", messages=HELLO, max_tokens=7)
    assert out.choices[0].finish_reason == "length"
    assert out.usage is not None
    assert out.usage.completion_tokens == COUNT(out.choices[0].message.content or "") <= 7
    assert len(out.choices[0].message.content or "") > 0


def test_request_log_records_body_and_outcome(simulated_openai, oai):
    srv = simulated_openai(["a"])
    oai(srv).chat.completions.create(model="gpt-x", messages=HELLO, temperature=0.2)
    (rec,) = srv.chat_requests
    assert rec.body is not None
    assert rec.body["model"] == "gpt-x"
    assert rec.body["temperature"] == 0.2
    assert rec.messages == HELLO
    assert (rec.status, rec.fault, rec.stream) == (200, None, False)
    assert rec.reply == Reply(content="a")


def _raw(srv: SimulatedOpenAIServer, path: str, data: bytes | None) -> tuple[int, dict]:
    request = urllib.request.Request(srv.url + path, data=data, method="POST" if data else "GET")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read())


def test_unreadable_body_and_unknown_path_get_openai_errors(simulated_openai):
    srv = simulated_openai(["never"])
    status, body = _raw(srv, "/v1/chat/completions", b"{not json")
    assert status == 400
    assert body["error"]["type"] == "invalid_request_error"
    status, body = _raw(srv, "/v1/nothing", None)
    assert status == 404
    assert set(body["error"]) == {"message", "type", "param", "code"}


def test_context_manager_closes_the_port():
    with SimulatedOpenAIServer(["x"]) as srv:
        base = srv.base_url
        assert base.startswith("http://127.0.0.1:")
        assert base.endswith("/v1")
    with pytest.raises(openai.APIConnectionError):
        openai.OpenAI(base_url=base, api_key="k", max_retries=0, timeout=2).models.list()
    with pytest.raises(RuntimeError, match="not running"):
        _ = srv.base_url

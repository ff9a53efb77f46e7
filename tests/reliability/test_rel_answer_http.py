"""The answer stage against a real OpenAI-compatible server on 127.0.0.1.

Schema-held replies, a server that refuses the schema, and results too many for the
model's context, through the real ``ChatOpenAI`` over real sockets.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from lcel_agent import StopReason, create_agent
from lcel_agent.stages.answer import Answer
from lcel_agent.stages.llm_client import is_own_client
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.texts import ANSWER_SYSTEM

pytestmark = pytest.mark.usefixtures("closes_async_clients")


def city(i: int) -> str:
    return f"城{i}"


def line(name: str) -> str:
    temperature = 20 + int(name[1:]) % 15
    return f"{name}市天气：多云，温度{temperature}℃，风向东北，风力4级，发布时间2026-07-01 08:30:00"


@tool
def get_weather(city: str) -> str:
    """查询城市实时天气"""
    return line(city)


class Policy:
    """Calls the weather of ``cities`` in one reply, answers without numbers, and answers the
    answer stage's requests with one line per numbered result (the server maps lines onto
    a schema's keys when the request carries one)."""

    def __init__(self, cities: list[str]) -> None:
        self.cities = cities
        self.answer_requests: list[list[dict[str, Any]]] = []

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> str:
        if messages[0]["content"] == ANSWER_SYSTEM:
            self.answer_requests.append(messages)
            request = messages[-1]["content"]
            lines = re.findall(r"^\d+\. \w+\(.*?\): (.*)$", request, re.M)
            return "\n".join([*lines, "总结：都是多云。"] if "summary" in request else lines)
        if any(m["role"] == "user" and "市天气" in str(m["content"]) for m in messages[1:]):
            # An answer that leaves every city but the first out: the stage writes it anew.
            draft = f"{self.cities[0]}多云，温度20℃"
            return json.dumps({"action": "final", "action_input": draft}, ensure_ascii=False)
        calls = [{"action": "get_weather", "action_input": c} for c in self.cities]
        return json.dumps(calls, ensure_ascii=False)


def _run(srv: SimulatedOpenAIServer, cities: list[str], **options: Any) -> Any:
    llm = ChatOpenAI(
        model="m", base_url=srv.base_url, api_key=SecretStr("sk-ans-7f3Qz9LmV2xK8pRt"), timeout=10
    )
    agent = create_agent(llm, [get_weather], llm_backoff=(0.0, 0.0), **options)
    try:
        return agent.invoke("查询" + "、".join(cities) + "的天气")
    finally:
        if is_own_client(llm.root_client):  # langchain-openai 1.x shares one per endpoint
            llm.root_client.close()


def _forms(srv: SimulatedOpenAIServer) -> list[str | None]:
    return [
        ((r.body or {}).get("response_format") or {}).get("type")
        for r in srv.chat_requests
        if (r.body or {}).get("messages", [{}])[0].get("content") == ANSWER_SYSTEM
    ]


def test_a_schema_held_reply_has_one_line_per_result():
    cities = [city(i) for i in range(3)]
    with SimulatedOpenAIServer(Policy(cities)) as srv:
        result = _run(srv, cities)
        assert _forms(srv) == ["json_schema"]
    assert result.answer.output_mode == "native" and result.answer.source == "composed"
    assert result.output.splitlines()[:3] == [line(c) for c in cities]


class Unnamed(Policy):
    """Writes each result's line without its city, as the 1.5B model did under the schema."""

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> str:
        reply = super().__call__(messages, tools)
        if messages[0]["content"] != ANSWER_SYSTEM:
            return reply
        return "\n".join(re.sub(r"^城\d+市", "", line) for line in reply.splitlines())


def test_a_schema_held_line_that_leaves_out_its_subject_is_led_by_it():
    cities = [city(i) for i in range(3)]
    with SimulatedOpenAIServer(Unnamed(cities)) as srv:
        result = _run(srv, cities)
    assert result.answer.output_mode == "native"
    assert result.output.splitlines()[:3] == [f"{c}：{line(c)[len(c) + 1 :]}" for c in cities]


def test_a_text_reply_has_no_keys_so_its_lines_get_no_label():
    cities = [city(i) for i in range(3)]
    with SimulatedOpenAIServer(Unnamed(cities), response_formats=("text",)) as srv:
        result = _run(srv, cities)  # text replies: no keys, so no label either
    assert result.answer.output_mode == "text"
    assert result.output.splitlines()[:3] == [line(c)[len(c) + 1 :] for c in cities]


def test_a_server_that_refuses_the_schema_costs_one_refusal_then_text():
    cities = [city(i) for i in range(3)]
    with SimulatedOpenAIServer(Policy(cities), response_formats=("text",)) as srv:
        first = _run(srv, cities)
        again = _run(srv, cities)  # a new agent on the same server: it already knows
        statuses = [r.status for r in srv.chat_requests]
        assert _forms(srv) == ["json_schema", None, None]
    assert statuses.count(422) == 1
    for result in (first, again):
        assert result.stop_reason is StopReason.FINAL and result.answer.output_mode == "text"
        assert all(line(c) in result.output for c in cities)
    assert first.answer.note.startswith("the server refused the schema (json_schema)")
    assert first.answer.note.endswith("asked for text")


def test_llama_cpp_pythons_refusal_names_its_own_form_which_is_tried_next():
    cities = [city(i) for i in range(3)]
    formats = ("text", "json_object")  # what llama-cpp-python's server takes
    with SimulatedOpenAIServer(Policy(cities), response_formats=formats) as srv:
        result = _run(srv, cities)
        assert _forms(srv) == ["json_schema", "json_object"]
    assert result.answer.output_mode == "native"
    assert result.answer.note.endswith("asked with json_object_schema")
    assert all(line(c) in result.output for c in cities)


def test_thirty_results_that_overflow_the_context_are_written_in_batches_none_dropped():
    cities = [city(i) for i in range(30)]
    policy = Policy(cities)
    # The acting window holds 800 tokens; the 30 results take about 1,400.
    # The stage writes (compose): these cities are numbers the question holds, and their
    # temperatures are those numbers too (城20 at 20℃), so no value could prove a draft
    # short; what is tested here is the writing in batches.
    with SimulatedOpenAIServer(policy, context_limit=1000) as srv:
        result = _run(
            srv, cities, max_loops=20, memory=None, answer=Answer(mode="compose", output="text")
        )
    assert result.stop_reason is StopReason.FINAL and result.answer.complete
    assert all(line(c) in result.output for c in cities)
    assert result.answer.calls > 1  # split after the server said the prompt was too long
    assert result.output.strip().endswith("总结：都是多云。")  # the last batch sums up
    written = [len(re.findall(r"^\d+\.", m[-1]["content"], re.M)) for m in policy.answer_requests]
    assert sum(n for n in written if n) >= 30

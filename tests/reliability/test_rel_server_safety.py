"""Issue 37: nothing the library sends can harm a local model server, and a failed call is
never shown as done.

1. Every schema key the answer stage sends is plain (a grammar converter cannot choke on it),
   whatever the calls' inputs hold: quotes, backslashes, braces, newlines, 10 kB.
2. The reply budget holds on servers that read only ``max_tokens``: the request carries it
   beside the ``max_completion_tokens`` newer clients send, and after a cut reply both grow.
3. A result that is an error by the tool's own convention (``ERROR:``, an exception, a JSON
   object whose first key is ``error``) is a failure in the ledger and the window; a call
   refused before it runs (input that does not fit) is shown to the model with the reason.

The real servers (llama-cpp-python, upstream llama-server) are checked by
``make check-local-servers`` (benchmarks/real/server_checks.py).
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, ToolMessage
from langchain_core.tools import StructuredTool, tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from lcel_agent import ErrorClass, StopReason, create_agent
from lcel_agent.rules.gathered import Result
from lcel_agent.stages.answer._request import Batch, lines_schema, plain_key
from lcel_agent.stages.llm_client import is_own_client
from lcel_agent.testing import FunctionChatModel
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.texts import ANSWER_SYSTEM

pytestmark = pytest.mark.usefixtures("closes_async_clients")

# A key llama.cpp's schema-to-grammar converters (C++ and llama-cpp-python's Python one)
# write into a GBNF string literal as it is: word characters of any script, space, . - _
SAFE_KEY = re.compile(r"\d+(?:\. [\w .-]*[\w])?|summary")

HOSTILE = [
    '{"source": "log.txt", "destination": ',
    'say "hi"',
    "C:\\temp\\new",
    "{}[]<>|&;$`",
    "line one\nline two\r\n\ttab",
    "\x00\x1f\u2028\u2029",
    "x" * 10_000,
    '"' * 50,
    "北京",
    "São Paulo",
]


@pytest.mark.parametrize("subject", HOSTILE)
def test_schema_keys_are_plain_whatever_the_inputs(subject):
    results = tuple(Result("t", f"{subject}{i}", "r") for i in range(3))
    schema = lines_schema(Batch(results, 1, True))
    keys = list(schema["properties"])
    assert keys == schema["required"] and len(set(keys)) == len(keys) == 4
    for key in keys:
        assert SAFE_KEY.fullmatch(key), key
        assert len(key) <= 24
    # The schema is JSON with no character a grammar literal would have to escape.
    assert not re.search(r'["\\\n\r\t{}]', "".join(keys))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300), st.integers(min_value=1, max_value=9999))
def test_any_subject_gives_a_plain_numbered_key(subject, number):
    key = plain_key(number, subject)
    assert key.startswith(str(number)) and len(key) <= 24
    assert SAFE_KEY.fullmatch(key), key


def test_a_readable_subject_keeps_its_words():
    assert plain_key(1, "北京") == "1. 北京"
    assert plain_key(2, '{"source": "log.txt"}') == "2. source log.txt"
    assert plain_key(3, '"""') == "3"


# --- 2. the reply budget ------------------------------------------------------------------


def _local(srv: SimulatedOpenAIServer, **options: Any) -> ChatOpenAI:
    return ChatOpenAI(
        model="local", base_url=srv.base_url, api_key=SecretStr("sk-loc-7f3Qz9LmV2xK8pRt"),
        timeout=10, **options,
    )  # fmt: skip


def _close(llm: ChatOpenAI) -> None:
    if is_own_client(llm.root_client):
        llm.root_client.close()


def test_the_reply_budget_reaches_a_server_that_reads_only_max_tokens():
    with SimulatedOpenAIServer(['{"action": "final", "action_input": "ok"}']) as srv:
        llm = _local(srv, max_tokens=512)
        try:
            result = create_agent(llm, [], llm_backoff=(0.0, 0.0)).invoke("hi")
        finally:
            _close(llm)
        (request,) = srv.chat_requests
    assert result.stop_reason is StopReason.FINAL
    body = request.body or {}
    assert body.get("max_tokens") == 512
    # The client's own key stays as it sends it (langchain-openai 0.2 sends max_tokens itself).
    assert body.get("max_completion_tokens", 512) == 512


def test_after_a_cut_reply_both_limits_grow_together():
    long = json.dumps({"action": "final", "action_input": "很长的回答" * 200}, ensure_ascii=False)
    with SimulatedOpenAIServer([long, '{"action": "final", "action_input": "短"}']) as srv:
        llm = _local(srv, max_tokens=20)
        try:
            result = create_agent(llm, [], llm_backoff=(0.0, 0.0)).invoke("hi")
        finally:
            _close(llm)
        bodies = [r.body or {} for r in srv.chat_requests]
    assert result.output == "短"
    assert [b.get("max_tokens") for b in bodies] == [20, 40]
    assert [b.get("max_completion_tokens", b.get("max_tokens")) for b in bodies] == [20, 40]


def test_openai_itself_gets_no_second_limit():
    from lcel_agent.stages.llm_profile import legacy_limit_body

    assert legacy_limit_body(ChatOpenAI(model="gpt-4o-mini", api_key="sk-x", max_tokens=9)) is None
    local = ChatOpenAI(model="m", api_key="sk-x", base_url="http://127.0.0.1:9/v1")
    assert legacy_limit_body(local) is None  # no limit set: nothing to add


# --- 3. failures by the tool's own convention ---------------------------------------------


def _backend(**kwargs: Any) -> dict[str, str]:
    return {"error": f"cd: {kwargs['folder']}: No such directory"}


cd = StructuredTool.from_function(
    _backend,
    name="cd",
    description="Change the current directory.",
    args_schema={
        "type": "object",
        "properties": {"folder": {"type": "string"}},
        "required": ["folder"],
    },
)


@tool
def mv(source: str, destination: str) -> str:
    """Move a file."""
    return f"moved {source} to {destination}"


def _scripted(replies: list[Any], seen: list[list[Any]]) -> FunctionChatModel:
    def reply(messages: list[Any], tools: list[dict[str, Any]]) -> Any:
        seen.append(list(messages))
        return replies[min(len(seen), len(replies)) - 1]

    return FunctionChatModel(fn=reply)


def test_an_error_object_is_a_failure_in_the_ledger(run):
    seen: list[list[Any]] = []
    replies = [
        '{"action": "cd", "action_input": {"folder": "tmp"}}',
        '{"action": "mv", "action_input": {"source": "a", "destination": "b"}}',
        '{"action": "final", "action_input": "moved a to b; tmp does not exist"}',
    ]
    agent = create_agent(_scripted(replies, seen), [cd, mv], max_errors=3)
    result = run(agent, "go to tmp, then move a to b")
    first = result.steps[0]
    assert first.error_class is ErrorClass.TOOL_FAILURE
    assert not first.observations[0].ok
    assert "No such directory" in first.observations[0].output
    # The answer stage gathers only what succeeded; the window's ledger marks the failure.
    assert result.answer is None or [c for c in result.answer.unused] == []
    shown = "\n".join(str(m.content) for m in seen[-1])
    assert "cd(" in shown and "✓" not in shown.split("cd(", 1)[1].split("\n", 1)[0]


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
def test_a_refused_call_is_shown_with_its_reason(run, protocol):
    seen: list[list[Any]] = []
    if protocol == "json":
        replies: list[Any] = [
            '{"action": "mv", "action_input": {"source": "a", "dest": "b"}}',
            '{"action": "mv", "action_input": {"source": "a", "destination": "b"}}',
            '{"action": "final", "action_input": "moved a to b"}',
        ]
    else:
        replies = [
            AIMessage(content="", tool_calls=[
                {"name": "mv", "args": {"source": "a", "dest": "b"}, "id": "c1"}]),
            AIMessage(content="", tool_calls=[
                {"name": "mv", "args": {"source": "a", "destination": "b"}, "id": "c2"}]),
            "moved a to b",
        ]  # fmt: skip
    agent = create_agent(_scripted(replies, seen), [mv], protocol=protocol)
    result = run(agent, "move a to b")
    assert result.stop_reason is StopReason.FINAL and result.output == "moved a to b"
    refused = result.steps[0].observations[0]
    assert refused.error_class is ErrorClass.BAD_ARGUMENTS and refused.attempts == 0
    # The second prompt carries the reason and the schema, where the model reads results.
    shown = [m for m in seen[1] if protocol == "json" or isinstance(m, ToolMessage)]
    text = "\n".join(str(m.content) for m in shown)
    assert "'destination' is missing" in text and "'dest' is not an argument" in text
    assert "{source: string, destination: string}" in text


def test_safe_coercions_fit_the_schema_without_a_refusal(run):
    calls: list[Any] = []

    def grep(**kwargs: Any) -> str:
        calls.append(kwargs)
        return "3 matches"

    search = StructuredTool.from_function(
        grep,
        name="grep",
        description="Search files.",
        args_schema={
            "type": "object",
            "properties": {
                "pattern": {"type": "string"},
                "files": {"type": "array", "items": {"type": "string"}},
                "max_count": {"type": "integer"},
                "ignore_case": {"type": "boolean"},
            },
            "required": ["pattern", "files"],
        },
    )
    reply = {"pattern": 404, "files": "log.txt", "max_count": "3", "ignore_case": "true"}
    replies = [
        json.dumps({"action": "grep", "action_input": reply}),
        '{"action": "final", "action_input": "3"}',
    ]
    result = run(create_agent(_scripted(replies, []), [search]), "grep 404 in log.txt")
    assert result.steps[0].observations[0].ok
    assert calls == [{"pattern": "404", "files": ["log.txt"], "max_count": 3, "ignore_case": True}]


def test_a_stage_answer_request_uses_plain_keys_on_the_wire():
    hostile = '{"source": "log.txt", "destination": '

    @tool
    def read(path: str) -> str:
        """Read a file."""
        return f"{path}: 42 lines"

    class Policy:
        def __call__(self, messages: list[dict[str, Any]], tools: Any) -> str:
            if messages[0]["content"] == ANSWER_SYSTEM:
                return "\n".join(["a: 42 lines", "b: 42 lines", "both have 42 lines"])
            if any(m["role"] == "user" and "42 lines" in str(m["content"]) for m in messages):
                return '{"action": "final", "action_input": "' + "lines " * 3 + '"}'
            return json.dumps([{"action": "read", "action_input": hostile + s} for s in "ab"])

    with SimulatedOpenAIServer(Policy()) as srv:
        llm = _local(srv)
        try:
            create_agent(llm, [read], llm_backoff=(0.0, 0.0), answer="compose").invoke("read both")
        finally:
            _close(llm)
        formats = [
            (r.body or {}).get("response_format")
            for r in srv.chat_requests
            if (r.body or {}).get("messages", [{}])[0].get("content") == ANSWER_SYSTEM
        ]
    schemas = [f["json_schema"]["schema"] for f in formats if f and f.get("type") == "json_schema"]
    assert schemas, formats
    for schema in schemas:
        for key in schema["properties"]:
            assert SAFE_KEY.fullmatch(key), key

"""The faults that damage an answer, and the 401 that quotes the key, as the ``openai`` client sees them."""

from __future__ import annotations

import json

import openai
import pytest

from lcel_agent.memory.counters import default_exact_counter
from lcel_agent.testing.faults import REPLY_FAULTS, Fault, FaultProfile, FaultSpec
from lcel_agent.testing.policies import Reply, ScriptedPolicy
from lcel_agent.testing.server import completion_tokens, cut_reply

pytest_plugins = ["lcel_agent.testing.fixtures"]

COUNT = default_exact_counter()
HELLO = [{"role": "user", "content": "你好"}]
CALL = {"name": "get_weather", "arguments": {"city": "San Francisco", "unit": "celsius"}}
FULL_ARGS = json.dumps(CALL["arguments"], ensure_ascii=False)
TEXT = "Paris is sunny and warm today, about 25 degrees, with a light breeze from the west."


def _streamed(chunks) -> tuple[str, str, list[str | None]]:
    """(text, tool-call arguments, finish reasons) of a list of stream chunks."""
    text, args, finishes = "", "", []
    for chunk in chunks:
        for choice in chunk.choices:
            text += choice.delta.content or ""
            for call in choice.delta.tool_calls or []:
                args += (call.function.arguments or "") if call.function else ""
            finishes.append(choice.finish_reason)
    return text, args, finishes


def test_length_cuts_text_and_tool_arguments_plain(simulated_openai, oai):
    policy = ScriptedPolicy(["unused"])
    srv = simulated_openai(policy)
    srv.inject(Fault.LENGTH, reply=CALL)
    srv.inject(Fault.LENGTH, reply=TEXT)
    client = oai(srv)
    call_out = client.chat.completions.create(model="m", messages=HELLO)
    text_out = client.chat.completions.create(model="m", messages=HELLO)
    assert call_out.choices[0].finish_reason == text_out.choices[0].finish_reason == "length"
    (call,) = call_out.choices[0].message.tool_calls or []
    assert FULL_ARGS.startswith(call.function.arguments)
    assert call.function.arguments != FULL_ARGS  # cut inside the arguments
    with pytest.raises(json.JSONDecodeError):
        json.loads(call.function.arguments)
    content = text_out.choices[0].message.content or ""
    assert content and TEXT.startswith(content) and content != TEXT
    assert [r.fault for r in srv.chat_requests] == [Fault.LENGTH, Fault.LENGTH]
    assert policy.remaining == 1  # reply= spared the policy's script


def test_length_streamed_ends_with_finish_reason_length(simulated_openai, oai):
    srv = simulated_openai(["unused"])
    srv.inject(Fault.LENGTH, reply=CALL)
    chunks = list(oai(srv).chat.completions.create(model="m", messages=HELLO, stream=True))
    _, args, finishes = _streamed(chunks)
    assert FULL_ARGS.startswith(args) and args != FULL_ARGS
    assert [f for f in finishes if f is not None] == ["length"]


def test_max_tokens_cuts_tool_call_arguments_too(simulated_openai, oai):
    srv = simulated_openai([CALL])
    out = oai(srv).chat.completions.create(model="m", messages=HELLO, max_tokens=6)
    assert out.choices[0].finish_reason == "length"
    (call,) = out.choices[0].message.tool_calls or []
    assert FULL_ARGS.startswith(call.function.arguments) and call.function.arguments != FULL_ARGS
    assert out.usage is not None and out.usage.completion_tokens <= 6


def test_cut_reply_keeps_the_longest_beginning_and_drops_later_calls():
    second = {"name": "search_baidu", "arguments": {"query": "weather in Paris"}}
    reply = Reply(content="Checking.", tool_calls=(CALL, second))
    whole = completion_tokens(reply, COUNT)
    one_short = cut_reply(reply, whole - 1, COUNT)
    assert one_short.finish == "length" and one_short.content == "Checking."
    assert one_short.tool_calls[0]["arguments"] == FULL_ARGS  # the first call fits whole
    second_args = one_short.tool_calls[1]["arguments"]
    assert reply.arguments_json(1).startswith(second_args)
    assert second_args != reply.arguments_json(1)  # the second is cut inside its arguments
    assert completion_tokens(one_short, COUNT) <= whole - 1
    text_only = cut_reply(reply, COUNT("Checking.") + COUNT("get_weather") - 1, COUNT)
    assert (text_only.content, text_only.tool_calls) == ("Checking.", ())  # no room for a call


@pytest.mark.parametrize("reply", [CALL, TEXT], ids=["tool_call", "text"])
def test_stream_cut_ends_cleanly_without_a_finish_reason(simulated_openai, oai, reply):
    srv = simulated_openai(["unused"])
    srv.inject(Fault.STREAM_CUT, reply=reply)
    stream = oai(srv).chat.completions.create(
        model="m", messages=HELLO, stream=True, stream_options={"include_usage": True}
    )
    chunks = list(stream)  # no exception: the body ended properly
    text, args, finishes = _streamed(chunks)
    assert finishes and all(f is None for f in finishes)
    assert all(c.usage is None for c in chunks)
    if reply is CALL:
        assert FULL_ARGS.startswith(args) and args != FULL_ARGS
    else:
        assert text and TEXT.startswith(text) and text != TEXT


async def test_stream_cut_ends_cleanly_without_a_finish_reason_async(simulated_openai, aoai):
    srv = simulated_openai(["unused"])
    srv.inject(Fault.STREAM_CUT, reply=CALL)
    stream = await aoai(srv).chat.completions.create(model="m", messages=HELLO, stream=True)
    _, args, finishes = _streamed([c async for c in stream])
    assert all(f is None for f in finishes)
    assert FULL_ARGS.startswith(args) and args != FULL_ARGS


def test_stream_cut_not_streamed_has_a_null_finish_reason(simulated_openai, oai):
    srv = simulated_openai(["unused"])
    srv.inject(Fault.STREAM_CUT, reply=TEXT)
    out = oai(srv).chat.completions.create(model="m", messages=HELLO)
    assert out.choices[0].finish_reason is None
    assert TEXT.startswith(out.choices[0].message.content or "-")


def test_corrupt_chunk_breaks_the_stream_after_some_deltas(simulated_openai, oai):
    srv = simulated_openai(["unused"])
    srv.inject(Fault.CORRUPT_CHUNK, reply=TEXT)
    received: list[str] = []
    with pytest.raises(json.JSONDecodeError):
        for chunk in oai(srv).chat.completions.create(model="m", messages=HELLO, stream=True):
            received += [c.delta.content or "" for c in chunk.choices]
    assert "".join(received)  # the first half arrived before the broken event
    (record,) = srv.chat_requests
    assert (record.fault, record.status) == (Fault.CORRUPT_CHUNK, 200)


async def test_corrupt_chunk_breaks_the_stream_async(simulated_openai, aoai):
    srv = simulated_openai(["unused"])
    srv.inject(Fault.CORRUPT_CHUNK, reply=CALL)
    stream = await aoai(srv).chat.completions.create(model="m", messages=HELLO, stream=True)
    with pytest.raises(json.JSONDecodeError):
        async for _ in stream:
            pass


def test_corrupt_chunk_not_streamed_is_a_broken_body(simulated_openai, oai):
    srv = simulated_openai(["unused"])
    srv.inject(Fault.CORRUPT_CHUNK, reply=TEXT)
    with pytest.raises(json.JSONDecodeError):
        oai(srv).chat.completions.create(model="m", messages=HELLO)


def test_a_reply_fault_without_reply_damages_the_policys_answer(simulated_openai, oai):
    policy = ScriptedPolicy([TEXT, "second"])
    srv = simulated_openai(policy)
    srv.inject(Fault.LENGTH)
    client = oai(srv)
    cut = client.chat.completions.create(model="m", messages=HELLO)
    assert TEXT.startswith(cut.choices[0].message.content or "-")
    assert cut.choices[0].finish_reason == "length"
    # The cut answer used up its reply: the model did answer, the provider cut it.
    assert client.chat.completions.create(model="m", messages=HELLO).choices[0].message.content == (
        "second"
    )


def test_a_scripted_reply_fault_names_its_reply(simulated_openai, oai):
    with pytest.raises(ValueError, match="reply="):
        ScriptedPolicy([Fault.STREAM_CUT])
    srv = simulated_openai([FaultSpec(Fault.LENGTH, reply=TEXT), "next"])
    out = oai(srv).chat.completions.create(model="m", messages=HELLO)
    assert out.choices[0].finish_reason == "length"


def test_a_policy_returning_a_reply_fault_without_reply_is_a_clear_500(simulated_openai, oai):
    srv = simulated_openai(lambda messages, tools: Fault.LENGTH)
    with pytest.raises(openai.InternalServerError, match="needs reply="):
        oai(srv).chat.completions.create(model="m", messages=HELLO)


def test_a_profile_draws_reply_faults(simulated_openai, oai):
    srv = simulated_openai(lambda m, t: TEXT, faults=FaultProfile(stream_cut=1.0))
    chunks = list(oai(srv).chat.completions.create(model="m", messages=HELLO, stream=True))
    assert all(f is None for f in _streamed(chunks)[2])
    assert set(REPLY_FAULTS) == {Fault.LENGTH, Fault.STREAM_CUT, Fault.CORRUPT_CHUNK}


def test_a_refused_key_is_echoed_when_asked(simulated_openai, oai):
    srv = simulated_openai(
        ["never"],
        require_key="sk-the-right-key-000000",
        auth_message="Incorrect API key provided: {key_body}",
    )
    with pytest.raises(openai.AuthenticationError) as info:
        oai(srv, key="sk-wrong0key0echoed0back").chat.completions.create(model="m", messages=HELLO)
    assert "wrong0key0echoed0back" in str(info.value)
    assert "sk-wrong0key0echoed0back" not in str(info.value)  # echoed without its prefix
    srv.inject(Fault.AUTH, message="key {key} refused")
    with pytest.raises(openai.AuthenticationError, match="key sk-the-right-key-000000 refused"):
        oai(srv, key="sk-the-right-key-000000").chat.completions.create(model="m", messages=HELLO)


def test_a_retry_after_longer_than_any_cap_is_announced(simulated_openai, oai):
    srv = simulated_openai(["x"])
    srv.inject(Fault.RATE_LIMIT, retry_after=75)
    with pytest.raises(openai.RateLimitError) as info:
        oai(srv).chat.completions.create(model="m", messages=HELLO)
    assert info.value.response.headers["retry-after"] == "75"

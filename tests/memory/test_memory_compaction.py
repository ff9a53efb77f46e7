"""Compaction: turns leave the window, their facts stay, the budget holds."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage

from lcel_agent.memory import (
    AGENT_COMPACTOR,
    HEADER,
    Digest,
    DigestCompactor,
    Fact,
    SlidingWindowMemory,
    SummaryCompactor,
    head_text,
    shrink_text,
)
from lcel_agent.memory.counters import count_message, estimate_tokens
from lcel_agent.testing.fake import FunctionChatModel


def recount(memory: SlidingWindowMemory) -> int:
    return sum(count_message(m, memory.counter) for m in memory.messages)


def weather(city: str) -> Fact:
    return Fact(
        f"get_weather({city})",
        f"{city}市天气：晴，温度25℃，湿度40%",
        subject=city,
        key=f"get_weather\x00{city}",
    )


def turn(fact: Fact) -> list[BaseMessage]:
    action = {"action": fact.call.split("(")[0], "action_input": fact.subject}
    return [AIMessage(json.dumps(action, ensure_ascii=False)), HumanMessage(fact.result)]


def window(max_tokens: int = 800, **options) -> SlidingWindowMemory:
    memory = SlidingWindowMemory(max_tokens, compactor=DigestCompactor(**options))
    memory.add_system("Use only these tools.")
    memory.add_user("查询八个城市的天气")
    return memory


def amap_line(city: str) -> str:
    """A weather line as long as real Amap's (about 90 characters)."""
    return (
        f"{city}市天气：晴，温度25℃，湿度40%，东北风≤3级，体感温度23℃，"
        "空气质量良，紫外线中等，能见度10公里，发布时间2026-12-03 16:00:00"
    )


def test_while_there_is_room_every_turn_stays_word_for_word():
    memory = window()  # the default compactor
    for city in ("北京", "上海", "广州"):
        memory.add_turn(turn(weather(city)), facts=[weather(city)])
    # The model sees its own actions and their results as turns, in order; no digest yet.
    assert [m.type for m in memory.messages] == ["system", "human", *["ai", "human"] * 3]
    assert memory.messages[1].content == "查询八个城市的天气" and memory.compacted == 0
    assert [m.content for m in memory.messages[3::2]] == [
        weather(c).result for c in ("北京", "上海", "广州")
    ]
    assert memory.token_count == recount(memory) <= memory.max_tokens


def test_compaction_starts_when_the_window_is_full_and_folds_the_oldest_turns():
    memory = window(300)
    cities = [f"城{i}" for i in range(12)]
    for city in cities:
        before = memory.turns
        memory.add_turn(turn(weather(city)), facts=[weather(city)])
        if memory.compacted == 0:
            assert memory.turns == before + 1  # nothing folded while it fits
    assert memory.compacted > 0 and memory.token_count == recount(memory) <= 300
    question = memory.messages[1].content
    kept = [m.content for m in memory.messages[3::2]]
    folded = cities[: len(cities) - len(kept)]
    # The oldest whole turns became lines; the newest ones are still turns, in order.
    assert kept == [weather(c).result for c in cities[len(folded) :]]
    assert all(f"{c}市天气" in question for c in folded)
    assert kept[-1] == weather(cities[-1]).result  # the newest turn is never cut


def test_a_turn_that_leaves_keeps_its_fact_in_the_digest():
    memory = window(keep_turns=1)
    for city in ("北京", "上海", "广州"):
        memory.add_turn(turn(weather(city)), facts=[weather(city)])
    question = memory.messages[1]
    # keep_turns=1: only the newest turn stays word for word; the others are lines.
    assert [m.type for m in memory.messages] == ["system", "human", "ai", "human"]
    assert question.content.startswith("查询八个城市的天气\n\n" + HEADER)
    assert "北京市天气：晴" in question.content and "上海市天气：晴" in question.content
    assert "广州市天气" not in question.content  # still word for word below
    assert memory.compacted == 2 and memory.digest_tokens > 0
    assert memory.token_count == recount(memory) <= memory.max_tokens


def test_a_turn_its_lines_say_in_full_is_folded_at_once_when_eager():
    memory = window(eager=True, keep_turns=1)
    memory.add_turn(turn(weather("北京")), facts=[weather("北京")])
    assert [m.type for m in memory.messages] == ["system", "human"]
    assert memory.messages[1].content.endswith("北京市天气：晴，温度25℃，湿度40%")
    long = Fact("search(台风)", "台风 " * 300, subject="台风", key="search\x00台风")
    memory.add_turn(turn(long), facts=[long])
    # Too long for one line: the model reads it whole once, as the newest turn.
    assert memory.messages[-1].content == long.result


def test_a_full_window_keeps_every_fact_where_a_plain_one_forgets():
    plain = SlidingWindowMemory(800, compactor=None)
    compact = SlidingWindowMemory(800)
    cities = [f"城{i}" for i in range(30)]
    for memory in (plain, compact):
        memory.add_system("Use only these tools.")
        memory.add_user("查询三十个城市的天气")
        for city in cities:
            memory.add_turn(turn(weather(city)), facts=[weather(city)])
    seen = " ".join(str(m.content) for m in compact.messages)
    assert all(f"{c}市天气" in seen for c in cities)
    assert "城0市天气" not in " ".join(str(m.content) for m in plain.messages)
    assert compact.token_count <= 800 and plain.token_count <= 800


def test_digest_lines_all_shrink_before_any_fact_is_dropped():
    memory = window(800)
    facts = [
        Fact(f"get_weather({c})", amap_line(c), subject=c, key=f"get_weather\x00{c}")
        for c in [f"城{i}" for i in range(22)]
    ]
    for fact in facts:
        memory.add_turn(turn(fact), facts=[fact])
        assert memory.token_count == recount(memory) <= 800
    # 22 lines of ~60 tokens do not fit whole; shortened, every city still has its line.
    assert memory.digest.dropped == 0 and memory.truncated == 0
    seen = " ".join(str(m.content) for m in memory.messages)
    assert all(f"{f.subject}市天气：晴，温度25℃" in seen for f in facts)
    assert memory.messages[-1].content == facts[-1].result  # the newest turn whole


def test_a_failed_turn_leaves_when_a_later_one_succeeds():
    memory = window()
    garbled = [AIMessage('{"action": "get_wea'), HumanMessage("Reply again with JSON only")]
    memory.add_turn(garbled, failed=True)
    assert memory.messages[-2].content == '{"action": "get_wea'  # shown until resolved
    failed_call = Fact("get_weather(火星)", "ERROR: 城市不存在\nTry another way.", ok=False)
    memory.add_turn(turn(failed_call), facts=[failed_call], failed=True)
    memory.add_turn(turn(weather("北京")), facts=[weather("北京")])
    text = memory.messages[1].content
    # The garbled reply is gone without a trace; the failed call left one line; the
    # success is the newest turn, word for word.
    assert [m.type for m in memory.messages] == ["system", "human", "ai", "human"]
    assert '{"action": "get_wea' not in [m.content for m in memory.messages]
    assert '{"action": "get_wea' not in text
    assert "✗ get_weather(火星): ERROR: 城市不存在" in text and "Try another" not in text
    assert memory.messages[-1].content == weather("北京").result


def test_a_newer_result_of_the_same_call_replaces_the_older_line():
    memory = window(keep_turns=1)
    timeout = Fact("get_weather(北京)", "ERROR: timed out", ok=False, key="get_weather\x00北京")
    memory.add_turn(turn(timeout), facts=[timeout], failed=True)
    memory.add_turn(turn(weather("上海")), facts=[weather("上海")])
    assert "✗ get_weather(北京)" in memory.messages[1].content
    memory.add_turn(turn(weather("北京")), facts=[weather("北京")])
    memory.add_turn(turn(weather("广州")), facts=[weather("广州")])
    text = memory.messages[1].content
    assert "✗" not in text and text.count("北京市天气") == 1


def test_old_lines_become_ledger_lines_within_the_budget_and_no_call_is_forgotten():
    memory = window(400, line_tokens=40)
    cities = [f"城{i}" for i in range(40)]
    for city in cities:
        memory.add_turn(turn(weather(city)), facts=[weather(city)])
        assert memory.token_count == recount(memory) <= memory.max_tokens
    text = memory.messages[1].content
    assert "城39市天气" in memory.messages[-1].content and "城0市天气" not in text
    # The oldest calls lost their results, never their line: every city is still named.
    assert "get_weather(城0) ✓" in text and memory.digest.dropped == 0
    assert all(f"get_weather({c})" in text or f"{c}市天气" in text for c in cities[:-1])


def test_ledger_lines_stay_even_past_the_budget_and_say_what_was_called():
    memory = window(200, line_tokens=40)
    for i in range(40):
        memory.add_turn(turn(weather(f"城{i}")), facts=[weather(f"城{i}")])
        assert memory.token_count == recount(memory)
    text = memory.messages[1].content
    assert all(f"get_weather(城{i})" in text for i in range(39)) and memory.digest.dropped == 0
    # Only the ledger can hold the window over its budget: the turns went first.
    assert memory.token_count > memory.max_tokens and memory.turns == 0


def test_the_newest_step_added_message_by_message_is_never_cut():
    # The window's public API, one message at a time, far past the budget.
    memory = SlidingWindowMemory(800)
    memory.add_system("Reply with one JSON action.")
    memory.add_user("查询六十个城市的天气")
    for i in range(60):
        action = json.dumps({"action": "get_weather", "action_input": f"城{i}"}, ensure_ascii=False)
        memory.add_assistant(action)
        memory.add_observation(amap_line(f"城{i}"))
        assert memory.token_count == recount(memory) <= 800
        assert [m.content for m in memory.messages[-2:]] == [action, amap_line(f"城{i}")]
    assert memory.truncated == 0


def test_a_long_history_keeps_its_newest_turns_whole():
    memory = SlidingWindowMemory(600)
    memory.add_system("s")
    for i in range(20):
        memory.add_user(f"第{i}个问题：{'北京' * 10}")
        memory.add_assistant(f"第{i}个回答：" + "上海的天气很好，" * 6)
    memory.add_user("最后的问题")
    contents = [str(m.content) for m in memory.messages]
    assert memory.token_count == recount(memory) <= 600 and memory.truncated == 0
    assert contents[-3:] == [
        f"第19个问题：{'北京' * 10}",
        "第19个回答：" + "上海的天气很好，" * 6,
        contents[-1],
    ]
    assert contents[-1].startswith("最后的问题")


def test_a_json_result_is_kept_item_by_item():
    items = [{"title": f"台风新闻{i}", "link": f"http://example.com/{i}"} for i in range(5)]
    text = "Observation: " + json.dumps(items, ensure_ascii=False)
    short = shrink_text(text, 40, estimate_tokens)
    kept = json.loads(short[short.index("[") : short.index("] …") + 1])
    assert kept == items[: len(kept)] and 1 <= len(kept) < 5
    assert short.endswith(f"…(+{5 - len(kept)} more)") and estimate_tokens(short) <= 40
    assert head_text("abcdefghij" * 20, 10, len).endswith("…")
    assert shrink_text("x" * 500, 60, len).count("…[truncated ") == 1


def test_sessions_keep_facts_and_failures_across_a_round_trip():
    memory = window()
    memory.add_turn(turn(weather("北京")), facts=[weather("北京")])
    garbled = [AIMessage("??"), HumanMessage("Reply again")]
    memory.add_turn(garbled, failed=True)
    again = SlidingWindowMemory.from_dict(json.loads(json.dumps(memory.to_dict())))
    assert again.messages == memory.messages and again.token_count == memory.token_count
    again.add_turn(turn(weather("上海")), facts=[weather("上海")])
    assert "??" not in str([m.content for m in again.messages])  # still known as failed


def test_a_window_stored_in_the_first_format_still_loads():
    old = {
        "version": 1,
        "max_tokens": 800,
        "system": [],
        "question": [{"type": "human", "data": {"content": "q", "type": "human"}}],
        "turns": [[{"type": "ai", "data": {"content": "a", "type": "ai"}}]],
        "history": 0,
    }
    memory = SlidingWindowMemory.from_dict(old, compactor=None)
    assert [m.content for m in memory.messages] == ["q", "a"]


def test_a_question_that_fills_the_window_is_reported(caplog):
    memory = SlidingWindowMemory(100)
    with caplog.at_level(logging.WARNING, logger="lcel_agent.memory"):
        memory.add_user("北京" * 60)
    assert "little room" in caplog.text


@pytest.mark.parametrize(("question_chars", "warned"), [(3_000, False), (3_600, True)])
def test_a_large_window_warns_only_when_under_200_tokens_are_left(caplog, question_chars, warned):
    # A window grown for many tools' descriptions: 2,200 of 2,800 tokens pinned (over 3/4)
    # leaves 600, room enough; 2,640 pinned leaves 160, and that is little room.
    memory = SlidingWindowMemory(2_800)
    with caplog.at_level(logging.WARNING, logger="lcel_agent.memory"):
        memory.add_user("北京" * (question_chars // 2))
    assert memory.pinned_tokens * 4 > memory.max_tokens * 3
    assert (memory.max_tokens - memory.pinned_tokens < 200) is warned
    assert ("little room" in caplog.text) is warned


def test_the_default_window_compacts_and_the_plain_one_does_not():
    assert isinstance(SlidingWindowMemory().compactor, DigestCompactor)
    assert SlidingWindowMemory(compactor=None).compactor is None
    assert SlidingWindowMemory(100).fresh().compactor is SlidingWindowMemory(100).compactor
    with pytest.raises(TypeError):
        SlidingWindowMemory(compactor="digest")  # type: ignore[arg-type]


# --- a model-written summary ---------------------------------------------------------------


def notes_model(calls: list[list[BaseMessage]], fail: bool = False) -> FunctionChatModel:
    def reply(messages, tools):
        calls.append(messages)
        if fail:
            raise RuntimeError("summariser down")
        text = messages[-1].content
        return AIMessage("\n".join(line for line in text.splitlines() if "天气" in line))

    return FunctionChatModel(reply)


def test_a_summary_compactor_spends_and_reports_model_calls():
    calls: list[list[BaseMessage]] = []
    memory = SlidingWindowMemory(800, compactor=SummaryCompactor(notes_model(calls), keep_turns=1))
    memory.add_user("查询天气")
    for city in ("北京", "上海", "广州"):
        memory.add_turn(turn(weather(city)), facts=[weather(city)])
    assert len(calls) == 2 and memory.digest.calls == 2
    # The model's own usage report (this fake estimates it from the messages it got).
    sent = sum(count_message(m, estimate_tokens) for call in calls for m in call)
    assert memory.digest.input_tokens == sent and memory.digest.output_tokens > 0
    assert memory.digest.header == "Summary of earlier steps:"
    assert "上海市天气" in memory.messages[0].content
    assert memory.token_count == recount(memory)


def test_a_failing_summariser_keeps_the_facts_as_lines():
    calls: list[list[BaseMessage]] = []
    compactor = SummaryCompactor(notes_model(calls, True), keep_turns=1)
    memory = SlidingWindowMemory(800, compactor=compactor)
    memory.add_user("查询天气")
    for city in ("北京", "上海", "广州", "深圳"):
        memory.add_turn(turn(weather(city)), facts=[weather(city)])
    assert calls and "北京市天气" in memory.messages[0].content


def test_a_summary_is_written_asynchronously_under_ainvoke():
    calls: list[list[BaseMessage]] = []
    memory = SlidingWindowMemory(800, compactor=SummaryCompactor(notes_model(calls), keep_turns=2))
    memory.add_user("查询天气")

    async def main() -> None:
        for city in ("北京", "上海", "广州"):
            await memory.aadd_turn(turn(weather(city)), facts=[weather(city)])

    asyncio.run(main())
    assert len(calls) == 1 and "北京市天气" in memory.messages[0].content


# --- the property: whatever is added, accounting is exact and the budget holds -----------

texts = st.one_of(st.text(max_size=30), st.builds(lambda n: "北京天气" * n, st.integers(0, 200)))
steps = st.lists(
    st.tuples(
        st.sampled_from(["ok", "failed", "failed_call", "plain", "question", "tool"]),
        texts,
        st.integers(0, 5),
    ),
    max_size=30,
)


@settings(max_examples=150, deadline=None)
@given(
    steps=steps,
    max_tokens=st.integers(40, 600),
    options=st.sampled_from(
        [{}, {"eager": True, "keep_turns": 1}, {"keep_turns": 0}, {"keep_turns": 2}]
    ),
)
def test_compaction_keeps_the_window_exact_bounded_and_well_formed(steps, max_tokens, options):
    memory = SlidingWindowMemory(max_tokens, compactor=DigestCompactor(**options))
    memory.add_system("s")
    memory.add_user("q")
    # The default keeps the newest turn whole whenever it fits beside the pinned messages.
    newest_whole = "keep_turns" not in options
    called: set[str] = set()
    for kind, text, n in steps:
        fact = Fact(f"t({n})", text or "r", subject=str(n), key=f"t\x00{n}")
        added: list[BaseMessage] = []
        if kind == "ok":
            added = [AIMessage(f"call {n}"), HumanMessage(text)]
            memory.add_turn(added, facts=[fact])
        elif kind == "failed":
            added = [AIMessage(text), HumanMessage("again")]
            memory.add_turn(added, failed=True)
        elif kind == "failed_call":
            bad = Fact(f"t({n})", "ERROR: " + text, ok=False, key=f"t\x00{n}")
            added = [AIMessage(f"call {n}"), HumanMessage(bad.result)]
            memory.add_turn(added, facts=[bad], failed=True)
        elif kind == "plain":
            memory.add_assistant(text)
            memory.add_observation(text)
            added = [AIMessage(text), HumanMessage(text)]
        elif kind == "tool":
            call = {"id": f"c{n}", "name": "t", "args": {}}
            added = [AIMessage("", tool_calls=[call]), ToolMessage(text, tool_call_id=f"c{n}")]
            memory.add_turn(added)
        else:
            memory.add_user(text or "q2")
        cost = sum(count_message(m, memory.counter) for m in added)
        # ... beside the ledger too, which never leaves (the digest at its smallest).
        room = max_tokens - memory.pinned_tokens - memory.digest_tokens
        if newest_whole and added and cost <= room:
            assert memory.messages[-len(added) :] == added
        assert memory.token_count == recount(memory)
        assert memory.token_count <= max_tokens or memory.turns == 0
        if kind in ("ok", "failed_call"):
            called.add(f"t\x00{n}")
        # No call is forgotten: a turn shows it, or the digest keeps its line (a ledger line
        # at least), whatever the budget.
        shown = {f.identity for f in memory.digest.facts}
        shown |= {
            f"t\x00{m}"
            for m in range(6)
            if any(m_.content == f"call {m}" for m_ in memory.messages)
        }
        assert called <= shown
        kinds = [m.type for m in memory.messages]
        assert kinds[0] == "system"
        # Never two assistant messages in a row, and every tool result follows its call.
        assert all(not (a == b == "ai") for a, b in itertools.pairwise(kinds))
        pending: set[str] = set()
        for message in memory.messages:
            if isinstance(message, AIMessage):
                pending = {c["id"] for c in message.tool_calls if c["id"]}
            elif isinstance(message, ToolMessage):
                assert message.tool_call_id in pending
    restored = SlidingWindowMemory.from_dict(
        json.loads(json.dumps(memory.to_dict())), compactor=DigestCompactor(**options)
    )
    assert restored.token_count == recount(restored) and restored.digest.text == memory.digest.text


def test_digest_round_trips():
    digest = Digest(text="x", facts=(weather("北京"),), dropped=2, calls=1, input_tokens=3)
    assert Digest.from_dict(json.loads(json.dumps(digest.to_dict()))) == digest


def test_a_summariser_that_hangs_is_cut_off_and_its_facts_kept():
    import time

    def slow(messages, tools):
        time.sleep(6)
        return AIMessage("too late")

    compactor = SummaryCompactor(FunctionChatModel(slow), keep_turns=1, timeout=0.2)
    memory = SlidingWindowMemory(800, compactor=compactor)
    memory.add_user("查询天气")
    started = time.monotonic()
    for city in ("北京", "上海"):
        memory.add_turn(turn(weather(city)), facts=[weather(city)])
    assert time.monotonic() - started < 3.0  # not the summariser's 6 s
    assert (
        "北京市天气" in memory.messages[0].content and "too late" not in memory.messages[0].content
    )


# --- sessions: questions after questions keep the roles alternating ------------------------


def alternates(messages: list[BaseMessage]) -> bool:
    """After the system prompt: user first, then user and assistant by turns (tool results
    follow their assistant message)."""
    kinds = [m.type for m in messages if m.type != "system"]
    if kinds and kinds[0] != "human":
        return False
    speaking = [k if k != "tool" else "ai" for k in kinds]
    return all(a != b for a, b in itertools.pairwise(speaking))


@pytest.mark.parametrize("compactor", [None, DigestCompactor()], ids=["plain", "digest"])
def test_the_next_question_never_follows_a_user_message(compactor):
    memory = SlidingWindowMemory(800, compactor=compactor)
    memory.add_system("s")
    memory.add_user("北京呢？")
    memory.add_turn(turn(weather("北京")), facts=[weather("北京")])  # ends with the observation
    memory.add_user("上海呢？")
    assert alternates(memory.messages), [m.type for m in memory.messages]
    memory.add_turn([AIMessage("??"), HumanMessage("Reply again")], failed=True)  # ends failed
    memory.add_user("广州呢？")
    assert alternates(memory.messages), [m.type for m in memory.messages]
    assert "Reply again" not in str([m.content for m in memory.messages])


@settings(max_examples=120, deadline=None)
@given(
    steps=st.lists(
        st.tuples(
            st.sampled_from(["ok", "long", "failed", "answer", "question"]), st.integers(0, 9)
        ),
        max_size=40,
    ),
    max_tokens=st.integers(120, 700),
    compactor=st.sampled_from([None, DigestCompactor(), DigestCompactor(eager=False)]),
)
def test_a_session_alternates_whatever_it_went_through(steps, max_tokens, compactor):
    memory = SlidingWindowMemory(max_tokens, compactor=compactor)
    memory.add_system("s")
    memory.add_user("第一个问题")
    for kind, n in steps:
        if kind == "ok":
            memory.add_turn(turn(weather(f"城{n}")), facts=[weather(f"城{n}")])
        elif kind == "long":
            memory.add_turn([AIMessage(f"call {n}"), HumanMessage("长" * 300)])
        elif kind == "failed":
            memory.add_turn([AIMessage(f"?? {n}"), HumanMessage("Reply again")], failed=True)
        elif kind == "answer":  # a run ends with its answer; the session's next question
            memory.add_turn([AIMessage(f"答案 {n}")], facts=[Fact("final answer", f"答案 {n}")])
            memory.add_user(f"问题 {n}")
        else:  # a run ends without an answer (a limit stopped it)
            memory.add_user(f"问题 {n}")
        assert alternates(memory.messages), [m.type for m in memory.messages]
        assert memory.token_count == recount(memory)
        assert memory.token_count <= max_tokens or memory.turns == 0


def test_the_newest_result_never_pushes_an_older_fact_out_of_the_digest():
    # Eight weather lines, then a search page of ~230 tokens, under the agent's 250-token
    # digest: the page stays whole only if every older line can keep its result beside it.
    # It cannot, so the page is shortened like the rest (its first hit kept) and every
    # city's weather stays in view: a model answering from the window needs them all.
    memory = SlidingWindowMemory(800, compactor=AGENT_COMPACTOR)
    memory.add_system("s")
    memory.add_user("q")
    cities = ["北京", "上海", "广州", "深圳", "杭州", "南京", "成都", "武汉"]
    for city in cities:
        line = f"{city}市天气：晴，温度25℃，湿度40%"
        memory.add_turn([AIMessage(f"call {city}"), HumanMessage(line)],
                        facts=[Fact(f"get_weather({city})", line, subject=city)])  # fmt: skip
    encoded = (
        "%E5%8F%B0%E9%A3%8E%E6%9C%80%E6%96%B0%E8%B7%AF%E5%BE%84%E5%8F%B0%E9%A3%8E"  # Baidu-like
    )
    hits = [{"title": f"台风最新路径 第{i}条", "link": f"http://www.baidu.com/link?url={encoded}{i}"}
            for i in range(3)]  # fmt: skip
    page = json.dumps(hits, ensure_ascii=False)
    assert 200 < estimate_tokens(page) < 250  # it would fit the digest's 250 tokens alone
    memory.add_turn([AIMessage("call search"), HumanMessage(page)],
                    facts=[Fact("search_baidu(台风最新路径)", page, subject="台风最新路径")])  # fmt: skip
    memory.add_turn([AIMessage("call final"), HumanMessage("ok")], failed=True)
    shown = memory.digest.text
    assert all(f"{city}市天气：晴，温度25℃" in shown for city in cities)
    assert "台风最新路径 第0条" in shown  # the page keeps its first hit
    assert page not in shown  # ...but not all of it

"""SlidingWindowMemory and trim_messages: pinning, turns, alternation, truncation, accounting."""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.prompts import ChatPromptTemplate

from lcel_agent.errors import ConfigurationError
from lcel_agent.memory import (
    DEFAULT_COMPACTOR,
    Compactor,
    SlidingWindowMemory,
    trim_memory_runnable,
    trim_messages,
    truncate_text,
)
from lcel_agent.memory.counters import MESSAGE_OVERHEAD, count_message, estimate_tokens
from lcel_agent.texts import RESULT_CUT_CHARS


def recount(memory: SlidingWindowMemory) -> int:
    return sum(count_message(m, memory.counter) for m in memory.messages)


def roles(messages: list[BaseMessage]) -> list[str]:
    return [m.type for m in messages]


#: Both kinds of window: the plain sliding one, and the default that compacts into a digest.
KINDS = pytest.mark.parametrize("compactor", [None, DEFAULT_COMPACTOR], ids=["plain", "digest"])


def agent_window(max_tokens: int = 120, compactor: Compactor | None = None) -> SlidingWindowMemory:
    memory = SlidingWindowMemory(max_tokens, counter=len, compactor=compactor)  # 1 token a char
    memory.add_system("Reply in JSON.")
    memory.add_user("北京和上海的天气？")
    return memory


@KINDS
def test_pinned_messages_survive_any_number_of_turns(compactor):
    memory = agent_window(compactor=compactor)
    for i in range(50):
        memory.add_assistant(f'{{"action": "get_weather", "action_input": "city{i}"}}')
        memory.add_observation(f"city{i}: sunny")
    first, second = memory.messages[:2]
    assert first.content == "Reply in JSON." and isinstance(first, SystemMessage)
    assert second.content.startswith("北京和上海的天气？") and isinstance(second, HumanMessage)
    assert memory.evicted > 0
    assert memory.messages[-1].content == "city49: sunny"  # the newest turn is kept
    assert memory.token_count == recount(memory) <= memory.max_tokens


@KINDS
def test_roles_alternate_after_eviction(compactor):
    memory = agent_window(100, compactor)
    for i in range(30):
        memory.add_assistant(f"action {i}")
        memory.add_observation("result " * (i % 4 + 1))
        kinds = roles(memory.messages)
        assert kinds[:2] == ["system", "human"]
        assert kinds[2:] == ["ai", "human"] * (len(kinds[2:]) // 2)
    assert memory.evicted > 0


@KINDS
def test_an_action_leaves_with_all_its_tool_results(compactor):
    memory = SlidingWindowMemory(200, counter=len, compactor=compactor)
    memory.add_system("s")
    memory.add_user("q")
    for i in range(20):
        calls = [
            {"id": f"c{i}a", "name": "t", "args": {}},
            {"id": f"c{i}b", "name": "t", "args": {}},
        ]
        memory.add_assistant(AIMessage("", tool_calls=calls))
        memory.add_observation("ok", tool_call_id=f"c{i}a")
        memory.add_observation("ok", tool_call_id=f"c{i}b")
        pending: set[str] = set()
        for message in memory.messages[2:]:
            if isinstance(message, AIMessage):
                assert not pending, "a tool result lost its call"
                pending = {c["id"] for c in message.tool_calls if c["id"]}
            else:
                assert isinstance(message, ToolMessage)
                pending.discard(message.tool_call_id)
    assert memory.evicted % 3 == 0 and memory.evicted > 0


@KINDS
def test_oversized_message_is_truncated_with_a_marker_not_dropped(compactor):
    memory = agent_window(300, compactor)
    memory.add_assistant('{"action": "search_baidu", "action_input": "台风"}')
    huge = "HEAD-" + "台风路径" * 2000 + "-TAIL"
    memory.add_observation(huge)
    kept = memory.messages[-1]
    assert isinstance(kept.content, str)
    assert kept.content.startswith("HEAD-") and kept.content.endswith("-TAIL")
    left_out = len(huge) - len(kept.content.split("…")[0]) - len(kept.content.split("…")[-1])
    assert RESULT_CUT_CHARS.format(chars=left_out) in kept.content
    assert memory.truncated == 1
    assert memory.token_count == recount(memory) <= memory.max_tokens
    assert roles(memory.messages) == ["system", "human", "ai", "human"]


def test_truncation_uses_the_room_left_by_the_rest_of_the_turn():
    memory = agent_window(200)
    memory.add_assistant("a" * 60)
    memory.add_observation("b" * 500)
    assert memory.token_count == recount(memory)
    assert memory.max_tokens - 5 <= memory.token_count <= memory.max_tokens


def test_pinned_alone_over_budget_terminates_and_keeps_them():
    memory = SlidingWindowMemory(30, counter=len)
    memory.add_system("s" * 100)
    memory.add_user("q" * 50)
    memory.add_assistant("a")
    memory.add_observation("o")
    assert roles(memory.messages) == ["system", "human"]
    assert memory.token_count == recount(memory) == 150 + 2 * MESSAGE_OVERHEAD
    assert memory.evicted == 2


@KINDS
def test_budget_of_one_token_still_terminates(compactor):
    memory = SlidingWindowMemory(1, compactor=compactor)
    for text in ["x", "北京" * 100, "y"]:
        memory.add_assistant(text)
    assert memory.token_count == recount(memory)
    assert memory.messages == []


def test_replacing_the_system_prompt_updates_the_count():
    memory = agent_window()
    before = memory.token_count
    memory.add_system("A much longer system prompt than before.")
    assert memory.messages[0].content == "A much longer system prompt than before."
    assert memory.token_count == recount(memory) > before


def test_a_later_question_is_pinned_and_the_earlier_one_becomes_history():
    memory = agent_window(110)
    memory.add_assistant("get_weather 北京")
    memory.add_observation("北京：晴")
    memory.add_assistant("final: 晴")
    memory.add_user("那上海呢？")  # the next run of a session
    assert [m.content for m in memory.messages][1:] == [
        "北京和上海的天气？",
        "get_weather 北京",
        "北京：晴",
        "final: 晴",
        "那上海呢？",
    ]
    for i in range(10):
        memory.add_assistant(f"get_weather city{i}")
        memory.add_observation(f"city{i}: 晴")
        kinds = roles(memory.messages)
        assert kinds[0] == "system" and "那上海呢？" in [m.content for m in memory.messages]
        assert all(a != b for a, b in itertools.pairwise(kinds[1:]))
        assert memory.token_count == recount(memory) <= memory.max_tokens
    assert roles(memory.messages)[:2] == ["system", "human"]  # history gone, question stays
    assert memory.messages[1].content == "那上海呢？"
    again = SlidingWindowMemory.from_dict(memory.to_dict(), counter=len, compactor=None)
    assert again.messages == memory.messages


def test_an_observation_after_a_new_question_starts_a_turn_after_it():
    memory = SlidingWindowMemory(10_000, compactor=None)
    memory.add_user("q1")
    memory.add_assistant("a1")
    memory.add_user("q2")
    memory.add_observation("o2")
    assert [m.content for m in memory.messages] == ["q1", "a1", "q2", "o2"]


def test_add_routes_messages_by_role():
    memory = SlidingWindowMemory(10_000, compactor=None)
    memory.add(HumanMessage("q"))
    memory.add(HumanMessage("more context"))  # no turn yet: starts one
    memory.add(AIMessage("a1"))
    memory.add(ToolMessage("r", tool_call_id="x"))
    memory.add(SystemMessage("s"))
    assert [m.content for m in memory.messages] == ["s", "q", "more context", "a1", "r"]
    assert memory.turns == 2 and len(memory) == 5


def test_add_turn_is_evicted_as_one_group():
    memory = SlidingWindowMemory(
        50, counter=len, compactor=None
    )  # 3 x 14 tokens fit, 4 x 14 do not
    memory.add_turn([AIMessage("a" * 10), HumanMessage("b" * 10), HumanMessage("c" * 10)])
    memory.add_turn([AIMessage("d" * 10)])
    assert [m.content[0] for m in memory.messages] == ["d"]
    assert memory.evicted == 3
    with pytest.raises(ConfigurationError):
        memory.add_turn([])
    with pytest.raises(ConfigurationError):
        memory.add_turn([SystemMessage("s")])


def test_clear_fresh_and_copy_are_independent():
    memory = agent_window()
    memory.add_assistant("a")
    twin = memory.copy()
    twin.add_observation("only in the copy")
    assert len(twin) == len(memory) + 1
    assert twin.token_count == recount(twin) and memory.token_count == recount(memory)
    empty = memory.fresh()
    assert (empty.max_tokens, empty.counter, empty.messages) == (120, len, [])
    memory.clear()
    assert memory.messages == [] and memory.token_count == 0 and memory.turns == 0


def test_dict_round_trip_is_json_safe():
    memory = agent_window(400)
    memory.add_assistant(AIMessage("", tool_calls=[{"id": "c1", "name": "t", "args": {"x": 1}}]))
    memory.add_observation("晴", tool_call_id="c1")
    data = json.loads(json.dumps(memory.to_dict()))
    again = SlidingWindowMemory.from_dict(data, counter=len, compactor=None)
    assert again.messages == memory.messages
    assert again.token_count == memory.token_count
    smaller = SlidingWindowMemory.from_dict(data, counter=len, max_tokens=40, compactor=None)
    assert smaller.max_tokens == 40 and smaller.token_count == recount(smaller)
    with pytest.raises(ConfigurationError):
        SlidingWindowMemory.from_dict({**data, "version": 99})


@pytest.mark.parametrize("bad", [0, -5])
def test_bad_budget_is_a_configuration_error(bad):
    with pytest.raises(ConfigurationError):
        SlidingWindowMemory(bad)


def test_non_int_budget_is_a_type_error():
    with pytest.raises(TypeError):
        SlidingWindowMemory(12.5)  # type: ignore[arg-type]


def test_truncate_text_keeps_head_and_tail():
    assert truncate_text("abcdef", 10) == "abcdef"
    assert truncate_text("abcdefghij", 3) == "ab…[truncated 7 chars]…j"
    assert truncate_text("abcdefghij", 0) == "…[truncated 10 chars]…"


# --- the standalone trimmer -----------------------------------------------------------


def conversation(turns: int) -> list[BaseMessage]:
    messages: list[BaseMessage] = [SystemMessage("s"), HumanMessage("question")]
    for i in range(turns):
        messages += [AIMessage(f"action {i}"), HumanMessage(f"result {i}")]
    return messages


def test_trim_messages_applies_the_same_rules():
    kept = trim_messages(conversation(10), 60, counter=len)
    assert [m.content for m in kept] == ["s", "question", "action 9", "result 9"]
    assert trim_messages(conversation(2), 10_000) == conversation(2)


def test_trim_messages_pins_only_the_first_system_message():
    messages = [SystemMessage("s1"), HumanMessage("q"), AIMessage("a"), SystemMessage("s2")]
    assert [m.content for m in trim_messages(messages, 10_000)] == ["s1", "q", "a", "s2"]


def test_trim_memory_runnable_in_a_chain():
    trimmer = trim_memory_runnable(60, counter=len)
    kept = trimmer.invoke(conversation(10))
    assert [m.content for m in kept] == ["s", "question", "action 9", "result 9"]
    prompt = ChatPromptTemplate.from_messages([("system", "s"), ("human", "{q}")])
    assert [m.content for m in (prompt | trimmer).invoke({"q": "hi"})] == ["s", "hi"]
    assert trimmer.get_name() == "trim_memory"


async def test_trim_memory_runnable_async():
    trimmer = trim_memory_runnable(60, counter=len)
    kept = await trimmer.ainvoke(conversation(10))
    assert [m.content for m in kept] == ["s", "question", "action 9", "result 9"]
    batch = await trimmer.abatch([conversation(1), conversation(10)])
    assert [len(b) for b in batch] == [4, 4]


def test_trim_memory_runnable_validates_now():
    with pytest.raises(ConfigurationError):
        trim_memory_runnable(0)


# --- the property: accounting is exact and the budget holds ---------------------------

texts = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="北京天气晴雨风台，。", max_size=300),
    st.builds(lambda n: "x" * n, st.integers(0, 3000)),
)
operations = st.lists(
    st.tuples(st.sampled_from(["system", "user", "assistant", "observation", "tool"]), texts),
    max_size=40,
)


def pinned_only(memory: SlidingWindowMemory) -> bool:
    return memory.turns == 0


def apply(memory: SlidingWindowMemory, kind: str, text: str) -> None:
    if kind == "system":
        memory.add_system(text)
    elif kind == "user":
        memory.add_user(text)
    elif kind == "assistant":
        memory.add_assistant(text)
    elif kind == "observation":
        memory.add_observation(text)
    else:
        memory.add_observation(text, tool_call_id="call")


CUT = ("…[truncated ", RESULT_CUT_CHARS.split("{")[0])


def same_or_truncated(kept: BaseMessage, original: str) -> bool:
    """The text as added, or cut with a marker (the model's words, or a result)."""
    return kept.content == original or any(marker in str(kept.content) for marker in CUT)


@settings(max_examples=150, deadline=None)
@given(
    ops=operations,
    max_tokens=st.integers(1, 600),
    counter=st.sampled_from([estimate_tokens, len, lambda s: len(s.encode())]),
)
def test_token_count_always_equals_the_recount(ops, max_tokens, counter):
    memory = SlidingWindowMemory(max_tokens, counter=counter, compactor=None)
    model: list[list[str]] = []  # every turn ever added, as texts, oldest first
    ends_with_ai: list[bool] = []  # per turn of the model: is its last message the assistant's?
    question: str | None = None
    older = 0  # turns of the model older than the pinned question
    for kind, text in ops:
        turn_since_question = memory.turns > memory._history
        apply(memory, kind, text)
        if kind == "user":
            if question is not None:  # a later question: the old one becomes history
                model.insert(older, [question])
                ends_with_ai.insert(older, False)
                older = len(model)
                # ... minus its trailing turns that do not end with the assistant's word
                while older and not ends_with_ai[older - 1]:
                    del model[older - 1], ends_with_ai[older - 1]
                    older -= 1
            question = text
        elif kind != "system":
            if kind == "assistant" or not turn_since_question:  # else it joins that turn
                model.append([])
                ends_with_ai.append(False)
            model[-1].append(text)
            ends_with_ai[-1] = kind == "assistant"

        assert memory.token_count == recount(memory)
        assert memory.token_count <= max_tokens or pinned_only(memory)
        # The window's turns are the newest turns, whole and in order (eviction is
        # oldest-first and by whole turn); only truncation may have changed a text.
        window = [turn.messages for turn in memory._turns]
        newest = model[len(model) - len(window) :] if window else []
        assert [len(t) for t in window] == [len(t) for t in newest]
        for kept_turn, texts_of_turn in zip(window, newest, strict=True):
            assert all(map(same_or_truncated, kept_turn, texts_of_turn))
        # The pinned question sits after exactly the kept turns that are older than it.
        assert memory._history == max(0, len(window) - (len(model) - older))
        if question is not None:
            position = sum(len(t) for t in window[: memory._history])
            position += memory.messages[0].type == "system"
            assert memory.messages[position].content == question
        # Forget what was evicted: a question pinned later re-enters history after
        # the turns still kept, not after ones that left while it was pinned.
        older = max(0, older - (len(model) - len(window)))
        ends_with_ai = ends_with_ai[len(model) - len(window) :] if window else []
        model = newest


@settings(max_examples=100, deadline=None)
@given(
    steps=st.lists(st.tuples(texts, texts), max_size=30),
    max_tokens=st.integers(60, 600),
)
def test_action_observation_steps_always_alternate(steps, max_tokens):
    memory = SlidingWindowMemory(max_tokens)
    memory.add_system("Reply with one JSON action.")
    memory.add_user("北京和上海今天天气如何？")
    for action, observation in steps:
        memory.add_assistant(action)
        memory.add_observation(observation)
        kinds = roles(memory.messages)
        assert kinds[:2] == ["system", "human"]
        assert kinds[2:] == ["ai", "human"] * (len(kinds[2:]) // 2)
        assert memory.token_count == recount(memory) <= max_tokens or pinned_only(memory)

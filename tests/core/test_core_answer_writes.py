"""What the answer stage asks and what it delivers (issue 34, points 3, 4 and 6).

* Its request carries the user's instructions (the agent's ``system_prompt``, or a run's
  own system message), asks in the question's language, a short answer for a yes/no
  question, and a quote where one is asked for.
* What it writes is an answer: a ``final`` action is unwrapped; protocol JSON, a tool call
  or nothing is asked once more, then the best answer the run has is delivered, with a note.
* ``stream_mode="answer"`` yields words in several pieces, in both protocols and every
  mode: the model's own answer in the pieces it was written in, the stage's as written.
* ``stages={"answer": ...}`` replaces the stage whole.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import tool

from lcel_agent import StopReason, create_agent
from lcel_agent.state import AgentState
from lcel_agent.testing import FunctionChatModel
from lcel_agent.texts import (
    ANSWER_DECISION,
    ANSWER_LANGUAGE,
    ANSWER_SYSTEM,
    ANSWER_VERBATIM,
)


@tool
def get_weather(city: str) -> str:
    """Get the current weather of a city."""
    return {"Paris": "Paris: sunny, 21°C", "London": "London: cloudy, 14°C"}.get(
        city, f"{city}: rain, 9°C"
    )


def act(name: str, value: Any) -> str:
    return json.dumps({"action": name, "action_input": value}, ensure_ascii=False)


def both() -> str:
    return json.dumps([{"action": "get_weather", "action_input": c} for c in ("Paris", "London")])


class Script:
    """Acting replies in order; the answer stage's requests answered by ``writer``."""

    def __init__(
        self, acting: list[Any], writer: Any = "Paris is sunny at 21°C; London cloudy at 14°C."
    ) -> None:
        self.acting, self.writer = list(acting), writer
        self.asked: list[list[BaseMessage]] = []
        self.llm = FunctionChatModel(fn=self)

    def __call__(self, messages: list[BaseMessage], tools: Any) -> Any:
        if ANSWER_SYSTEM in str(messages[0].content):
            self.asked.append(list(messages))
            writer = self.writer
            return writer(messages) if callable(writer) else writer
        return self.acting.pop(0) if len(self.acting) > 1 else self.acting[0]


DROPS_LONDON = act("final", "Paris is sunny, 21°C.")  # a report that leaves London out
QUESTION = "What's the weather in Paris and London?"


def test_the_request_carries_the_agents_instructions_and_the_language_rule():
    script = Script([both(), DROPS_LONDON])
    agent = create_agent(script.llm, [get_weather], system_prompt="Always answer in French.")
    result = agent.invoke(QUESTION)
    assert result.answer.repair == "omits" and result.answer.source == "composed"
    ((system, request),) = script.asked
    assert isinstance(system, SystemMessage)
    assert system.content.startswith("Always answer in French.") and ANSWER_SYSTEM in system.content
    assert ANSWER_LANGUAGE in request.content and QUESTION in request.content


def test_a_runs_own_system_message_is_the_persona_the_stage_writes_by():
    script = Script([both(), DROPS_LONDON])
    agent = create_agent(script.llm, [get_weather], system_prompt="Answer in English.")
    messages = [SystemMessage("Réponds en français."), HumanMessage(QUESTION)]
    agent.invoke({"messages": messages})
    ((system, _),) = script.asked
    assert system.content.startswith("Réponds en français.")
    assert "Answer in English." not in system.content


def test_a_yes_no_question_is_asked_for_a_short_answer():
    # The answer is a plan given twice: the stage writes it, in the question's shape.
    plan = "Let me check both cities first."
    script = Script(
        [both(), plan, "I will look up the weather now."], writer="Yes, Paris is warmer."
    )
    result = create_agent(script.llm, [get_weather]).invoke("Is Paris warmer than London?")
    assert result.answer.repair == "plan" and result.output == "Yes, Paris is warmer."
    ((_, request),) = script.asked
    assert ANSWER_DECISION in request.content
    assert "one line per result" not in request.content


def test_a_verbatim_request_is_said_to_the_stage_and_its_quote_is_no_echo():
    line = "Paris: sunny, 21°C"
    script = Script([both(), ""], writer=line)
    result = create_agent(script.llm, [get_weather]).invoke(
        "Quote Paris's weather line exactly, and London's."
    )
    assert result.answer.repair == "empty"
    ((_, request),) = script.asked
    assert ANSWER_VERBATIM in request.content


@pytest.mark.parametrize(
    ("replies", "output", "source"),
    [
        # A final action written out of habit: unwrapped.
        (['{"action": "final", "action_input": "Both: Paris 21°C, London 14°C."}'],
         "Both: Paris 21°C, London 14°C.", "composed"),
        # A call, then words: asked once more, the words are the answer.
        (['{"action": "get_weather", "action_input": "Berlin"}', "Paris 21°C, London 14°C."],
         "Paris 21°C, London 14°C.", "composed"),
        # Two calls: the best answer the run has is the model's own draft, with a note.
        (['{"action": "get_weather", "action_input": "Berlin"}'] * 2, "Paris is sunny, 21°C.", "model"),
        # Nothing, twice: the same.
        (["", ""], "Paris is sunny, 21°C.", "model"),
    ],
    ids=["final-unwrapped", "asked-again", "draft-after-two-calls", "draft-after-nothing"],
)  # fmt: skip
def test_what_the_stage_delivers_is_an_answer_in_words(replies, output, source):
    answers = iter(replies)
    script = Script([both(), DROPS_LONDON], writer=lambda messages: next(answers))
    result = create_agent(script.llm, [get_weather]).invoke(QUESTION)
    assert result.stop_reason is StopReason.FINAL and result.output == output
    assert result.answer.source == source and len(script.asked) == len(replies)
    if source == "model":
        assert "not answers in words" in result.answer.note and not result.answer.complete


def test_without_a_draft_the_results_in_plain_lines_are_the_answer():
    cut = AIMessage(
        '{"action": "final", "action_input": "Paris', response_metadata={"finish_reason": "length"}
    )
    script = Script([both(), cut], writer='{"action": "get_weather", "action_input": "Rome"}')
    result = create_agent(script.llm, [get_weather]).invoke(QUESTION)
    assert (
        result.output
        == "get_weather(Paris): Paris: sunny, 21°C\nget_weather(London): London: cloudy, 14°C"
    )
    assert result.answer.source == "results" and result.answer.repair == "cut"
    assert "not answers in words" in result.answer.note


# --- answer streaming: words, in pieces, in both protocols and every mode -----------------


def _native_calls() -> AIMessage:
    calls = [
        {"name": "get_weather", "args": {"city": c}, "id": f"c{i}"}
        for i, c in enumerate(["Paris", "London"])
    ]
    return AIMessage(content="", tool_calls=calls)


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
@pytest.mark.parametrize("mode", ["auto", "model", "compose"])
def test_the_answer_streams_in_words_and_in_pieces(protocol, mode):
    answer = "Paris is sunny at 21°C and London is cloudy at 14°C today."
    acting = [both(), act("final", answer)] if protocol == "json" else [_native_calls(), answer]
    written = "Written: Paris 21°C, sunny; London 14°C, cloudy."
    script = Script(acting, writer=written)
    agent = create_agent(script.llm, [get_weather], protocol=protocol, answer=mode)
    pieces = list(agent.stream(QUESTION, stream_mode="answer"))
    text = "".join(pieces)
    assert len(pieces) > 1 and "{" not in text and '"action"' not in text
    assert text == (written if mode == "compose" else answer)


async def test_the_answer_streams_in_words_and_in_pieces_async():
    script = Script([both(), DROPS_LONDON], writer="Written: Paris 21°C; London 14°C.")
    agent = create_agent(script.llm, [get_weather])
    pieces = [p async for p in agent.astream(QUESTION, stream_mode="answer")]
    assert len(pieces) > 1 and "".join(pieces) == "Written: Paris 21°C; London 14°C."


def test_a_stage_reply_in_the_protocols_form_streams_only_its_words():
    script = Script(
        [both(), DROPS_LONDON],
        writer='{"action": "final", "action_input": "Paris 21°C, London 14°C."}',
    )
    pieces = list(create_agent(script.llm, [get_weather]).stream(QUESTION, stream_mode="answer"))
    assert "".join(pieces) == "Paris 21°C, London 14°C." and len(pieces) > 1


# --- the stage is one stage -----------------------------------------------------------


def test_a_stage_of_ones_own_replaces_the_answer_stage_whole():
    seen: list[AgentState] = []

    def mine(state: AgentState) -> AgentState:
        seen.append(state)
        if state.stop is None or state.output is None:
            return state
        import dataclasses

        return dataclasses.replace(state, output=state.output.upper())

    script = Script([both(), DROPS_LONDON])
    agent = create_agent(script.llm, [get_weather], stages={"answer": RunnableLambda(mine)})
    result = agent.invoke(QUESTION)
    assert result.output == "PARIS IS SUNNY, 21°C." and not script.asked
    assert seen and result.answer is None


# --- acting keeps in view what the next call needs (issue 34, point 5) --------------------


@pytest.mark.parametrize("protocol", ["json", "tool_calling"])
def test_a_listing_is_in_view_when_the_model_writes_the_call_that_uses_it(protocol):
    names = [f"report_{i:02d}_2026.csv" for i in range(61)]  # about 1,300 characters

    @tool
    def list_files(folder: str) -> str:
        """List a folder."""
        return "\n".join(names)

    @tool
    def read_file(path: str) -> str:
        """Read a file."""
        return "week,total\n42,18230"

    def call(name: str, value: str) -> Any:
        if protocol == "json":
            return act(name, value)
        arg = "folder" if name == "list_files" else "path"
        return AIMessage("", tool_calls=[{"name": name, "args": {arg: value}, "id": f"c_{name}"}])

    script = Script([call("list_files", "/data"), call("read_file", "/data/report_42_2026.csv"),
                     "Week 42's total is 18,230."])  # fmt: skip
    agent = create_agent(script.llm, [list_files, read_file], protocol=protocol)
    result = agent.invoke("Open the report for week 42 in /data and tell me its total.")
    assert result.stop_reason is StopReason.FINAL and result.output == "Week 42's total is 18,230."
    second_prompt = "\n".join(str(m.content) for m in script.llm.calls[1])
    assert all(name in second_prompt for name in names)  # every name, when it writes the call
    assert [len(s.observations) for s in result.steps] == [1, 1, 0]  # no listing asked again

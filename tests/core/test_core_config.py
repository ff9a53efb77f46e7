"""Bad configuration fails at construction, with a message that says what to do."""

from __future__ import annotations

import pytest
from langchain_core.language_models.fake import FakeListLLM
from langchain_core.runnables import RunnableLambda

from lcel_agent import ConfigurationError, ErrorClass, Policy, create_agent
from lcel_agent.testing.fake import ScriptedChatModel


@pytest.fixture
def llm():
    return ScriptedChatModel([])


@pytest.mark.parametrize(
    ("options", "error", "match"),
    [
        ({"max_loops": 0}, ConfigurationError, "max_loops must be >= 1"),
        ({"max_loops": 2.5}, TypeError, "max_loops must be an int"),
        ({"max_errors": 0}, ConfigurationError, "max_errors"),
        ({"llm_retries": 0}, ConfigurationError, "llm_retries"),
        ({"tool_timeout": -1}, ConfigurationError, "tool_timeout must be > 0"),
        ({"time_budget": 0}, ConfigurationError, "time_budget"),
        ({"token_budget": 0}, ConfigurationError, "token_budget"),
        ({"protocol": "xml"}, ConfigurationError, "protocol"),
        ({"tool_call_limits": {"nope": 1}}, ConfigurationError, "unknown tool 'nope'"),
        ({"fallback_tools": {"nope": None}}, ConfigurationError, "unknown tool"),
        (
            {"stages": {"clean": RunnableLambda(lambda s: s)}},
            ConfigurationError,
            "unknown stage 'clean'",
        ),
        ({"stages": {"clean_json": lambda s: s}}, TypeError, "must be a Runnable"),
        (
            {"policies": {ErrorClass.LLM_FATAL: Policy.RETRY}},
            ConfigurationError,
            "cannot handle 'llm_fatal'",
        ),
        ({"policies": {"nonsense": "stop"}}, ConfigurationError, "error classes are"),
        ({"memory": {"max_tokens": 5}}, TypeError, "SlidingWindowMemory"),
    ],
)
def test_bad_options(llm, weather, options, error, match):
    with pytest.raises(error, match=match):
        create_agent(llm, [weather], **options)


def test_bad_tools(llm, weather):
    with pytest.raises(ConfigurationError, match="two tools are named 'get_weather'"):
        create_agent(llm, [weather, weather])
    with pytest.raises(TypeError, match="@tool"):
        create_agent(llm, [lambda city: city])
    with pytest.raises(TypeError, match="list of langchain-core tools"):
        create_agent(llm, weather)


def test_plain_functions_need_a_docstring_and_type_hints(llm):
    def no_doc(city: str) -> str:
        return city

    def untyped(city):
        """Look a city up."""
        return city

    with pytest.raises(TypeError, match="needs a docstring"):
        create_agent(llm, [no_doc])
    with pytest.raises(TypeError, match=r"needs type hints on \['city'\]"):
        create_agent(llm, [untyped])


def test_bad_models(weather):
    with pytest.raises(ConfigurationError, match="names no model"):
        create_agent("openai:", [weather])
    with pytest.raises(TypeError, match="completion-only"):
        create_agent(FakeListLLM(responses=["x"]), [weather])
    with pytest.raises(TypeError, match="chat model"):
        create_agent(object(), [weather])


def test_wrapped_models_are_accepted(llm, weather):
    create_agent(llm.with_retry(stop_after_attempt=2), [weather])
    create_agent(llm.with_fallbacks([ScriptedChatModel([])]), [weather])
    create_agent(llm.bind(stop=["x"]), [weather])


def test_a_session_id_without_a_store_is_ignored(weather, act):
    # RunnableWithMessageHistory and LangGraph put their own session ids in the config.
    agent = create_agent(ScriptedChatModel([act("final", "ok")]), [weather])
    assert agent.invoke("q", {"configurable": {"session_id": "s1"}}).output == "ok"
    assert "session_id" not in {spec.id for spec in agent.config_specs}

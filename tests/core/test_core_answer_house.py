"""The answer stage in the house (issue 41 point 7): the model it writes with is the one the
builder prepared, and the default window follows the answer stage actually in the chain."""

from __future__ import annotations

from langchain_core.runnables import RunnableLambda
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from lcel_agent import create_agent
from lcel_agent.memory import AGENT_COMPACTOR
from lcel_agent.stages.answer import Answer, WriteAnswer
from lcel_agent.testing import FunctionChatModel


def _writer() -> ChatOpenAI:
    # Never called: the address is a closed loopback port and nothing is sent.
    return ChatOpenAI(
        model="m", base_url="http://127.0.0.1:9/v1", api_key=SecretStr("sk-x"), max_retries=5
    )


def test_answer_llm_is_wrapped_like_the_agents_model(weather):
    writer = _writer()
    agent = create_agent(
        FunctionChatModel(lambda m, t: "x"), [weather], answer=Answer(llm=writer), llm_timeout=7.0
    )
    stage = agent.stages["answer"]
    assert isinstance(stage, WriteAnswer)
    # The client's own retries are off (the loop's are the only ones) and its timeout is set.
    assert stage.llm is not writer and stage.llm.max_retries == 0
    assert stage.llm.root_client.max_retries == 0 and stage.llm.root_client.timeout == 7.0
    assert writer.max_retries == 5  # the user's model is left as it was


def test_the_default_window_follows_the_answer_stage_in_the_chain(weather):
    model = FunctionChatModel(lambda m, t: "x")
    built_in = create_agent(model, [weather])
    own = create_agent(model, [weather], stages={"answer": RunnableLambda(lambda state: state)})
    assert built_in.memory.compactor is AGENT_COMPACTOR
    # A stage of the user's own keeps no results for the answer: turns stay word for word.
    assert own.memory.compactor is not AGENT_COMPACTOR
    assert own.memory.compactor == create_agent(model, [weather], answer="model").memory.compactor

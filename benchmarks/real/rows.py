"""The rows of the real-model benchmark: each framework as ``benchmarks.peers`` drives it.

Every row gets the same ``ChatOpenAI`` (the run's temperature and seed, the same
completion cap and HTTP timeout) and the same tools; ``max_loops`` is the task's.
lcel_agent runs at its defaults but for ``llm_timeout``: its 60 s default is for hosted
providers, and a long prompt on two busy CPU cores can take longer (every peer gets the
same limit through the client's timeout). AgentExecutor streams its model calls by
default, and llama-cpp-python's server reports no ``usage`` in a stream, so it runs with
``stream=False`` (the executor's own ``stream_runnable`` switch; it changes nothing but
the transport). A call that still comes streamed is counted by the benchmark's own
tokenizer, and the record says so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.tools import BaseTool

from benchmarks.peers import Agent, Peer, classic_executor, langchain_v1, langgraph_prebuilt, lcel
from lcel_agent.stages.answer import Answer

LLM_TIMEOUT = 300.0
"""Seconds one model call may take, for every framework."""


@dataclass(frozen=True)
class Row:
    """One framework as the benchmark runs it."""

    key: str
    label: str
    peer: Peer
    primary: bool = False
    """Runs N times on the 1.5B model (the others, and every row on 0.5B, run N_other times)."""
    probe: bool = False
    """Not in the default rows: a measurement run only when ``--frameworks`` names it."""


def acting_schema(tools: Sequence[BaseTool]) -> dict[str, Any]:
    """The JSON protocol's forms as a schema: one action, or a list of them.

    ``action`` is a tool's name or ``final``; ``action_input`` a string (every tool of
    this benchmark takes one string argument). A server that holds decoding to it can
    only write a reply the parser reads.
    """
    action = {
        "type": "object",
        "properties": {
            "action": {"enum": [*(t.name for t in tools), "final"]},
            "action_input": {"type": "string"},
        },
        "required": ["action", "action_input"],
    }
    return {"anyOf": [action, {"type": "array", "items": action, "minItems": 1}]}


def lcel_held(llm: BaseChatModel, tools: Sequence[BaseTool], *, max_loops: int) -> Agent:
    """lcel_agent (json) with every acting reply held to :func:`acting_schema`.

    The server holds the reply with llama-cpp-python's ``json_object`` + ``schema`` form;
    the answer stage gets the unbound model (its own schema replaces the acting one).
    """
    held_format = {"type": "json_object", "schema": acting_schema(tools)}
    # Beside the model's own extra_body (it carries max_tokens for llama-cpp-python).
    body = {**(getattr(llm, "extra_body", None) or {}), "response_format": held_format}
    held = llm.bind(extra_body=body)
    peer = lcel("json", llm_timeout=LLM_TIMEOUT, answer=Answer(llm=llm))
    return peer(held, tools, max_loops=max_loops)  # type: ignore[arg-type]  # a bound chat model


ROWS: dict[str, Row] = {
    r.key: r
    for r in (
        Row("lcel-json", "lcel_agent (defaults, json)", lcel("json", llm_timeout=LLM_TIMEOUT),
            primary=True),
        Row("lcel-held", "lcel_agent (json, acting replies schema-held)", lcel_held, probe=True),
        Row("lcel-tools", "lcel_agent tool_calling", lcel("tool_calling", llm_timeout=LLM_TIMEOUT)),
        # Not streamed: llama.cpp's server gives no usage in a stream (see the module doc).
        Row("executor", "AgentExecutor (ReAct)", classic_executor(stream=False), primary=True),
        Row("lc-agent", "langchain 1.x create_agent", langchain_v1()),
        Row("lg-react", "LangGraph create_react_agent", langgraph_prebuilt(extra_steps=1)),
    )
}  # fmt: skip
"""Every row, in the tables' order."""

"""The frameworks BFCL runs (``benchmarks.peers``), each built afresh for every user turn.

    outcome = ROWS["lcel-json"].turn(llm, tools, history, user, max_loops=21,
                                     config={"callbacks": [meter]})
    history += outcome.messages          # the user's messages, then what the framework added

lcel_agent at its defaults but for ``llm_timeout``; LangGraph's ``recursion_limit`` 2n;
AgentExecutor unstreamed (the server reports usage on every call), its ReAct prompt
carrying the conversation as text and, BFCL's tools taking several arguments, reading
Action Input as a JSON object (``benchmarks.peers.react``).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

from benchmarks import peers
from benchmarks.peers import (
    REACT_CHAT_PROMPT,
    Peer,
    classic_executor,
    langchain_v1,
    langgraph_prebuilt,
    lcel,
)

LLM_TIMEOUT = 600.0
"""Seconds one model call may take, for every framework (lcel_agent's ``llm_timeout``, the
client's ``timeout`` for the others): BFCL's tool schemas make prompts of 2-6k tokens, and
a 4k-token prefill on two shared cores has taken over 60 s here (NOTES.md)."""


@dataclass(frozen=True)
class Row:
    """One framework as the benchmark runs it, and the server that serves it best."""

    key: str
    label: str
    peer: Peer
    server: str
    """``llama-cpp-python`` (tool calls as text) or ``llama-server`` (upstream, ``--jinja``:
    native tool calls parsed); ``--frameworks KEY@SERVER`` runs a row on the other one."""
    native: bool = False
    """Reads only native tool calls (``AIMessage.tool_calls``)."""

    @property
    def turn(self) -> partial[peers.Outcome]:
        """``turn(llm, tools, history, user, *, max_loops, config)``: the harness's ``Turn``."""
        return partial(peers.turn, self.peer)


#: Every row runs on upstream llama-server by default. The native-tool rows need its parser;
#: lcel_agent's JSON protocol cannot run on llama-cpp-python 0.3.36 at its defaults (its
#: answer stage's schema-held request, whose keys quote the calls, makes that server fail
#: to parse the grammar and die: docs/benchmarks.md, "BFCL v4"); ReAct is plain text and
#: runs the same on either, so it shares the server with the rest.
ROWS: dict[str, Row] = {
    r.key: r
    for r in (
        Row("lcel-json", "lcel_agent (json)", lcel("json", llm_timeout=LLM_TIMEOUT),
            "llama-server"),
        Row("lcel-tools", "lcel_agent (tool_calling)", lcel("tool_calling", llm_timeout=LLM_TIMEOUT),
            "llama-server", native=True),
        Row("executor", "AgentExecutor (ReAct)",
            classic_executor(REACT_CHAT_PROMPT, json_input=True, stream=False), "llama-server"),
        Row("lc-agent", "langchain 1.x create_agent", langchain_v1(), "llama-server", native=True),
        Row("lg-react", "LangGraph create_react_agent", langgraph_prebuilt(), "llama-server",
            native=True),
    )
}  # fmt: skip
"""Every framework, in the tables' order."""

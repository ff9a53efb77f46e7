"""Replies that write a call in words, or only look like one: ``prose_calls.jsonl``.

Each line is one reply a model might write, with the calls it makes (``calls``, empty for
a plan or an answer) and, for an answer, the calls made before it (``after``). :func:`read`
plays the reply through a real agent and returns the calls the agent read from it;
:func:`measure` tallies precision and recall over the file. Run as a script it prints the
table for the code it imports::

    python tests/core/prose_calls_support.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage
from langchain_core.tools import BaseTool, StructuredTool

from lcel_agent import AgentResult, create_agent
from lcel_agent.testing import ScriptedChatModel

CASES: list[dict[str, Any]] = [
    json.loads(line)
    for line in (Path(__file__).parent / "prose_calls.jsonl").read_text("utf-8").splitlines()
]
PROTOCOLS = ("json", "tool_calling")


def get_weather(city: str) -> str:
    """Current weather of a city."""
    return f"{city}: sunny, 21°C"


def get_forecast(city: str, days: int = 1) -> str:
    """Weather forecast of a city for the next days."""
    return f"{city}: sunny for {days} days"


def convert_currency(amount: float, from_currency: str, to_currency: str) -> str:
    """Convert an amount between currencies."""
    return f"{amount} {from_currency} is {amount * 0.92:.2f} {to_currency}"


def search_news(query: str, limit: int = 5, recent: bool = False) -> str:
    """Search news articles."""
    return f"{limit} articles about {query}"


def tools() -> list[BaseTool]:
    """The four tools every case is read against (one to three arguments each)."""
    functions = (get_weather, get_forecast, convert_currency, search_news)
    return [StructuredTool.from_function(f) for f in functions]


def _first(protocol: str, made: Sequence[Sequence[Any]]) -> str | AIMessage:
    """The reply that made ``made`` before the case's reply, in the protocol's own form."""
    if protocol == "json":
        return json.dumps([{"action": n, "action_input": a} for n, a in made])
    calls = [{"name": n, "args": a, "id": f"c{i}"} for i, (n, a) in enumerate(made)]
    return AIMessage(content="", tool_calls=calls)


def read(
    case: dict[str, Any], protocol: str, run: Callable[..., AgentResult] | None = None
) -> list[list[Any]]:
    """The calls an agent reads from the case's reply: ``[[tool, input], ...]``.

    ``run(agent, task)`` runs the agent (the tests' ``run`` fixture: invoke or ainvoke);
    by default, ``invoke``.
    """
    made = case.get("after", [])
    final = '{"action": "final", "action_input": "done"}' if protocol == "json" else "done"
    text = case["text"] if protocol == "json" else AIMessage(content=case["text"])
    script = [*([_first(protocol, made)] if made else []), text, final, final, final]
    agent = create_agent(ScriptedChatModel(script), tools(), protocol=protocol)  # type: ignore[arg-type]
    result = run(agent, "the question") if run is not None else agent.invoke("the question")
    acting = [s for s in result.steps if s.kind == "act"]
    step = acting[1 if made else 0]
    return [[a.tool, a.tool_input] for a in step.actions if not a.is_final]


def measure(protocol: str) -> dict[str, float]:
    """Precision and recall of the calls read over every case, in one protocol."""
    hits = made = wanted = false_calls = 0
    for case in CASES:
        found = read(case, protocol)
        expected = list(case["calls"])
        wanted += len(expected)
        made += len(found)
        for call in found:
            if call in expected:
                expected.remove(call)
                hits += 1
        false_calls += bool(found) and not case["calls"]
    return {
        "precision": hits / made if made else 1.0,
        "recall": hits / wanted if wanted else 1.0,
        "read": made,
        "right": hits,
        "expected": wanted,
        "non-calls read as calls": false_calls,
    }


if __name__ == "__main__":
    print(f"{len(CASES)} replies, {sum(bool(c['calls']) for c in CASES)} of them calls")
    for protocol in PROTOCOLS:
        print(protocol, json.dumps(measure(protocol)), file=sys.stdout)

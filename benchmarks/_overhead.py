"""Part 2: framework overhead per loop, on a zero-latency in-process model and tool.

Every run is ``LOOPS`` model calls: ``LOOPS - 1`` calls of the ``echo`` tool, then the
answer. The floor is a bare Python loop calling the same model and tool directly
(and its ``ainvoke`` twin for the async rows).

    python benchmarks/_overhead.py         # the table and the guard's verdict, in ~30 s
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import tool
from pydantic import PrivateAttr

from benchmarks.peers import (
    Peer,
    Unavailable,
    classic_executor,
    langchain_v1,
    langgraph_graph,
    langgraph_prebuilt,
)
from lcel_agent import create_agent

LOOPS = 10
PEER_LOOPS = 15
"""The peers' limit (each framework's own mapping of it), well above a run's ``LOOPS``."""


@tool
def echo(text: str) -> str:
    """Return the text."""
    return text


def _text(message: BaseMessage) -> str:
    return message.content if isinstance(message.content, str) else str(message.content)


class ScriptedModel(BaseChatModel):
    """A chat model with O(1) replies and no usage (so each framework pays its own way).

    Answers by protocol: native tool calls once tools are bound, ReAct text when the
    prompt has ``Action Input:``, else lcel_agent's JSON; every ``LOOPS``-th call answers.
    """

    has_tools: bool = False
    _count: list[int] = PrivateAttr(default_factory=lambda: [0])

    @property
    def _llm_type(self) -> str:
        return "bench-scripted"

    def bind_tools(self, tools: Any, **kwargs: Any) -> Runnable[Any, AIMessage]:
        copy = self.model_copy(update={"has_tools": True})
        copy._count = self._count  # the bound copy continues the same script
        return copy

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        reply = self._reply(messages)
        message = reply if isinstance(reply, AIMessage) else AIMessage(content=reply)
        return ChatResult(generations=[ChatGeneration(message=message)])

    def _reply(self, messages: list[BaseMessage]) -> str | AIMessage:
        count = self._count
        count[0] += 1
        final = count[0] % LOOPS == 0
        if self.has_tools:
            if final:
                return AIMessage(content="done")
            call = {"name": "echo", "args": {"text": f"x{count[0]}"}, "id": f"c{count[0]}"}
            return AIMessage(content="", tool_calls=[call])
        if any("Action Input:" in _text(m) for m in messages):
            if final:
                return "Thought: I now know the final answer\nFinal Answer: done"
            return f"Thought: echo it\nAction: echo\nAction Input: x{count[0]}"
        if final:
            return '{"action": "final", "action_input": "done"}'
        # A new input each call: a repeated call would (rightly) trip drift detection.
        return f'{{"action": "echo", "action_input": "x{count[0]}"}}'


def bare_loop(model: ScriptedModel) -> None:
    """The floor: call the model and the tool directly until the answer."""
    bound = model.bind_tools([echo])
    messages: list[BaseMessage] = [HumanMessage("echo x")]
    while True:
        reply = bound.invoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return
        for call in reply.tool_calls:
            messages.append(ToolMessage(echo.invoke(call["args"]), tool_call_id=call["id"]))


class Quiet(BaseCallbackHandler):
    """A handler that does nothing: what the run bookkeeping costs when anyone listens."""


async def abare_loop(model: ScriptedModel) -> None:
    """The async floor: :func:`bare_loop` with ``ainvoke``.

    A sync-only model and tool run on a worker thread under ``ainvoke`` (langchain-core
    hands them to an executor), so this floor sits above the sync one on any framework.
    """
    bound = model.bind_tools([echo])
    messages: list[BaseMessage] = [HumanMessage("echo x")]
    while True:
        reply = await bound.ainvoke(messages)
        messages.append(reply)
        if not reply.tool_calls:
            return
        for call in reply.tool_calls:
            result = await echo.ainvoke(call["args"])
            messages.append(ToolMessage(result, tool_call_id=call["id"]))


def _langgraph_rows() -> list[Case]:
    """LangGraph through ``ainvoke``, and both ways with the handler (plain invoke is a peer's)."""
    graph = langgraph_graph(ScriptedModel(), [echo])
    task = {"messages": [("user", "echo x")]}
    config: Any = {"recursion_limit": 2 * LOOPS + 1}
    traced: Any = {**config, "callbacks": [Quiet()]}
    return [
        Case(ALANGGRAPH, lambda: graph.ainvoke(task, config), is_async=True, floor=AFLOOR),
        Case(f"{LANGGRAPH}, {HANDLER}", lambda: graph.invoke(task, traced)),
        Case(f"{ALANGGRAPH}, {HANDLER}", lambda: graph.ainvoke(task, traced), is_async=True, floor=AFLOOR),
    ]  # fmt: skip


FLOOR = "bare Python loop (floor)"
AFLOOR = "bare Python loop, async (floor of the ainvoke rows)"
LANGGRAPH = "langgraph create_react_agent, invoke"
ALANGGRAPH = "langgraph create_react_agent, ainvoke"
HANDLER = "a callback handler attached"


@dataclass
class Case:
    """One row: a run of ``LOOPS`` model calls, sync or async, and the floor it is measured over."""

    label: str
    run: Callable[[], Any]
    is_async: bool = False
    floor: str = FLOOR
    peer: str | None = None  # the LangGraph row of the same mode, for the ratio
    times: list[float] = field(default_factory=list)


def _cases() -> tuple[list[Case], list[dict[str, Any]]]:
    """Every row to measure, and the rows of frameworks that are not installed."""
    missing: list[dict[str, Any]] = []
    model = ScriptedModel()
    agent = create_agent(ScriptedModel(), [echo], max_loops=LOOPS + 1)
    native = create_agent(ScriptedModel(), [echo], protocol="tool_calling", max_loops=PEER_LOOPS)
    traced: Any = {"callbacks": [Quiet()]}
    cases = [
        Case(FLOOR, lambda: bare_loop(model)),
        Case(AFLOOR, lambda: abare_loop(model), is_async=True, floor=AFLOOR),
        Case("lcel_agent json, invoke", lambda: agent.invoke("echo x"), peer=LANGGRAPH),
        Case(
            "lcel_agent json, ainvoke",
            lambda: agent.ainvoke("echo x"),
            is_async=True,
            floor=AFLOOR,
            peer=ALANGGRAPH,
        ),
        Case(
            f"lcel_agent json, invoke, {HANDLER}",
            lambda: agent.invoke("echo x", traced),
            peer=f"{LANGGRAPH}, {HANDLER}",
        ),
        Case(
            f"lcel_agent json, ainvoke, {HANDLER}",
            lambda: agent.ainvoke("echo x", traced),
            is_async=True,
            floor=AFLOOR,
            peer=f"{ALANGGRAPH}, {HANDLER}",
        ),
        Case("lcel_agent native, invoke", partial(native.invoke, "echo x"), peer=LANGGRAPH),
    ]  # fmt: skip
    peers: list[tuple[str, Peer]] = [
        ("classic AgentExecutor (ReAct)", classic_executor()),
        ("langchain 1.x create_agent", langchain_v1()),
        (LANGGRAPH, langgraph_prebuilt(extra_steps=1)),
    ]
    for label, peer in peers:
        try:
            agent_of = peer(ScriptedModel(), [echo], max_loops=PEER_LOOPS)
            cases.append(Case(label, partial(agent_of, "echo x")))
        except Unavailable as exc:
            missing.append({"framework": label, "unavailable": str(exc)})
    try:
        cases += _langgraph_rows()
    except Unavailable as exc:
        missing.append({"framework": ALANGGRAPH, "unavailable": str(exc)})
    return cases, missing


def _per_loop_us(case: Case, runs: int) -> float:
    """Microseconds per loop over ``runs`` runs (after one warm-up run)."""
    if not case.is_async:
        case.run()  # warm-up: first-call imports and caches
        start = time.perf_counter()
        for _ in range(runs):
            case.run()
        return (time.perf_counter() - start) / (runs * LOOPS) * 1e6

    async def timed() -> float:
        await case.run()
        start = time.perf_counter()
        for _ in range(runs):
            await case.run()
        return (time.perf_counter() - start) / (runs * LOOPS) * 1e6

    return asyncio.run(timed())


def overhead(runs: int, rounds: int = 5) -> list[dict[str, Any]]:
    """Microseconds per loop for each framework and the floors: the median of ``rounds``.

    The rows take turns within each round (``runs`` runs each), so a load that comes
    and goes on the machine falls on every row alike; the median drops the rounds it hit.
    """
    cases, missing = _cases()
    rows: list[dict[str, Any]] = []
    for _ in range(rounds):
        for case in cases:
            case.times.append(_per_loop_us(case, runs))
    us = {case.label: statistics.median(case.times) for case in cases}
    for case in cases:
        floor = us[case.floor]
        row: dict[str, Any] = {
            "framework": case.label,
            "us_per_loop": us[case.label],
            "rounds_us": case.times,
            "x_floor": us[case.label] / floor,
            "over_floor_us": us[case.label] - floor,
        }
        if case.peer in us:
            row["x_langgraph"] = us[case.label] / us[case.peer]
        rows.append(row)
    return rows + missing


def verdict(rows: list[dict[str, Any]]) -> str:
    """The regression guard's line: lcel_agent's per-loop time against LangGraph's and the floor."""
    by = {r["framework"]: r for r in rows if "us_per_loop" in r}
    parts = []
    for mode in ("invoke", "ainvoke"):
        ours = by.get(f"lcel_agent json, {mode}")
        if ours is None:
            continue
        part = f"{mode}: {ours['x_floor']:.1f}× the bare loop"
        if "x_langgraph" in ours:
            part += f", {ours['x_langgraph']:.2f}× LangGraph's"
        parts.append(part)
    sync, asyn = by.get("lcel_agent json, invoke"), by.get("lcel_agent json, ainvoke")
    if sync and asyn:
        parts.append(
            f"ainvoke's overhead over its floor is {asyn['over_floor_us'] / sync['over_floor_us']:.2f}× "
            "invoke's"
        )
    return "lcel_agent per loop, " + "; ".join(parts) + "."


def import_time(repeats: int = 7) -> dict[str, float]:
    """Median ms of fresh processes, each minus a bare ``python -c pass``."""

    def median_ms(*args: str) -> float:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([sys.executable, *args], check=True, stdout=subprocess.DEVNULL)
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    bare = median_ms("-c", "pass")
    out = {"python_ms": bare}
    for key, code in IMPORTS.items():
        out[key] = median_ms("-c", code) - bare
    out["help_ms"] = (
        median_ms("-c", "import sys; from lcel_agent.cli import main; sys.exit(main())", "--help")
        - bare
    )
    return out  # fmt: skip


IMPORTS = {
    "import_lcel_agent_ms": "import lcel_agent",
    "import_runnables_ms": "import langchain_core.runnables",
    "create_agent_ms": "from lcel_agent import create_agent",
    "runnable_ms": "from langchain_core.runnables import Runnable",
}


def markdown(rows: list[dict[str, Any]], imports: dict[str, float]) -> str:
    """The overhead rows, the guard's verdict and the start-up times as markdown."""
    lines = [
        "| framework | µs per loop | × its floor | µs over its floor | × LangGraph (same mode) |",
        "|---|---|---|---|---|",
    ]
    for r in rows:
        if "unavailable" in r:
            lines.append(f"| {r['framework']} | not run: {r['unavailable']} | | | |")
            continue
        peer = f"{r['x_langgraph']:.2f}" if "x_langgraph" in r else ""
        lines.append(
            f"| {r['framework']} | {r['us_per_loop']:.0f} | {r['x_floor']:.1f} "
            f"| {r['over_floor_us']:.0f} | {peer} |"
        )
    lines += ["", verdict(rows), ""]
    i = imports
    lines.append(
        "Start-up, fresh processes, median, beyond the "
        f"{i['python_ms']:.0f} ms of a bare `python -c pass`: `import lcel_agent` "
        f"{i['import_lcel_agent_ms']:.0f} ms against `import langchain_core.runnables` "
        f"{i['import_runnables_ms']:.0f} ms ({i['import_lcel_agent_ms'] / i['import_runnables_ms']:.2f}×); "
        f"`from lcel_agent import create_agent` {i['create_agent_ms']:.0f} ms against "
        f"`from langchain_core.runnables import Runnable` {i['runnable_ms']:.0f} ms "
        f"({i['create_agent_ms'] / i['runnable_ms']:.2f}×); `lcel-agent --help` {i['help_ms']:.0f} ms."
    )  # fmt: skip
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(overhead(20, rounds=3), import_time(5)))

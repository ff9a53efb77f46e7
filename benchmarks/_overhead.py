"""Part 2: framework overhead per loop, on a zero-latency in-process model and tool.

Every run is ``LOOPS`` model calls: ``LOOPS - 1`` calls of the ``echo`` tool, then the
answer. The floor is a bare Python loop calling the same model and tool directly.
"""

from __future__ import annotations

import asyncio
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.runnables import Runnable
from langchain_core.tools import tool
from pydantic import PrivateAttr

from benchmarks._frameworks import (
    Unavailable,
    classic_executor,
    langchain_v1,
    langgraph_prebuilt,
    lcel,
)
from lcel_agent import create_agent

LOOPS = 10


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


def _per_loop_us(run: Callable[[], Any], runs: int) -> float:
    run()  # warm-up: first-call imports and caches
    start = time.perf_counter()
    for _ in range(runs):
        run()
    return (time.perf_counter() - start) / (runs * LOOPS) * 1e6


def overhead(runs: int) -> list[dict[str, Any]]:
    """Microseconds per loop for each framework and the bare loop."""
    rows: list[dict[str, Any]] = []
    model = ScriptedModel()
    rows.append(
        {
            "framework": "bare Python loop (floor)",
            "us_per_loop": _per_loop_us(lambda: bare_loop(model), runs),
        }
    )
    json_agent = create_agent(model, [echo], max_loops=LOOPS + 1)
    rows.append(
        {
            "framework": "lcel_agent json, invoke",
            "us_per_loop": _per_loop_us(lambda: json_agent.invoke("echo x"), runs),
        }
    )

    async def many() -> None:
        for _ in range(runs):
            await json_agent.ainvoke("echo x")

    asyncio.run(json_agent.ainvoke("echo x"))
    start = time.perf_counter()
    asyncio.run(many())
    rows.append(
        {
            "framework": "lcel_agent json, ainvoke",
            "us_per_loop": (time.perf_counter() - start) / (runs * LOOPS) * 1e6,
        }
    )
    model = ScriptedModel()
    native = lcel("tool_calling")(model, [echo])
    rows.append(
        {
            "framework": "lcel_agent native, invoke",
            "us_per_loop": _per_loop_us(lambda: native("echo x"), runs),
        }
    )
    for label, build in [
        ("classic AgentExecutor (ReAct)", classic_executor),
        ("langchain 1.x create_agent", langchain_v1),
        ("langgraph create_react_agent", langgraph_prebuilt),
    ]:
        model = ScriptedModel()
        try:
            run = build(model, [echo])
        except Unavailable as exc:
            rows.append({"framework": label, "unavailable": str(exc)})
            continue
        rows.append({"framework": label, "us_per_loop": _per_loop_us(partial(run, "echo x"), runs)})
    floor = rows[0]["us_per_loop"]
    for row in rows:
        if "us_per_loop" in row:
            row["x_floor"] = row["us_per_loop"] / floor
    return rows


def import_time(repeats: int = 7) -> dict[str, float]:
    """Median ms of ``python -c "import lcel_agent"`` minus bare ``python -c pass``."""

    def median_ms(code: str) -> float:
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append((time.perf_counter() - start) * 1000)
        return statistics.median(times)

    bare = median_ms("pass")
    full = median_ms("import lcel_agent")
    return {"python_ms": bare, "import_lcel_agent_ms": full - bare}


def markdown(rows: list[dict[str, Any]], imports: dict[str, float]) -> str:
    """The overhead rows and the import time as markdown."""
    lines = ["| framework | µs per loop | × bare loop |", "|---|---|---|"]
    for r in rows:
        if "unavailable" in r:
            lines.append(f"| {r['framework']} | not run: {r['unavailable']} | |")
        else:
            lines.append(f"| {r['framework']} | {r['us_per_loop']:.0f} | {r['x_floor']:.1f} |")
    lines.append("")
    lines.append(
        f"Import time of `lcel_agent` in a fresh process: {imports['import_lcel_agent_ms']:.0f} ms "
        f"(beyond the {imports['python_ms']:.0f} ms of a bare `python -c pass`)."
    )
    return "\n".join(lines)

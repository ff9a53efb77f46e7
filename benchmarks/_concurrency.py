"""Part 3: many tasks at once, and the two weather calls of one run at once.

The model is the simulated server with a fixed latency and no noise; the tools talk
to the loopback fakes. Wall times are for the whole batch.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from benchmarks._tasks import succeeded
from lcel_agent import AgentResult, create_agent
from lcel_agent.testing.article import ARTICLE_TASK, ArticleTaskModel
from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services
from lcel_agent.tools import get_weather, search_baidu


def _llm(srv: SimulatedOpenAIServer) -> ChatOpenAI:
    return ChatOpenAI(
        model="gpt-4o-mini", base_url=srv.base_url, api_key=SecretStr("sk-bench"), timeout=10
    )


def _ok(results: list[AgentResult]) -> int:
    return sum(succeeded(r.output, ARTICLE_TASK) for r in results)


def batches(tasks: int) -> list[dict[str, Any]]:
    """Sequential invoke, batch (threads, 10 at once) and abatch (50 at once)."""
    inputs = [ARTICLE_TASK.prompt] * tasks
    rows: list[dict[str, Any]] = []
    with (
        SimulatedOpenAIServer(ArticleTaskModel(), latency=Latency(fixed=0.2)) as srv,
        FakeAmapServer() as amap,
        FakeBaiduServer() as baidu,
        use_services(amap, baidu),
    ):
        agent = create_agent(_llm(srv), [get_weather, search_baidu], max_loops=15)
        start = time.perf_counter()
        results = [agent.invoke(task) for task in inputs]
        rows.append(
            {"mode": "sequential invoke", "wall_s": time.perf_counter() - start, "ok": _ok(results)}
        )
        start = time.perf_counter()
        results = agent.batch(inputs, config={"max_concurrency": 10})
        rows.append(
            {
                "mode": "batch, max_concurrency=10",
                "wall_s": time.perf_counter() - start,
                "ok": _ok(results),
            }
        )
        start = time.perf_counter()
        results = asyncio.run(agent.abatch(inputs, config={"max_concurrency": 50}))
        rows.append(
            {
                "mode": "abatch, max_concurrency=50",
                "wall_s": time.perf_counter() - start,
                "ok": _ok(results),
            }
        )
    for row in rows:
        row["tasks"] = tasks
        row["speedup"] = rows[0]["wall_s"] / row["wall_s"]
    return rows


def parallel_tools(runs: int) -> list[dict[str, Any]]:
    """One run's weather calls concurrently vs one at a time, Amap taking 0.3 s a request."""
    rows: list[dict[str, Any]] = []
    with (
        SimulatedOpenAIServer(ArticleTaskModel(), latency=Latency(fixed=0.05)) as srv,
        FakeAmapServer(mode="slow", slow_seconds=0.3) as amap,
        FakeBaiduServer() as baidu,
        use_services(amap, baidu),
    ):
        for parallel in (True, False):
            # The model does what the agent's prompt asks: a JSON list of actions, or one.
            srv.policy = ArticleTaskModel(parallel=parallel)
            agent = create_agent(
                _llm(srv), [get_weather, search_baidu], max_loops=15, parallel_tool_calls=parallel
            )
            walls, calls, ok = [], [], 0
            for _ in range(runs):
                srv.clear()
                start = time.perf_counter()
                result = agent.invoke(ARTICLE_TASK.prompt)
                walls.append(time.perf_counter() - start)
                calls.append(len(srv.chat_requests))
                ok += succeeded(result.output, ARTICLE_TASK)
            rows.append(
                {
                    "parallel_tool_calls": parallel,
                    "runs": runs,
                    "wall_s": statistics.fmean(walls),
                    "llm_calls": statistics.fmean(calls),
                    "ok": ok,
                }
            )
    rows[1]["ratio"] = rows[1]["wall_s"] / rows[0]["wall_s"]
    return rows


def markdown(batch_rows: list[dict[str, Any]], tool_rows: list[dict[str, Any]]) -> str:
    """Both tables as markdown."""
    lines = ["| mode | tasks | wall s | speed-up | successes |", "|---|---|---|---|---|"]
    for r in batch_rows:
        lines.append(
            f"| {r['mode']} | {r['tasks']} | {r['wall_s']:.2f} | {r['speedup']:.1f}× | {r['ok']}/{r['tasks']} |"
        )
    lines += [
        "",
        "| parallel_tool_calls | runs | mean wall s | mean LLM calls | successes |",
        "|---|---|---|---|---|",
    ]
    for r in tool_rows:
        lines.append(
            f"| {r['parallel_tool_calls']} | {r['runs']} | {r['wall_s']:.2f} | {r['llm_calls']:.1f} | {r['ok']}/{r['runs']} |"
        )
    lines.append(
        f"\nOne at a time takes {tool_rows[1]['ratio']:.2f}× the wall time of concurrent calls."
    )
    return "\n".join(lines)

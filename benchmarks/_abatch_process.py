"""``abatch`` against a model server in another process: what the agent's own process can do.

The simulated OpenAI server and the fake Amap and Baidu services run in a child
process, so their threads do not share the agent's GIL (in
:mod:`benchmarks._concurrency` they share one process, as the tests do). The
model answers after a fixed latency; the speed-up is sequential ``invoke`` over
``abatch`` of the same tasks.

    python -m benchmarks._abatch_process          # 50 tasks, 200 ms: about a minute
"""

from __future__ import annotations

import asyncio
import multiprocessing
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any
from unittest import mock

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from benchmarks._tasks import succeeded
from lcel_agent import AgentResult, create_agent
from lcel_agent.testing.article import ARTICLE_TASK, ArticleTaskModel
from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer


def _serve(conn: Connection, latency: float) -> None:
    """The child process: start the servers, send their addresses, serve until told to stop."""
    with (
        SimulatedOpenAIServer(ArticleTaskModel(), latency=Latency(fixed=latency)) as srv,
        FakeAmapServer() as amap,
        FakeBaiduServer() as baidu,
    ):
        conn.send(
            {
                "llm": srv.base_url,
                "AMAP_BASE_URL": amap.base_url,
                "AMAP_KEY": amap.key,
                "BAIDU_BASE_URL": baidu.base_url,
            }
        )
        conn.recv()


@contextmanager
def services_elsewhere(latency: float) -> Iterator[str]:
    """Run the servers in a child process; point the tools at them; yield the model's URL."""
    ctx = multiprocessing.get_context("spawn")
    here, there = ctx.Pipe()
    process = ctx.Process(target=_serve, args=(there, latency), daemon=True)
    process.start()
    try:
        if not here.poll(60):
            raise RuntimeError("the server process did not start within 60 s")
        urls: dict[str, str] = here.recv()
        with mock.patch.dict(os.environ, {k: v for k, v in urls.items() if k != "llm"}):
            yield urls["llm"]
    finally:
        here.send("stop")
        process.join(10)
        if process.is_alive():
            process.terminate()


def _ok(results: list[AgentResult]) -> int:
    return sum(succeeded(r.output, ARTICLE_TASK) for r in results)


def abatch_speedup(tasks: int = 50, latency: float = 0.2) -> list[dict[str, Any]]:
    """Sequential ``invoke`` and ``abatch`` (all at once) of ``tasks`` article tasks."""
    from lcel_agent.tools import get_weather, search_baidu

    inputs = [ARTICLE_TASK.prompt] * tasks
    rows: list[dict[str, Any]] = []
    with services_elsewhere(latency) as url:
        llm = ChatOpenAI(
            model="gpt-4o-mini", base_url=url, api_key=SecretStr("sk-bench"), timeout=30
        )
        agent = create_agent(llm, [get_weather, search_baidu], max_loops=15)
        agent.invoke(ARTICLE_TASK.prompt)  # warm-up: connections, first-call imports
        start = time.perf_counter()
        results = [agent.invoke(task) for task in inputs]
        rows.append(
            {"mode": "sequential invoke", "wall_s": time.perf_counter() - start, "ok": _ok(results)}
        )
        start = time.perf_counter()
        results = asyncio.run(agent.abatch(inputs, config={"max_concurrency": tasks}))
        rows.append(
            {
                "mode": f"abatch, max_concurrency={tasks}",
                "wall_s": time.perf_counter() - start,
                "ok": _ok(results),
            }
        )
        loops = sum(r.loops for r in results)
    for row in rows:
        row |= {"tasks": tasks, "latency_s": latency, "model_calls": loops}
        row["speedup"] = rows[0]["wall_s"] / row["wall_s"]
    return rows  # fmt: skip


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as a markdown table."""
    lines = ["| mode | tasks | wall s | speed-up | successes |", "|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r['mode']} | {r['tasks']} | {r['wall_s']:.2f} | {r['speedup']:.1f}× "
            f"| {r['ok']}/{r['tasks']} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    print(markdown(abatch_speedup()))

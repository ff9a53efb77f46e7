"""How far past ``time_budget`` a run ends when the time runs out inside a model call.

    python benchmarks/deadline_overshoot.py             # 10 runs per case, budget 1 s
    python benchmarks/deadline_overshoot.py --runs 30 --budget 2

Over real HTTP on loopback: ``ChatOpenAI`` against the simulated server, which
answers the first request and then, on the second, never answers / asks for a
``Retry-After`` longer than the budget / fails with 503 again and again under a
backoff. Each case runs with ``invoke`` and ``ainvoke``. The table shows the
wall time of the run minus the budget (negative: the run stopped early, because
a wait that would outlast the budget is not started) and the stop reason.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import time
from typing import Any

import openai
from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from lcel_agent import create_agent
from lcel_agent.testing.faults import Fault, FaultSpec
from lcel_agent.testing.server import SimulatedOpenAIServer

KEY = "sk-bench-deadline-0000"
FIRST = {"name": "probe", "arguments": {"city": "北京"}}


@tool
def probe(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{city}市天气：晴"


CASES: dict[str, tuple[list[Any], dict[str, Any]]] = {
    "model never answers": ([FIRST, Fault.HANG], {"llm_timeout": 60.0}),
    "Retry-After 30 s": ([FIRST, FaultSpec(Fault.RATE_LIMIT, retry_after=30)], {}),
    "503 under backoff": ([FIRST, *[Fault.UNAVAILABLE] * 50], {"llm_retries": 50}),
}


def _once(
    mode: str, script: list[Any], budget: float, options: dict[str, Any]
) -> tuple[float, str]:
    with SimulatedOpenAIServer(script, require_key=KEY, hang_seconds=budget + 30) as srv:
        # Clients of its own, closed below (langchain-openai 1.x shares a cached one otherwise).
        llm = ChatOpenAI(
            base_url=srv.base_url,
            api_key=SecretStr(KEY),
            model="gpt-4o-mini",
            max_retries=0,
            http_client=openai.DefaultHttpxClient(),
            http_async_client=openai.DefaultAsyncHttpxClient(),
        )
        agent = create_agent(
            llm,
            [probe],
            protocol="tool_calling",
            time_budget=budget,
            llm_backoff=(0.1, 0.4),
            **options,
        )

        async def arun() -> Any:
            try:
                return await agent.ainvoke("查询北京天气")
            finally:
                await llm.root_async_client.close()

        started = time.monotonic()
        result = agent.invoke("查询北京天气") if mode == "sync" else asyncio.run(arun())
        elapsed = time.monotonic() - started
        llm.root_client.close()
    return elapsed - budget, result.stop_reason.value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--budget", type=float, default=1.0)
    args = parser.parse_args()
    print(f"time_budget={args.budget:g} s, {args.runs} runs per row; seconds past the budget\n")
    print(f"{'case':<22} {'mode':<6} {'min':>7} {'median':>7} {'max':>7}  stop")
    worst = float("-inf")
    for name, (script, options) in CASES.items():
        for mode in ("sync", "async"):
            runs = [_once(mode, list(script), args.budget, options) for _ in range(args.runs)]
            over = [r[0] for r in runs]
            stops = sorted({r[1] for r in runs})
            worst = max(worst, *over)
            print(
                f"{name:<22} {mode:<6} {min(over):7.3f} {statistics.median(over):7.3f} "
                f"{max(over):7.3f}  {', '.join(stops)}"
            )
    print(f"\nworst: {worst:.3f} s past the budget")


if __name__ == "__main__":
    main()

"""Part 1: the article's task (and the long task) on the simulated model, per framework.

Each run gets its own seeded model noise, model faults (429s) and Amap faults (slow
answers past the tool's timeout), so run ``i`` sees the same weather for every
framework. Tokens and calls come from the simulated server's request log.
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from benchmarks._frameworks import FRAMEWORKS, Build, Unavailable
from lcel_agent.testing.article import (
    ARTICLE_TASK,
    LONG_TASK,
    ArticleTaskModel,
    NoiseProfile,
    WeatherSearchTask,
)
from lcel_agent.testing.faults import FaultProfile, FaultSampler, Latency
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services
from lcel_agent.tools import WeatherTool, search_baidu

NOISE = NoiseProfile(fenced_json=0.15, prose_json=0.10, dict_input=0.05, misspelt_tool=0.05)
"""The model's noise per reply (fences and prose apply to the JSON protocol only)."""
RATE_LIMIT = 0.03
"""Share of model requests answered 429 (Retry-After 0.2 s)."""
AMAP_FAULT_RATE = 0.10
"""Share of Amap requests answered after 0.6 s, past the tool's 0.3 s timeout."""
LATENCY = Latency(fixed=0.05, per_output_token=0.002)


def weather_tool() -> WeatherTool:
    """get_weather with a short timeout and one attempt, so Amap faults reach the agent."""
    return WeatherTool(request_timeout=0.3, time_limit=1.0, attempts=1)


def succeeded(output: str | None, task: WeatherSearchTask) -> bool:
    """The answer holds every city's weather line and the search hit."""
    if not output:
        return False
    return all(f"{c}市天气" in output for c in task.cities) and "的搜索结果：" in output


def run_framework(label: str, build: Build, task: WeatherSearchTask, runs: int) -> dict[str, Any]:
    """``runs`` seeded runs of one framework; the row's figures."""
    with (
        SimulatedOpenAIServer(ArticleTaskModel(task), latency=LATENCY) as srv,
        FakeBaiduServer() as baidu,
    ):
        # ChatOpenAI's own default max_retries (2 in langchain-openai 1.x); lcel_agent turns
        # the client's retries off and retries in its call_llm stage (llm_retries=3).
        llm = ChatOpenAI(
            model="gpt-4o-mini", base_url=srv.base_url, api_key=SecretStr("sk-bench"), timeout=10
        )
        try:
            agent = build(llm, [weather_tool(), search_baidu])
        except Unavailable as exc:
            return {"framework": label, "unavailable": str(exc)}
        calls, prompt, completion, last, walls, ok = [], [], [], [], [], 0
        stops: Counter[str] = Counter()
        for i in range(runs):
            srv.policy = ArticleTaskModel(task, noise=NOISE, seed=i)
            srv.sampler = FaultSampler(FaultProfile(rate_limit=RATE_LIMIT, retry_after=0.2, seed=i))
            srv.clear()
            with (
                FakeAmapServer(fault_rate=AMAP_FAULT_RATE, slow_seconds=0.6, seed=i) as amap,
                use_services(amap, baidu),
            ):
                start = time.perf_counter()
                outcome = agent(task.prompt)
                walls.append(time.perf_counter() - start)
            log = srv.chat_requests
            used = [r.usage for r in log if r.usage]
            calls.append(len(log))
            prompt.append(sum(u["prompt_tokens"] for u in used))
            completion.append(sum(u["completion_tokens"] for u in used))
            last.append(used[-1]["prompt_tokens"] if used else 0)
            ok += succeeded(outcome.output, task)
            stops[outcome.stop] += 1
    mean = statistics.fmean
    return {
        "framework": label,
        "runs": runs,
        "llm_calls": mean(calls),
        "prompt_tokens": mean(prompt),
        "completion_tokens": mean(completion),
        "last_prompt_tokens": mean(last),
        "wall_s": mean(walls),
        "success": ok / runs,
        "stops": dict(stops),
    }


def task_table(task: WeatherSearchTask, runs: int) -> list[dict[str, Any]]:
    """One row per framework."""
    rows = []
    for label, build in FRAMEWORKS:
        try:
            rows.append(run_framework(label, build, task, runs))
        except Exception as exc:  # one framework's crash must not sink the others' rows
            rows.append({"framework": label, "unavailable": f"crashed: {exc!r}"[:200]})
    return rows


def markdown(rows: list[dict[str, Any]], *, last: bool = False) -> str:
    """The rows as a markdown table."""
    head = "| framework | runs | LLM calls | prompt tok | completion tok |"
    head += " last-call prompt tok |" if last else ""
    head += " wall s | success | stop reasons |"
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        if "unavailable" in r:
            lines.append(f"| {r['framework']} | not run: {r['unavailable']} |")
            continue
        cells = [
            r["framework"],
            str(r["runs"]),
            f"{r['llm_calls']:.2f}",
            f"{r['prompt_tokens']:.0f}",
            f"{r['completion_tokens']:.0f}",
        ]
        if last:
            cells.append(f"{r['last_prompt_tokens']:.0f}")
        stops = ", ".join(f"{k} {v}" for k, v in sorted(r["stops"].items()))
        cells += [f"{r['wall_s']:.2f}", f"{r['success']:.0%}", stops]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


__all__ = ["ARTICLE_TASK", "LONG_TASK", "markdown", "task_table"]

"""Part 1: the article's task, the eight-city task and the stress task, per framework.

Each run gets its own seeded model noise, model faults (429s) and Amap faults (slow
answers past the tool's timeout), so run ``i`` sees the same weather and the same
damage for every framework. Tokens and calls come from the simulated server's
request log (every request: retries of a 429 and a compactor's summaries included).
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from benchmarks.peers import (
    Peer,
    Unavailable,
    classic_executor,
    langchain_v1,
    langgraph_prebuilt,
    lcel,
)
from lcel_agent import SlidingWindowMemory
from lcel_agent.memory import SummaryCompactor
from lcel_agent.testing.article import (
    ARTICLE_TASK,
    LONG_TASK,
    STRESS_TASK,
    ArticleTaskModel,
    NoiseProfile,
    WeatherSearchTask,
)
from lcel_agent.testing.faults import FaultProfile, FaultSampler, Latency
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer, use_services
from lcel_agent.tools import WeatherTool, search_baidu


@dataclass(frozen=True)
class Profile:
    """How the simulated model damages its replies."""

    name: str
    noise: NoiseProfile
    varied: bool = False
    """Draw where a cut-off reply is cut, which misspelling, which prose (see ArticleTaskModel)."""
    long_lines: bool = False
    """Weather lines as long as real Amap's (WeatherTool(detailed=True): 80-84 characters)."""


PROFILE_A = Profile(
    "A",
    NoiseProfile(fenced_json=0.15, prose_json=0.10, dict_input=0.05, misspelt_tool=0.05),
)
"""Round 1's profile: fences and prose (harmless to a good cleaner), dicts for strings,
misspelt tools (always the same misspelling)."""
PROFILE_B = Profile(
    "B",
    NoiseProfile(invalid_json=0.10, prose_json=0.20, misspelt_tool=0.05, repeat_success=0.05),
    varied=True,
)
"""The second model: 10 % cut-off JSON (cut anywhere), 20 % prose around the JSON (four
wordings), 5 % misspelt tools (five misspellings each), 5 % a repeated call."""
PROFILE_A_LONG = Profile("A-long", PROFILE_A.noise, long_lines=True)
"""Profile A's noise, with tool outputs as long as real Amap's (the memory's harder case)."""
NOISE = PROFILE_A.noise
RATE_LIMIT = 0.03
"""Share of model requests answered 429 (Retry-After 0.2 s)."""
AMAP_FAULT_RATE = 0.10
"""Share of Amap requests answered after 0.6 s, past the tool's 0.3 s timeout."""
LATENCY = Latency(fixed=0.05, per_output_token=0.002)

#: The tables' rows: (label, peer). The first is lcel_agent as it comes.
FRAMEWORKS: list[tuple[str, Peer]] = [
    ("lcel_agent (defaults: json, max_errors=2, 800-token window)", lcel("json")),
    ("lcel_agent max_errors=3", lcel("json", max_errors=3)),
    ("lcel_agent max_errors=5", lcel("json", max_errors=5)),
    ("lcel_agent native tool calls", lcel("tool_calling")),
    ("lcel_agent plain window (compactor=None)",
     lcel("json", memory=lambda llm: SlidingWindowMemory(800, compactor=None))),
    ("lcel_agent model-written summary (SummaryCompactor)",
     lcel("json", memory=lambda llm: SlidingWindowMemory(800, compactor=SummaryCompactor(llm)))),
    ("classic AgentExecutor (ReAct)", classic_executor()),
    ("langchain 1.x create_agent", langchain_v1()),
    ("langgraph create_react_agent", langgraph_prebuilt(extra_steps=1)),
]  # fmt: skip


def weather_tool(detailed: bool = False) -> WeatherTool:
    """get_weather with a short timeout and one attempt, so Amap faults reach the agent."""
    return WeatherTool(request_timeout=0.3, time_limit=1.0, attempts=1, detailed=detailed)


def succeeded(output: str | None, task: WeatherSearchTask) -> bool:
    """The answer holds every city's weather line and every search hit."""
    if not output:
        return False
    hits = [f"“{query}”的搜索结果：" for query, _ in task.searches]
    return all(f"{c}市天气" in output for c in task.cities) and all(h in output for h in hits)


def _mean_per_call(per_run: list[list[int]]) -> list[float]:
    """Mean prompt tokens of call 1, 2, ... over the runs that made that call."""
    longest = max((len(run) for run in per_run), default=0)
    return [statistics.fmean(run[i] for run in per_run if len(run) > i) for i in range(longest)]


def run_framework(
    label: str,
    peer: Peer,
    task: WeatherSearchTask,
    runs: int,
    *,
    profile: Profile = PROFILE_A,
    max_loops: int = 15,
) -> dict[str, Any]:
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
            tools = [weather_tool(profile.long_lines), search_baidu]
            agent = peer(llm, tools, max_loops=max_loops)
        except Unavailable as exc:
            return {"framework": label, "unavailable": str(exc)}
        calls, prompt, completion, last, peak, walls, ok = [], [], [], [], [], [], 0
        per_call: list[list[int]] = []
        stops: Counter[str] = Counter()
        for i in range(runs):
            srv.policy = ArticleTaskModel(task, noise=profile.noise, seed=i, varied=profile.varied)
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
            prompts = [r.usage["prompt_tokens"] for r in log if r.usage]
            calls.append(len(log))
            prompt.append(sum(prompts))
            completion.append(sum(r.usage["completion_tokens"] for r in log if r.usage))
            last.append(prompts[-1] if prompts else 0)
            peak.append(max(prompts, default=0))
            per_call.append(prompts)
            ok += succeeded(outcome.output, task)
            stops[outcome.stop] += 1
    mean = statistics.fmean
    return {
        "framework": label,
        "runs": runs,
        "profile": profile.name,
        "llm_calls": mean(calls),
        "prompt_tokens": mean(prompt),
        "completion_tokens": mean(completion),
        "last_prompt_tokens": mean(last),
        "max_prompt_tokens": max(peak),
        "per_call_prompt_tokens": _mean_per_call(per_call),
        "wall_s": mean(walls),
        "success": ok / runs,
        "stops": dict(stops),
    }


def task_table(
    task: WeatherSearchTask,
    runs: int,
    *,
    profile: Profile = PROFILE_A,
    max_loops: int = 15,
    frameworks: list[tuple[str, Peer]] | None = None,
) -> list[dict[str, Any]]:
    """One row per framework."""
    rows = []
    for label, peer in frameworks or FRAMEWORKS:
        try:
            rows.append(
                run_framework(label, peer, task, runs, profile=profile, max_loops=max_loops)
            )
        except Exception as exc:  # one framework's crash must not sink the others' rows
            rows.append({"framework": label, "unavailable": f"crashed: {exc!r}"[:200]})
    return rows


def markdown(rows: list[dict[str, Any]]) -> str:
    """The rows as a markdown table."""
    head = (
        "| framework | runs | success | LLM calls | prompt tok | last-call prompt tok |"
        " max call prompt tok | completion tok | wall s | stop reasons |"
    )
    lines = [head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        if "unavailable" in r:
            lines.append(f"| {r['framework']} | not run: {r['unavailable']} |")
            continue
        stops = ", ".join(f"{k} {v}" for k, v in sorted(r["stops"].items()))
        cells = [
            r["framework"],
            str(r["runs"]),
            f"{r['success']:.0%}",
            f"{r['llm_calls']:.2f}",
            f"{r['prompt_tokens']:.0f}",
            f"{r['last_prompt_tokens']:.0f}",
            str(r["max_prompt_tokens"]),
            f"{r['completion_tokens']:.0f}",
            f"{r['wall_s']:.2f}",
            stops,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def verdict(rows: list[dict[str, Any]]) -> str:
    """lcel_agent's defaults against the peers: success, and prompt tokens as a share."""
    ran = [r for r in rows if "unavailable" not in r]
    ours = next((r for r in ran if r["framework"].startswith("lcel_agent (defaults")), None)
    peers = [r for r in ran if not r["framework"].startswith("lcel_agent")]
    if ours is None or not peers:
        return "(no comparison: a framework did not run)"
    good = [r for r in peers if r["success"] >= 0.95]
    best = min(good, key=lambda r: r["prompt_tokens"]) if good else None
    executor = next((r for r in peers if "AgentExecutor" in r["framework"]), None)
    parts = [
        f"**lcel_agent (defaults)**: {ours['success']:.0%} success, {ours['prompt_tokens']:,.0f} prompt tokens a run"
    ]
    if best is not None:
        share = ours["prompt_tokens"] / best["prompt_tokens"]
        parts.append(
            f"{share:.0%} of the best peer with ≥ 95 % success ({best['framework']}, {best['prompt_tokens']:,.0f})"
        )
    if executor is not None:
        share = ours["prompt_tokens"] / executor["prompt_tokens"]
        parts.append(f"{share:.0%} of AgentExecutor's ({executor['success']:.0%} success)")
    parts.append(f"largest prompt of any call {ours['max_prompt_tokens']:,} tokens")
    return "; ".join(parts) + "."


__all__ = [
    "ARTICLE_TASK",
    "LONG_TASK",
    "PROFILE_A",
    "PROFILE_B",
    "STRESS_TASK",
    "Profile",
    "markdown",
    "succeeded",
    "task_table",
    "verdict",
]

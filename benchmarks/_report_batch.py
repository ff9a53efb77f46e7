"""A batch of 1,000 results lines for the batch report: the report tests' data and the
browser benchmark's (``benchmarks/report_browser.py``), built the same way for both.

    lines = thousand_runs()          # about 10 s: 40 real runs, then copies
    html = render_batch(lines, title="results.jsonl")
"""

from __future__ import annotations

import json
import random
from typing import Any

import openai
from langchain_openai import ChatOpenAI

from lcel_agent import create_agent
from lcel_agent.testing.offline import simulated_services
from lcel_agent.testing.tasks import ADCODES, NoiseProfile
from lcel_agent.tools import get_weather, search_baidu


def thousand_runs() -> list[dict[str, Any]]:
    """1,000 results lines: 40 real runs of a noisy simulated model (format errors,
    misspelt tools, digests), each used 25 times with its own id, task, timings and token
    counts, in a shuffled finishing order. The same lines on every call (seeded)."""
    rng = random.Random(5)
    cities = list(ADCODES)
    tasks = [
        f"查询{'和'.join(rng.sample(cities, rng.choice((1, 2, 3))))}今天的天气"
        + rng.choice(("", "，然后百度搜索“台风最新路径”", "，再搜索“暴雨预警”"))
        for _ in range(40)
    ]
    noise = NoiseProfile(fenced_json=0.2, misspelt_tool=0.2, invalid_json=0.2, dict_input=0.1)
    with simulated_services(noise=noise, seed=3):
        # A client of its own, closed below: langchain-openai 1.x shares one per base URL
        # and timeout, which closing would break for a later user whose server reuses the port.
        llm = ChatOpenAI(model="gpt-4o-mini", timeout=30, http_client=openai.DefaultHttpxClient())
        agent = create_agent(llm, [get_weather, search_baidu], max_errors=2, max_loops=6)
        results = agent.batch(tasks, {"max_concurrency": 8})
        llm.root_client.close()
    lines = []
    for n in range(1000):
        data = json.loads(json.dumps(results[n % 40].to_dict()))
        scale = rng.uniform(0.5, 2.0)
        data["elapsed_s"] = round(data["elapsed_s"] * scale + rng.uniform(0, 0.5), 3)
        for step in data["steps"]:
            step["stage_ms"] = [[name, ms * scale] for name, ms in step["stage_ms"]]
        data["usage"]["input_tokens"] += rng.randrange(0, 400)
        data["usage"]["total_tokens"] = (
            data["usage"]["input_tokens"] + data["usage"]["output_tokens"]
        )
        lines.append({"id": f"q{n}", "input": f"{tasks[n % 40]}（第{n}题）", "result": data})
    rng.shuffle(lines)
    return lines

"""Where each microsecond of a loop goes, stage by stage (docs/benchmarks.md, part 2).

The agent of :mod:`benchmarks._overhead` (the zero-latency scripted model and the
``echo`` tool) runs ``--runs`` runs per round, in turns: invoke, ainvoke, and both
again with a do-nothing callback handler attached. Each loop's
``StepRecord.stage_ms`` says how long each stage took (its run bookkeeping
included when it has a run); "outside the stages" is the rest of the loop's time
(the gate, the ``loop:N`` run, the record). The table gives the median over rounds
of the mean µs per loop::

    python benchmarks/stage_profile.py [--runs 20] [--rounds 5]

Run it with ``PYTHONPATH`` pointing at another checkout to profile that code.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(ROOT))

from benchmarks._overhead import LOOPS, Quiet, ScriptedModel, echo  # noqa: E402
from lcel_agent import AgentResult, create_agent  # noqa: E402

MODES = ("invoke", "ainvoke", "invoke, handler", "ainvoke, handler")
OUTSIDE = "outside the stages"
TOTAL = "the whole loop"


def _round(agent: Any, mode: str, runs: int) -> dict[str, float]:
    """Mean µs per loop of each stage, the rest, and the whole, over ``runs`` runs."""
    config: Any = {"callbacks": [Quiet()]} if mode.endswith("handler") else None
    results: list[AgentResult] = []

    async def arun() -> float:
        start = time.perf_counter()
        for _ in range(runs):
            results.append(await agent.ainvoke("echo x", config))
        return time.perf_counter() - start

    if mode.startswith("ainvoke"):
        asyncio.run(agent.ainvoke("echo x", config))  # warm-up
        wall = asyncio.run(arun())
    else:
        agent.invoke("echo x", config)
        start = time.perf_counter()
        results = [agent.invoke("echo x", config) for _ in range(runs)]
        wall = time.perf_counter() - start
    loops = runs * LOOPS
    per_stage: dict[str, float] = defaultdict(float)
    for result in results:
        for step in result.steps:
            for name, ms in step.stage_ms:
                per_stage[name] += ms * 1000 / loops
    total = wall * 1e6 / loops
    return {**per_stage, OUTSIDE: total - sum(per_stage.values()), TOTAL: total}


def profile(runs: int, rounds: int) -> dict[str, dict[str, float]]:
    """``{mode: {stage: median µs per loop}}``."""
    agent = create_agent(ScriptedModel(), [echo], max_loops=LOOPS + 1)
    samples: dict[str, dict[str, list[float]]] = {m: defaultdict(list) for m in MODES}
    for _ in range(rounds):
        for mode in MODES:
            for name, us in _round(agent, mode, runs).items():
                samples[mode][name].append(us)
    return {m: {n: statistics.median(v) for n, v in s.items()} for m, s in samples.items()}


def markdown(table: dict[str, dict[str, float]]) -> str:
    """One row per stage, one column per mode."""
    names = list(table[MODES[0]])
    lines = ["| µs per loop | " + " | ".join(MODES) + " |", "|---" * (len(MODES) + 1) + "|"]
    for name in names:
        cells = " | ".join(f"{table[m].get(name, 0.0):.0f}" for m in MODES)
        lines.append(f"| {name} | {cells} |")
    return "\n".join(lines)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    print(markdown(profile(args.runs, args.rounds)))

"""What makes a small model write a complete answer from results? The answer stage's request, per variant.

    python -m benchmarks.real.answer_probe --model 1.5b --seeds 8
    python -m benchmarks.real.answer_probe --variants stage,subject_keys --tasks article,lines

A whole run spends its calls acting; whether the answer stage's request gets every fact
into the answer shows in one call. This gathers a task's results the way a run does
(the benchmark's own tools against its seeded Amap and Baidu), asks the answer stage's
request (``stage``: lcel_agent's own, as the stage sends it) or one of the variants
below, once per seed, through the model the runs use (the benchmark's temperature,
seed and ``max_tokens``), and judges the rendered answer with ``tasks.judge``.
docs/benchmarks.md ("The answer stage") has what it found. Needs what ``make bench-real``
builds (the llama.cpp venv and the models).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lcel_agent.rules.gathered import Result
from lcel_agent.stages.answer._reply import read_lines, read_text
from lcel_agent.stages.answer._request import Asking, Batch, lines_schema, request
from lcel_agent.stages.llm_profile import with_output_limit, with_schema
from lcel_agent.testing.services import use_services

from .models import MODELS, models_dir
from .run import chat_model
from .server import LlamaServer
from .services import SeededAmap, SeededBaidu, ToolLog, make_tools
from .tasks import TASKS, Task, World, judge

_LINK = re.compile(r'"link":\s*"[^"]*"')


def gather(task: Task, world: World, amap: SeededAmap, baidu: SeededBaidu) -> list[Result]:
    """Every call the task needs, made with the benchmark's tools, as a run gathers them."""
    amap.world = baidu.world = world
    log = ToolLog()
    weather, search = make_tools(log)
    for city in task.cities:
        weather.invoke({"city": city})
    search.invoke({"query": "台风最新路径"})
    return [Result(c["tool"], c["input"], c["output"]) for c in log.calls]


def _no_links(results: list[Result]) -> list[Result]:
    return [dataclasses.replace(r, text=_LINK.sub('"link": "…"', r.text)) for r in results]


#: Each variant: how the results are shown, whether the reply is held to a schema, and
#: how the schema's keys are named (None: the stage's own).
Variant = tuple[Callable[[list[Result]], list[Result]], bool, Callable[[Batch], list[str]] | None]
VARIANTS: dict[str, Variant] = {
    "stage": (lambda r: r, True, None),
    "stage_text": (lambda r: r, False, None),
    "subject_keys": (
        lambda r: r,
        True,
        lambda b: [f"{b.first + i}. {r.subject}" for i, r in enumerate(b.results)],
    ),
    "no_links": (_no_links, True, None),
    "no_links_subject_keys": (
        _no_links,
        True,
        lambda b: [f"{b.first + i}. {r.subject}" for i, r in enumerate(b.results)],
    ),
}


def _schema(batch: Batch, keys: Callable[[Batch], list[str]] | None) -> dict[str, Any]:
    schema = lines_schema(batch)
    if keys is None:
        return schema
    names = [*keys(batch), "summary"]
    return {**schema, "properties": {k: {"type": "string"} for k in names}, "required": names}


def ask(base_url: str, task: Task, results: list[Result], variant: Variant, seed: int) -> str:
    """The rendered answer of one request."""
    show, held, keys = variant
    batch = Batch(tuple(show(results)), 1, True)
    model: Any = with_output_limit(chat_model(base_url, seed), 1024)
    if held:
        model = with_schema(model, "json_object_schema", _schema(batch, keys))
    reply = str(
        model.invoke(request(Asking(task.prompt), batch, form="json" if held else "text")).content
    )
    lines = read_lines(reply, batch) if held else [read_text(reply) or ""]
    return "\n".join(lines or [reply])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="1.5b", choices=sorted(MODELS))
    parser.add_argument("--variants", default=",".join(VARIANTS), help="comma-separated")
    parser.add_argument("--tasks", default="article", help="comma-separated")
    parser.add_argument("--seeds", type=int, default=8, help="seeds 0 .. N-1")
    parser.add_argument("--server-python", default=".venv-llama/bin/python")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results/answer-probe"))
    args = parser.parse_args(argv)
    variants = args.variants.split(",")
    if unknown := [v for v in variants if v not in VARIANTS]:
        parser.error(f"unknown variant(s) {', '.join(unknown)}; known: {', '.join(VARIANTS)}")
    args.out.mkdir(parents=True, exist_ok=True)
    model_file = models_dir() / MODELS[args.model].filename
    with (
        LlamaServer(args.server_python, model_file, args.out / "server.log") as server,
        SeededAmap() as amap, SeededBaidu() as baidu, use_services(amap, baidu),
        (args.out / f"{args.model}.jsonl").open("a", encoding="utf-8") as record,
    ):  # fmt: skip
        for task_key in args.tasks.split(","):
            task = TASKS[task_key]
            for variant in variants:
                wins = []
                for seed in range(args.seeds):
                    world = World.draw(task, seed)
                    results = gather(task, world, amap, baidu)
                    answer = ask(server.base_url, task, results, VARIANTS[variant], seed)
                    verdict = judge(task, world, answer)
                    wins.append(verdict.success)
                    line = {"model": args.model, "task": task_key, "variant": variant,
                            "seed": seed, "success": verdict.success,
                            "missing": verdict.missing, "answer": answer}  # fmt: skip
                    record.write(json.dumps(line, ensure_ascii=False) + "\n")
                    record.flush()
                print(f"{args.model} {task_key:8} {variant:22} complete in {sum(wins)} of "
                      f"{len(wins)}  {['ok' if w else '--' for w in wins]}", flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())

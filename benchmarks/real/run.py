"""Run the real-model benchmark: frameworks side by side on small models behind llama.cpp.

    python -m benchmarks.real.run                          # everything (about 3 hours on 2 cores)
    python -m benchmarks.real.run --models 1.5b --tasks article \\
        --frameworks lcel-json,executor --n 10             # the quick subset
    python -m benchmarks.real.run --resume                 # go on after an interruption

``make bench-real`` / ``make bench-real-quick`` build what this needs and call it. For
each model it starts the llama.cpp server on a free loopback port, a recording proxy in
front of it, and the seeded fake Amap and Baidu; then, task by task and seed by seed,
runs every framework once on the same seed (the same sampling seed, the same tool data).
Each run writes ``runs/<model>/<task>/<framework>/seed-<n>.json`` (the verdict and the
figures) and ``.jsonl`` beside it (every model request and response and every tool call,
in order). The tables and plots are written at the end (``report``).
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from benchmarks.peers import Outcome, Unavailable
from benchmarks.real import report
from benchmarks.real.models import MODELS, ROOT, models_dir
from benchmarks.real.prefix import prefix_shares, previous_kept, server_reused
from benchmarks.real.proxy import RecordingProxy
from benchmarks.real.render import Renderer
from benchmarks.real.rows import LLM_TIMEOUT, ROWS, Row
from benchmarks.real.server import LlamaServer
from benchmarks.real.services import SeededAmap, SeededBaidu, ToolLog, describe_world, make_tools
from benchmarks.real.tasks import TASKS, Task, World, gathered, judge
from lcel_agent.testing.services import use_services

TEMPERATURE = 0.2
"""The article's own setting (gpt-4o-mini at 0.2); ``--temperature 0.7`` is the second row."""
MAX_TOKENS = 512
"""Completion cap per call, for every framework (a run-on reply ends as ``length``)."""
PACKAGES = ("lcel-agent", "langchain-core", "langchain-openai", "openai", "langchain",
            "langchain-classic", "langgraph")  # fmt: skip


def versions(packages: tuple[str, ...] = PACKAGES) -> dict[str, str]:
    """Each package's installed version ("not installed" where it is not)."""
    found = {}
    for name in packages:
        try:
            found[name] = version(name)
        except PackageNotFoundError:
            found[name] = "not installed"
    return found


def plan(
    models: list[str], tasks: list[str], rows: list[str], n: int, n_other: int, seed_base: int
) -> Iterator[tuple[str, Task, int, Row]]:
    """Every run, model by model, task by task, seed by seed, then row by row.

    Seed-major order spreads the machine's load over the rows alike, and an interrupted
    run leaves every row with about as many seeds as the others.
    """
    for model in models:
        for task_key in tasks:
            task = TASKS[task_key]
            for seed in range(seed_base, seed_base + max(n, n_other)):
                for key in rows:
                    row = ROWS[key]
                    runs = n if row.primary and model == "1.5b" else n_other
                    if seed < seed_base + runs:
                        yield model, task, seed, row


def run_path(out: Path, model: str, task: Task, row: Row, seed: int) -> Path:
    return out / "runs" / model / task.key / row.key / f"seed-{seed}.json"


def chat_model(
    base_url: str, seed: int, max_tokens: int = MAX_TOKENS, temperature: float = TEMPERATURE
) -> ChatOpenAI:
    """The model as every run asks it: the llama.cpp server at ``base_url``, one seed."""
    # max_tokens goes in extra_body too: langchain-openai 1.x sends it as
    # max_completion_tokens, which llama-cpp-python's server does not read.
    return ChatOpenAI(
        model="local", base_url=base_url + "/v1", api_key=SecretStr("sk-local"),
        temperature=temperature, seed=seed, timeout=LLM_TIMEOUT, max_tokens=max_tokens,
        extra_body={"max_tokens": max_tokens},
    )  # fmt: skip


def _per_call(calls: list[dict[str, Any]], renderer: Renderer) -> list[dict[str, Any]]:
    """Tokens, timing and prefix reuse of each model call."""
    tokens = [renderer.tokens(call["request"]) for call in calls]
    shares = prefix_shares([t or [] for t in tokens])
    kept = previous_kept([t or [] for t in tokens])
    out = []
    for call, rendered, share, keep in zip(calls, tokens, shares, kept, strict=True):
        usage = call.get("usage") or {}
        choice = ((call.get("response") or {}).get("choices") or [{}])[0]
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        counted_by = "server"
        if not usage and call["status"] == 200:
            # A streamed reply carries no usage from this server: count it ourselves.
            text = (choice.get("message") or {}).get("content") or ""
            reply = renderer.tokens({"text": text})
            prompt = len(rendered) if rendered is not None else None
            completion = len(reply) if reply is not None else None
            counted_by = "benchmark tokenizer"
        out.append({
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "counted_by": counted_by,
            "elapsed_s": call["elapsed_s"],
            "status": call["status"],
            "finish_reason": choice.get("finish_reason"),
            "rendered_tokens": len(rendered) if rendered is not None else None,
            "render_error": None if rendered is not None else renderer.last_error,
            "prefix_share": share if rendered is not None else None,
            "previous_kept": keep if rendered is not None else None,
            "server_reused": server_reused("\n".join(call["server_log"]), prompt),
        })  # fmt: skip
    return out


def _transcript(
    calls: list[dict[str, Any]], per_call: list[dict[str, Any]], tools: ToolLog
) -> list[dict[str, Any]]:
    """Model calls and tool calls in the order they happened."""
    lines = [
        {"kind": "model", "call": i + 1, "t": c["started"], **figures, "request": c["request"],
         "response": c["response"], "server_log": c["server_log"]}
        for i, (c, figures) in enumerate(zip(calls, per_call, strict=True))
    ]  # fmt: skip
    lines += [{"kind": "tool", **call} for call in tools.calls]
    return sorted(lines, key=lambda line: line["t"])


def run_once(
    *, task: Task, seed: int, row: Row, model: str, proxy: RecordingProxy, renderer: Renderer,
    amap: SeededAmap, baidu: SeededBaidu, max_tokens: int, temperature: float = TEMPERATURE,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:  # fmt: skip
    """One run of one framework: its record and its transcript."""
    world = World.draw(task, seed)
    amap.world = baidu.world = world
    tools = ToolLog()
    llm = chat_model(proxy.base_url, seed, max_tokens, temperature)
    load = os.getloadavg()[0]
    proxy.take()
    start = time.perf_counter()
    try:
        agent = row.peer(llm, make_tools(tools), max_loops=task.max_loops)
        outcome = agent(task.prompt)
    except Unavailable:
        raise
    except Exception as exc:  # a framework's crash is its result; the harness goes on
        outcome = Outcome(f"crashed: {type(exc).__name__}", detail=str(exc)[:500])
    wall = time.perf_counter() - start
    calls = proxy.take()
    per_call = _per_call(calls, renderer)
    verdict = judge(task, world, outcome.output)
    had = gathered(task, world, [c["output"] for c in tools.calls])
    weather = [c for c in tools.calls if c["tool"] == "get_weather"]
    record = {
        "model": model, "model_file": MODELS[model].filename, "task": task.key,
        "framework": row.key, "label": row.label, "seed": seed, "max_loops": task.max_loops,
        "temperature": temperature, "max_tokens": max_tokens, "prompt": task.prompt,
        "success": verdict.success, "facts": verdict.found,
        "gathered": had.success, "gathered_facts": had.found, "missing": verdict.missing,
        "humidity": verdict.humidity, "output": outcome.output, "stop": outcome.stop,
        "detail": outcome.detail, "calls": len(calls),
        "prompt_tokens": sum(c["prompt_tokens"] or 0 for c in per_call),
        "completion_tokens": sum(c["completion_tokens"] or 0 for c in per_call),
        "wall_s": round(wall, 2), "per_call": per_call,
        "tool_calls": len(tools.calls),
        "tool_errors": sum(c["output"].startswith("ERROR:") for c in tools.calls),
        "first_weather_input": weather[0]["input"] if weather else None,
        "first_weather_error": bool(weather) and weather[0]["output"].startswith("ERROR:"),
        "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2),
        "world": describe_world(world), "versions": versions(),
        "lcel_result": outcome.result.to_dict() if outcome.result is not None else None,
    }  # fmt: skip
    return record, _transcript(calls, per_call, tools)


def _write(path: Path, record: dict[str, Any], transcript: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_suffix(".jsonl").open("w", encoding="utf-8") as f:
        for line in transcript:
            f.write(json.dumps(line, ensure_ascii=False) + "\n")
    partial = path.with_suffix(".json.partial")
    partial.write_text(json.dumps(record, ensure_ascii=False, indent=1), encoding="utf-8")
    partial.replace(path)  # the .json appears last and whole: --resume trusts it


def run_model(model: str, todo: list[tuple[Task, int, Row]], args: argparse.Namespace) -> int:
    """Every run of one model, with its server, proxy and renderer; how many ran."""
    path = models_dir() if args.models_dir is None else args.models_dir
    model_file = path / MODELS[model].filename
    log = args.out / f"server-{model}.log"
    llama_version = server_version(args.server_python)
    done = 0
    with (
        LlamaServer(args.server_python, model_file, log, threads=args.threads) as server,
        RecordingProxy(server.base_url, log=(server.log_mark, server.log_since)) as proxy,
        Renderer(args.server_python, model_file) as renderer,
        SeededAmap() as amap, SeededBaidu() as baidu, use_services(amap, baidu),
    ):  # fmt: skip
        print(f"[{model}] server on {server.base_url}, proxy on {proxy.base_url}", flush=True)
        for task, seed, row in todo:
            target = run_path(args.out, model, task, row, seed)
            try:
                record, transcript = run_once(
                    task=task, seed=seed, row=row, model=model, proxy=proxy, renderer=renderer,
                    amap=amap, baidu=baidu, max_tokens=args.max_tokens,
                    temperature=args.temperature,
                )  # fmt: skip
            except Unavailable as exc:
                print(f"[{model}] {row.key}: not run ({exc})", flush=True)
                continue
            if not server.alive():
                raise SystemExit(f"the llama.cpp server died; its log: {log}")
            record["llama_cpp_python"] = llama_version
            record["server_threads"] = args.threads
            _write(target, record, transcript)
            done += 1
            verdict = "ok  " if record["success"] else "FAIL"
            print(
                f"[{model}] {task.key:<7} seed {seed:<3} {row.key:<10} {verdict} "
                f"stop={record['stop']:<14} calls={record['calls']:<2} "
                f"prompt={record['prompt_tokens']:<6} wall={record['wall_s']:.0f}s "
                f"missing={','.join(record['missing'][:3])}",
                flush=True,
            )
    return done


def _keys(text: str, known: dict[str, Any], what: str) -> list[str]:
    keys = [k.strip() for k in text.split(",") if k.strip()]
    unknown = [k for k in keys if k not in known]
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(unknown)} (known: {', '.join(known)})")
    return keys


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--models", default="1.5b,0.5b", help="comma-separated: 1.5b,0.5b")
    parser.add_argument(
        "--tasks", default=",".join(TASKS), help=f"comma-separated: {','.join(TASKS)}"
    )
    parser.add_argument(
        "--frameworks",
        default=",".join(k for k, row in ROWS.items() if not row.probe),
        help=f"comma-separated: {','.join(ROWS)}",
    )
    parser.add_argument(
        "--n", type=int, default=10, help="runs a task of lcel-json and executor on 1.5b"
    )
    parser.add_argument(
        "--n-other",
        type=int,
        default=None,
        help="runs a task of the others and on 0.5b (default: --n)",
    )
    parser.add_argument("--seed-base", type=int, default=0, help="run i uses seed seed-base + i")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "real")
    parser.add_argument("--resume", action="store_true", help="skip runs already recorded in --out")
    parser.add_argument("--server-python", default=str(ROOT / ".venv-llama" / "bin" / "python"))
    parser.add_argument(
        "--models-dir", type=Path, default=None, help="default: $LCEL_MODELS_DIR or .models/"
    )
    parser.add_argument("--max-tokens", type=int, default=MAX_TOKENS)
    parser.add_argument(
        "--temperature", type=float, default=TEMPERATURE, help="sampling temperature (0.2)"
    )
    parser.add_argument("--threads", type=int, default=2, help="the server's --n_threads")
    parser.add_argument("--no-report", action="store_true", help="skip the tables and plots")
    args = parser.parse_args(argv)  # fmt: skip
    models = _keys(args.models, MODELS, "models")
    tasks = _keys(args.tasks, TASKS, "tasks")
    rows = _keys(args.frameworks, ROWS, "frameworks")
    n_other = args.n if args.n_other is None else args.n_other
    args.out.mkdir(parents=True, exist_ok=True)
    # SIGTERM (a killed make, a CI timeout) unwinds like Ctrl-C: the server is stopped.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    todo: dict[str, list[tuple[Task, int, Row]]] = {}
    skipped = 0
    for model, task, seed, row in plan(models, tasks, rows, args.n, n_other, args.seed_base):
        if args.resume and run_path(args.out, model, task, row, seed).exists():
            skipped += 1
            continue
        todo.setdefault(model, []).append((task, seed, row))
    total = sum(len(v) for v in todo.values())
    print(f"{total} runs to do ({skipped} already recorded) into {args.out}", flush=True)
    start = time.perf_counter()
    try:
        for model, runs in todo.items():
            run_model(model, runs, args)
    except KeyboardInterrupt:
        print("interrupted: the server is stopped; --resume goes on from here", file=sys.stderr)
        return 130
    minutes = (time.perf_counter() - start) / 60
    print(f"{total} runs in {minutes:.1f} min", flush=True)
    if not args.no_report:
        report.main([str(args.out)])
    return 0


def server_version(python: str) -> str:
    """llama-cpp-python's version in the server's venv."""
    done = subprocess.run(
        [python, "-c", "import llama_cpp; print(llama_cpp.__version__)"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return done.stdout.strip() or "unknown"


if __name__ == "__main__":
    sys.exit(main())

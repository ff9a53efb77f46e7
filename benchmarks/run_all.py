"""Every lcel_agent benchmark in one command; markdown on stdout, JSON in results/latest.json.

    python benchmarks/run_all.py              # the full run (N=50 task runs per framework)
    python benchmarks/run_all.py --runs 20    # fewer task runs
    python benchmarks/run_all.py --quick      # the regression guard, under a minute

``--quick`` is the regression guard: part 2 (overhead per loop against LangGraph,
start-up) with one seeded run of the article's task; it skips the concurrency and
memory parts and the separate-process ``abatch``.

Needs the "bench" extra (langchain, langchain-classic, langgraph) for the other
frameworks' rows; a framework that is missing gets a row saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(ROOT))

from benchmarks import (  # noqa: E402
    _abatch_process,
    _concurrency,
    _overhead,
    _tasks,
    prompt_budget,
)

PACKAGES = [
    "lcel-agent", "langchain-core", "langchain-openai", "openai", "langchain",
    "langchain-classic", "langgraph", "langgraph-prebuilt", "tiktoken",
]  # fmt: skip


def machine() -> dict[str, Any]:
    """nproc, CPU model, Python and package versions."""
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    versions = {}
    for name in PACKAGES:
        try:
            versions[name] = version(name)
        except PackageNotFoundError:
            versions[name] = "not installed"
    return {
        "nproc": os.cpu_count(),
        "cpu": cpu,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "packages": versions,
    }


def memory_scaling(quick: bool, data: Path | None = None) -> str:
    """benchmarks/memory_scaling.py's tables (its own stdout), if the script exists;
    its table 1 as JSON into ``data`` too, when given (for the plots)."""
    script = ROOT / "benchmarks" / "memory_scaling.py"
    if not script.exists():
        return "(benchmarks/memory_scaling.py is not present)"
    args = [sys.executable, str(script)] + (["--quick"] if quick else [])
    args += ["--json", str(data)] if data is not None else []
    done = subprocess.run(args, capture_output=True, text=True, cwd=ROOT, check=False)
    if done.returncode:
        return f"(memory_scaling.py failed with exit code {done.returncode}: {done.stderr[-500:]})"
    return done.stdout.strip()


def plots(report: dict[str, Any], out: Path) -> None:
    """SVG plots of this run next to its JSON (benchmarks/_plots.py; needs matplotlib)."""
    try:
        import matplotlib  # noqa: F401  (the "bench" extra)
    except ImportError:
        print("No plots: matplotlib is not installed (pip install -e '.[bench]')")
        return
    from benchmarks import _plots

    written, notes = _plots.write_plots(report, out)
    print(f"Plots: {', '.join(p.name for p in written) or 'none'} in {out}")
    for note in notes:
        print(f"  skipped: {note}")


def section(title: str, body: str, took: float) -> str:
    text = f"\n## {title}\n\n{body}\n\n_({took:.0f} s)_\n"
    print(text, flush=True)
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=None, help="task runs per framework (50)")
    parser.add_argument("--quick", action="store_true", help="the regression guard, under a minute")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "latest.json")
    parser.add_argument("--tasks-only", action="store_true", help="only the task tables (part 1)")
    args = parser.parse_args(argv)
    runs = args.runs or (1 if args.quick else 50)
    stress_runs = 0 if args.quick else max(1, (args.runs or 50) * 2 // 5)
    loop_runs = 10 if args.quick else 40
    loop_rounds = 3 if args.quick else 7
    tasks = 10 if args.quick else 50
    tool_runs = 2 if args.quick else 5

    started = time.perf_counter()
    report: dict[str, Any] = {
        "command": " ".join(["python", "benchmarks/run_all.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": machine(),
        "settings": {
            "runs": runs, "stress_runs": stress_runs, "loop_runs": loop_runs, "loop_rounds": loop_rounds,
            "concurrent_tasks": tasks, "parallel_tool_runs": tool_runs,
            "profiles": {p.name: {**vars(p.noise), "varied": p.varied, "long_lines": p.long_lines} for p in (_tasks.PROFILE_A, _tasks.PROFILE_B, _tasks.PROFILE_A_LONG)},
            "rate_limit": _tasks.RATE_LIMIT,
            "amap_fault_rate": _tasks.AMAP_FAULT_RATE, "latency": vars(_tasks.LATENCY),
        },
    }  # fmt: skip
    print(f"# lcel_agent benchmarks\n\n```\n{json.dumps(report['machine'], indent=1)}\n```")

    t = time.perf_counter()
    report["prompt_budget"] = prompt_budget.rows()
    section("0. What a prompt spends", prompt_budget.markdown(), time.perf_counter() - t)

    # (key, title, task, profile, runs, max_loops): every framework, the same seeds.
    task_sections = [
        ("task", "1. The article's task, profile A", _tasks.ARTICLE_TASK, _tasks.PROFILE_A, runs, 15),
        ("task_noise_b", "1b. The article's task, profile B", _tasks.ARTICLE_TASK, _tasks.PROFILE_B, runs, 15),
        ("long_task", "1c. Eight cities then a search, profile A", _tasks.LONG_TASK, _tasks.PROFILE_A, runs, 20),
        ("long_task_noise_b", "1d. Eight cities then a search, profile B", _tasks.LONG_TASK, _tasks.PROFILE_B, max(1, runs * 2 // 5), 20),
        ("stress_task", "1e. The stress task: 22 cities then 3 searches, profile A", _tasks.STRESS_TASK, _tasks.PROFILE_A, stress_runs, 40),
        ("task_long_lines", "1f. The article's task, profile A, Amap-length weather lines", _tasks.ARTICLE_TASK, _tasks.PROFILE_A_LONG, runs, 15),
        ("long_task_long_lines", "1g. Eight cities then a search, profile A, Amap-length weather lines", _tasks.LONG_TASK, _tasks.PROFILE_A_LONG, runs, 20),
        ("stress_task_long_lines", "1h. The stress task, profile A, Amap-length weather lines", _tasks.STRESS_TASK, _tasks.PROFILE_A_LONG, stress_runs, 40),
    ]  # fmt: skip
    if args.quick:  # one table, one run: the guard's time goes to part 2
        task_sections = task_sections[:1]
    for key, title, task, profile, n, max_loops in task_sections:
        if not n:
            continue
        t = time.perf_counter()
        rows = _tasks.task_table(task, n, profile=profile, max_loops=max_loops)
        report[key] = rows
        body = _tasks.markdown(rows) + "\n\n" + _tasks.verdict(rows)
        section(f"{title} ({n} seeded runs, max_loops={max_loops})", body, time.perf_counter() - t)
    if args.tasks_only:
        return finish(report, args.out, started)

    t = time.perf_counter()
    rows = _overhead.overhead(loop_runs, rounds=loop_rounds)
    imports = _overhead.import_time(3 if args.quick else 7)
    report["overhead"], report["import_time"] = rows, imports
    print(_overhead.verdict(rows), flush=True)  # the guard's line, also in the section
    section(
        f"2. Overhead per loop ({loop_rounds} rounds × {loop_runs} runs × {_overhead.LOOPS} loops)",
        _overhead.markdown(rows, imports),
        time.perf_counter() - t,
    )
    if args.quick:
        return finish(report, args.out, started)

    t = time.perf_counter()
    report["abatch_process"] = abatch_rows = _abatch_process.abatch_speedup(tasks)
    section(
        f"2b. abatch of {tasks} article tasks, servers in another process (200 ms model latency)",
        _abatch_process.markdown(abatch_rows),
        time.perf_counter() - t,
    )

    t = time.perf_counter()
    batch_rows = _concurrency.batches(tasks)
    tool_rows = _concurrency.parallel_tools(tool_runs)
    report["concurrency"], report["parallel_tools"] = batch_rows, tool_rows
    section("3. Concurrency", _concurrency.markdown(batch_rows, tool_rows), time.perf_counter() - t)

    t = time.perf_counter()
    data = args.out.parent / "memory_scaling.json"
    args.out.parent.mkdir(parents=True, exist_ok=True)
    report["memory_scaling"] = memory_scaling(args.quick, data)
    if data.exists():
        report["memory_scaling_data"] = json.loads(data.read_text(encoding="utf-8"))
    section(
        "4. Memory scaling (benchmarks/memory_scaling.py)",
        report["memory_scaling"],
        time.perf_counter() - t,
    )

    return finish(report, args.out, started)


def finish(report: dict[str, Any], out: Path, started: float) -> int:
    """Write the JSON and the plots."""
    report["total_s"] = time.perf_counter() - started
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, ensure_ascii=False, indent=1, default=str))
    print(f"Total {report['total_s']:.0f} s; JSON written to {out}")
    plots(report, out.parent / "plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())

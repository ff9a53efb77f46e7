"""Every lcel_agent benchmark in one command; markdown on stdout, JSON in results/latest.json.

    python benchmarks/run_all.py              # the full run (N=50 task runs per framework)
    python benchmarks/run_all.py --runs 20    # fewer task runs
    python benchmarks/run_all.py --quick      # a smoke run of about a minute

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

from benchmarks import _concurrency, _overhead, _tasks  # noqa: E402

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
    parser.add_argument("--quick", action="store_true", help="a smoke run of about a minute")
    parser.add_argument("--out", type=Path, default=ROOT / "benchmarks" / "results" / "latest.json")
    args = parser.parse_args(argv)
    runs = args.runs or (3 if args.quick else 50)
    long_runs = max(1, runs // 5) if args.runs or not args.quick else 1
    loop_runs = 20 if args.quick else 200
    tasks = 10 if args.quick else 50
    tool_runs = 2 if args.quick else 5

    started = time.perf_counter()
    report: dict[str, Any] = {
        "command": " ".join(["python", "benchmarks/run_all.py", *(argv if argv is not None else sys.argv[1:])]),
        "machine": machine(),
        "settings": {
            "runs": runs, "long_runs": long_runs, "loop_runs": loop_runs,
            "concurrent_tasks": tasks, "parallel_tool_runs": tool_runs,
            "noise": vars(_tasks.NOISE), "rate_limit": _tasks.RATE_LIMIT,
            "amap_fault_rate": _tasks.AMAP_FAULT_RATE, "latency": vars(_tasks.LATENCY),
        },
    }  # fmt: skip
    print(f"# lcel_agent benchmarks\n\n```\n{json.dumps(report['machine'], indent=1)}\n```")

    t = time.perf_counter()
    rows = _tasks.task_table(_tasks.ARTICLE_TASK, runs)
    report["task"] = rows
    section(
        f"1. The article's task ({runs} seeded runs per framework)",
        _tasks.markdown(rows),
        time.perf_counter() - t,
    )

    t = time.perf_counter()
    rows = _tasks.task_table(_tasks.LONG_TASK, long_runs)
    report["long_task"] = rows
    section(
        f"1b. The long task: 8 cities then a search ({long_runs} runs)",
        _tasks.markdown(rows, last=True),
        time.perf_counter() - t,
    )

    t = time.perf_counter()
    rows = _overhead.overhead(loop_runs)
    imports = _overhead.import_time(3 if args.quick else 7)
    report["overhead"], report["import_time"] = rows, imports
    section(
        f"2. Overhead per loop ({loop_runs} runs × {_overhead.LOOPS} loops)",
        _overhead.markdown(rows, imports),
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

    report["total_s"] = time.perf_counter() - started
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, ensure_ascii=False, indent=1, default=str))
    print(f"Total {report['total_s']:.0f} s; JSON written to {args.out}")
    plots(report, args.out.parent / "plots")
    return 0


if __name__ == "__main__":
    sys.exit(main())

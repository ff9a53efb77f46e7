"""Batch runs: 1,000 article tasks, the local executor against Ray with 1, 2 and 4 workers.

    python -m benchmarks.batch_ray                # from the repository root: 1,000 tasks a row
    python -m benchmarks.batch_ray --tasks 200    # quicker

The simulated model (200 ms per answer, noise-free) and the fake Amap and Baidu run in a
process of their own; each row runs in a fresh process (so peak memory is the row's own)
with ``max_in_flight=32`` per worker. Reports runs per second once the workers are up,
start-up time, peak memory (VmHWM) and CPU seconds of each part: the driver, the workers,
Ray's own processes and the servers. Markdown on stdout, JSON in
benchmarks/results/batch.json.
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
ROWS: list[tuple[str, int | None]] = [("local", None), ("ray", 1), ("ray", 2), ("ray", 4)]
_TICK = os.sysconf("SC_CLK_TCK")


def make_agent(base_url: str, mark_dir: str) -> Any:
    """The article's agent on the simulated model, with the bundled tools (fake services)."""
    from langchain_openai import ChatOpenAI
    from pydantic import SecretStr

    from lcel_agent import create_agent
    from lcel_agent.tools import get_weather, search_baidu

    Path(mark_dir, str(os.getpid())).touch()
    llm = ChatOpenAI(model="gpt-4o-mini", base_url=base_url, api_key=SecretStr("sk-bench"),
                     timeout=30)  # fmt: skip
    return create_agent(llm, [get_weather, search_baidu], max_loops=10)


# --- /proc readings -----------------------------------------------------------------------


def peak_mb(pid: int) -> float | None:
    """The process's peak resident memory (VmHWM), in MB."""
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def cpu_s(pid: int) -> float | None:
    """User plus system CPU seconds of the process so far."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / _TICK


def pids_mentioning(text: str) -> set[int]:
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text in (entry / "cmdline").read_text(errors="ignore"):
                    found.add(int(entry.name))
            except OSError:
                continue
    return found


class Sampler:
    """Keeps the last peak-memory and CPU reading of the job's worker and Ray processes
    (both only grow, so the last reading before a process exits is its total)."""

    def __init__(self, marks: Path, ray_dir: str) -> None:
        self.marks, self.ray_dir = marks, ray_dir
        self.last: dict[int, tuple[float, float]] = {}
        self.workers: set[int] = set()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(0.5):
            self.sample()

    def sample(self) -> None:
        self.workers |= {int(p.name) for p in self.marks.iterdir()}
        for pid in self.workers | pids_mentioning(self.ray_dir):
            memory, cpu = peak_mb(pid), cpu_s(pid)
            if memory is not None and cpu is not None and pid != os.getpid():
                self.last[pid] = (memory, cpu)

    def __enter__(self) -> Sampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def totals(self, pids: set[int]) -> tuple[float, float]:
        rows = [self.last[p] for p in pids if p in self.last]
        return sum(m for m, _ in rows), sum(c for _, c in rows)


# --- one row, in its own process -------------------------------------------------------------


def one_row(
    executor: str, workers: int | None, tasks: int, services: dict[str, str]
) -> dict[str, Any]:
    from benchmarks._tasks import succeeded
    from lcel_agent.batch import run_batch
    from lcel_agent.testing.article import ARTICLE_TASK

    os.environ.update({"AMAP_KEY": services["amap_key"], "AMAP_BASE_URL": services["amap_url"],
                       "BAIDU_BASE_URL": services["baidu_url"]})  # fmt: skip
    work = Path(tempfile.mkdtemp(prefix="bb", dir="/tmp"))
    marks = work / "marks"
    marks.mkdir()
    os.environ["RAY_TMPDIR"] = str(work)  # Ray's processes name it: the sampler finds them
    out = work / "results.jsonl"
    make = functools.partial(make_agent, services["base_url"], str(marks))
    inputs = (ARTICLE_TASK.prompt for _ in range(tasks))
    cpu_before = time.process_time()
    with Sampler(marks, str(work)) as sampler:
        summary = run_batch(make, inputs, out=out, executor=executor,  # type: ignore[arg-type]
                            workers=workers, max_in_flight=32, progress=False)  # fmt: skip
    outputs = [json.loads(line)["result"]["output"] for line in out.read_text().splitlines()]
    driver_cpu = time.process_time() - cpu_before
    worker_pids = sampler.workers if executor == "ray" else set()
    ray_pids = set(sampler.last) - worker_pids
    workers_mb, workers_cpu = sampler.totals(worker_pids)
    ray_mb, ray_cpu = sampler.totals(ray_pids)
    return {
        "executor": executor, "workers": workers or 1, "tasks": tasks,
        "ok": sum(succeeded(o, ARTICLE_TASK) for o in outputs), "lines": len(outputs),
        "runs_per_s": summary.runs_per_s, "elapsed_s": summary.elapsed_s,
        "startup_s": summary.startup_s, "p50_s": summary.p50_s, "p95_s": summary.p95_s,
        "driver_peak_mb": peak_mb(os.getpid()), "workers_peak_mb": workers_mb,
        "ray_peak_mb": ray_mb, "driver_cpu_s": driver_cpu, "workers_cpu_s": workers_cpu,
        "ray_cpu_s": ray_cpu,
    }  # fmt: skip


# --- the whole benchmark -----------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--tasks", type=int, default=1000)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--one", nargs=2, metavar=("EXECUTOR", "WORKERS"), help=argparse.SUPPRESS)
    parser.add_argument("--services", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        workers = None if args.one[1] == "-" else int(args.one[1])
        row = one_row(args.one[0], workers, args.tasks, json.loads(args.services))
        print(json.dumps(row))
        return

    env = {**os.environ, "RAY_AUTH_MODE": "disabled", "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0",
           "RAY_USAGE_STATS_ENABLED": "0"}  # fmt: skip
    server = subprocess.Popen([sys.executable, "-m", "benchmarks._batch_server", str(args.latency)],
                              cwd=ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert server.stdout is not None and server.stdin is not None
    services = server.stdout.readline()
    rows = []
    try:
        for executor, workers in ROWS:
            before = cpu_s(server.pid) or 0.0
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.batch_ray", "--tasks", str(args.tasks),
                 "--one", executor, str(workers or "-"), "--services", services],
                cwd=ROOT, env=env, capture_output=True, text=True, check=True,
            )  # fmt: skip
            row = json.loads(done.stdout.strip().splitlines()[-1])
            row["server_cpu_s"] = (cpu_s(server.pid) or 0.0) - before
            rows.append(row)
            print(f"{executor} x{row['workers']}: {row['runs_per_s']:.1f} runs/s", file=sys.stderr)
    finally:
        server.stdin.close()
        server.wait(timeout=30)
    print(table(rows, args.tasks, args.latency))
    results = ROOT / "benchmarks" / "results"
    results.mkdir(exist_ok=True)
    (results / "batch.json").write_text(json.dumps(rows, indent=2))


def table(rows: list[dict[str, Any]], tasks: int, latency: float) -> str:
    lines = [
        f"{tasks} article tasks, {latency * 1000:.0f} ms per model answer, max_in_flight=32 per worker",
        "",
        "| executor | workers | runs/s | start-up s | run p50 / p95 s | ok | peak MB driver / workers / Ray | CPU s driver / workers / Ray / servers |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['executor']} | {r['workers']} | {r['runs_per_s']:.1f} | {r['startup_s']:.1f} | "
            f"{r['p50_s']:.2f} / {r['p95_s']:.2f} | {r['ok']}/{r['lines']} | "
            f"{r['driver_peak_mb']:.0f} / {r['workers_peak_mb']:.0f} / {r['ray_peak_mb']:.0f} | "
            f"{r['driver_cpu_s']:.0f} / {r['workers_cpu_s']:.0f} / {r['ray_cpu_s']:.0f} / "
            f"{r['server_cpu_s']:.0f} |"
        )
    return "\n".join(lines)


if __name__ == "__main__":
    main()

"""Durable runs: what a checkpoint per loop costs, lcel_agent against LangGraph, one saver.

The agent of :mod:`benchmarks._overhead` (a zero-latency scripted model, the in-process
``echo`` tool, ``LOOPS`` model calls per run) and LangGraph's ``create_react_agent`` on the
same model and tool, each without a checkpointer and with a ``SqliteSaver`` on disk. Both
checkpointed rows write to one SQLite file through one saver object, each run on a thread of
its own. The rows take turns in every round; each row is the median of its rounds::

    python benchmarks/durable_overhead.py [--runs 20] [--rounds 7]

LangGraph's rows run with its default durability and with ``durability="sync"`` (each
checkpoint written before the next step starts, as lcel_agent writes its own; the
``"async"`` default writes it while the next step runs, so a crash can lose the newest).
``durability`` is LangGraph 1.x's: on older releases that row says it was not run.
"""

from __future__ import annotations

import argparse
import sqlite3
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # run as a script: make `benchmarks` importable
    sys.path.insert(0, str(ROOT))

from langgraph.checkpoint.sqlite import SqliteSaver  # noqa: E402

from benchmarks._overhead import LOOPS, ScriptedModel, echo  # noqa: E402
from benchmarks.peers import langgraph_graph  # noqa: E402
from lcel_agent import create_agent  # noqa: E402

LCEL = "lcel_agent json, invoke"
GRAPH = "langgraph create_react_agent, invoke"
SAVER = "SqliteSaver"


@dataclass
class Row:
    label: str
    run: Callable[[], Any]
    baseline: str | None = None  # the same framework without a checkpointer
    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)


def _thread() -> dict[str, Any]:
    return {"configurable": {"thread_id": uuid.uuid4().hex}}


def _react(checkpointer: Any = None) -> Any:
    return langgraph_graph(ScriptedModel(), [echo], checkpointer=checkpointer)


def _has_durability() -> bool:
    import inspect

    from langgraph.pregel import Pregel

    return "durability" in inspect.signature(Pregel.invoke).parameters


def rows(saver: SqliteSaver) -> list[Row]:
    """Every row: each framework bare and checkpointed (one saver for both)."""
    plain = create_agent(ScriptedModel(), [echo], max_loops=LOOPS + 1)
    durable = create_agent(ScriptedModel(), [echo], max_loops=LOOPS + 1, checkpointer=saver)
    graph, saved = _react(), _react(saver)
    limit = {"recursion_limit": 2 * LOOPS + 1}
    task = {"messages": [("user", "echo x")]}
    out = [
        Row(LCEL, lambda: plain.invoke("echo x")),
        Row(f"{LCEL}, {SAVER}", lambda: durable.invoke("echo x", _thread()), baseline=LCEL),
        Row(GRAPH, lambda: graph.invoke(task, limit)),
        Row(f"{GRAPH}, {SAVER}", lambda: saved.invoke(task, {**limit, **_thread()}),
            baseline=GRAPH),
    ]  # fmt: skip
    if _has_durability():
        out.append(Row(
            f'{GRAPH}, {SAVER}, durability="sync"',
            lambda: saved.invoke(task, {**limit, **_thread()}, durability="sync"),
            baseline=GRAPH,
        ))  # fmt: skip
    return out


def _per_loop_us(row: Row, runs: int) -> tuple[float, float]:
    """Wall and CPU µs per loop (CPU: every thread of this process, so a saver's background
    threads count; other processes' load does not)."""
    row.run()  # warm-up
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(runs):
        row.run()
    loops = runs * LOOPS
    return (time.perf_counter() - wall) / loops * 1e6, (time.process_time() - cpu) / loops * 1e6


def measure(runs: int = 20, rounds: int = 7, where: str | None = None) -> list[dict[str, Any]]:
    """µs per loop of each row (median of ``rounds``), and what the saver adds to it.

    ``where`` is the folder the SQLite file goes in (default: the system's temporary
    folder, on disk here); ``/dev/shm`` (memory) leaves the checkpointing's CPU alone.
    """
    with tempfile.TemporaryDirectory(dir=where) as folder:
        conn = sqlite3.connect(Path(folder) / "checkpoints.db", check_same_thread=False)
        saver = SqliteSaver(conn)
        table = rows(saver)
        for _ in range(rounds):
            for row in table:
                wall, cpu = _per_loop_us(row, runs)
                row.wall.append(wall)
                row.cpu.append(cpu)
        conn.close()
    wall = {row.label: statistics.median(row.wall) for row in table}
    cpu = {row.label: statistics.median(row.cpu) for row in table}
    out = []
    for row in table:
        entry: dict[str, Any] = {
            "row": row.label,
            "wall_us": wall[row.label],
            "cpu_us": cpu[row.label],
        }
        if row.baseline is not None:
            entry["saver_wall_us"] = wall[row.label] - wall[row.baseline]
            entry["saver_cpu_us"] = cpu[row.label] - cpu[row.baseline]
        out.append(entry)
    ours = f"{LCEL}, {SAVER}"
    for entry in out:
        if entry["row"].startswith(GRAPH) and SAVER in entry["row"]:
            entry["x_wall"] = wall[ours] / entry["wall_us"]
            entry["x_cpu"] = cpu[ours] / entry["cpu_us"]
    return out


def markdown(table: list[dict[str, Any]]) -> str:
    lines = [
        "| row | wall µs per loop | CPU µs per loop | the saver's wall / CPU µs per loop "
        "| lcel_agent with the saver, × this row (wall / CPU) |",
        "|---|---|---|---|---|",
    ]
    for r in table:
        saver = (
            f"{r['saver_wall_us']:.0f} / {r['saver_cpu_us']:.0f}" if "saver_wall_us" in r else ""
        )
        ratio = f"{r['x_wall']:.2f} / {r['x_cpu']:.2f}" if "x_wall" in r else ""
        lines.append(f"| {r['row']} | {r['wall_us']:.0f} | {r['cpu_us']:.0f} | {saver} | {ratio} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20, help="runs per row per round")
    parser.add_argument("--rounds", type=int, default=7, help="rounds (each row: their median)")
    parser.add_argument(
        "--dir", default=None, help="the SQLite file's folder (default: a temp dir)"
    )
    args = parser.parse_args()
    print(markdown(measure(args.runs, args.rounds, args.dir)))


if __name__ == "__main__":
    main()

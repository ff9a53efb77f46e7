"""``lcel-agent threads --checkpoint STORE [--json]``: the runs a store holds.

::

    thread        state               loops  updated                  task
    3f9c2a1b7d4e  paused                  2  2026-12-05 10:31:02 UTC  查询北京和上海今天的天气…
    5d0c81aa92f1  stale                   1  2026-12-05 10:20:11 UTC  查询广州今天的天气
    8e21d0c94b5a  finished (final)        4  2026-12-05 10:12:47 UTC  查询广州今天的天气

Newest first. ``--json`` prints a list of ``{"thread_id", "task", "state",
"stop_reason", "loops", "updated_at"}``. ``state`` is ``running`` (a process runs it
now: it holds the thread's lock), ``stale`` (not finished, and no process holds the
lock: it was killed; ``resume`` continues it), ``paused``, ``failed`` (the model API
failed for good: ``resume`` asks the failed call again) or ``finished``. The lock is
asked about without being taken, so listing never makes a starting ``resume`` busy;
where the system cannot ask (no ``F_OFD_GETLK``), an unfinished run shows as
``running``. Every lcel_agent run in the store is listed, the Python API's too; a
thread whose checkpoint cannot be read is named on standard error and left out. The
store is only read (a read-only one is opened read-only, and nothing is left beside it).
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from .._redact import redact
from ..durable import ThreadSummary, summarize_thread
from ..errors import CheckpointError
from ._agent import hush_window_log
from ._display import display_width, one_line, pad
from ._drive import refuse, say
from ._hints import StoreRef
from ._status import EXIT_USAGE
from ._store import Store, StoreError, open_store

__all__ = ["threads_command"]

#: The widest thread id column; a longer id gets a line of its own, whole (it is copied).
ID_WIDTH = 24


def _state(summary: ThreadSummary, store: Store) -> str:
    if summary.status != "unfinished":
        return summary.status
    # A run that has not finished: live while a process holds its lock, else stale.
    return "stale" if store.held(summary.thread_id) is False else "running"


def _row(summary: ThreadSummary, store: Store) -> dict[str, Any]:
    return {
        "thread_id": summary.thread_id,
        "task": summary.task.strip().splitlines()[0] if summary.task.strip() else "",
        "state": _state(summary, store),
        "stop_reason": None if summary.stop_reason is None else summary.stop_reason.value,
        "loops": summary.loops,
        "updated_at": summary.updated_at,
    }


def _when(iso: str) -> str:
    try:
        return datetime.fromisoformat(iso).strftime("%Y-%m-%d %H:%M:%S UTC")
    except ValueError:
        return iso


def _table(rows: list[dict[str, Any]]) -> list[str]:
    # Terminal columns, not characters: a CJK character takes two.
    width = min(ID_WIDTH, max(12, *(display_width(row["thread_id"]) for row in rows)))
    states = [
        row["state"]
        + (f" ({row['stop_reason']})" if row["state"] in ("finished", "failed") else "")
        for row in rows
    ]
    state_width = max(len("state"), *map(len, states))
    lines = [f"{'thread':<{width}}  {'state':<{state_width}} {'loops':>5}  {'updated':<23}  task"]
    for row, state in zip(rows, states, strict=True):
        thread = row["thread_id"]
        if display_width(thread) > width:
            lines.append(thread)
            thread = ""
        lines.append(
            f"{pad(thread, width)}  {state:<{state_width}} {row['loops']:>5}  "
            f"{_when(row['updated_at']):<23}  {one_line(row['task'], 60)}"
        )
    return lines


def threads_command(args: argparse.Namespace) -> int:
    """List the runs of ``--checkpoint STORE``; exit 0, or 2 for a store that cannot be used."""
    rows: list[dict[str, Any]] = []
    hush_window_log()  # a long task's warning was said when its run started
    ref = StoreRef.of(args)
    try:
        with open_store(ref, create=None) as store:
            summaries: list[ThreadSummary] = []
            for thread in store.thread_ids():
                try:
                    found = summarize_thread(store.saver, thread)
                except CheckpointError as exc:
                    say(f"left out: {exc}")
                    continue
                if found is not None:
                    summaries.append(found)
            newest = sorted(summaries, key=lambda s: s.updated_at, reverse=True)
            rows = [_row(s, store) for s in newest]
    except StoreError as exc:
        refuse("threads", str(exc))
        return EXIT_USAGE
    if args.json:
        print(redact(json.dumps(rows, ensure_ascii=False, indent=2)), flush=True)
    elif not rows:
        print(f"no runs in {ref}", flush=True)
    else:
        print(redact("\n".join(_table(rows))), flush=True)
    return 0

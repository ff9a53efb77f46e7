"""``lcel-agent threads --checkpoint STORE [--json]``: the runs a store holds.

::

    thread        state              loops  updated                  task
    3f9c2a1b7d4e  paused                 2  2026-12-05 10:31:02 UTC  查询北京和上海今天的天气…
    8e21d0c94b5a  finished (final)       4  2026-12-05 10:12:47 UTC  查询广州今天的天气

Newest first. ``--json`` prints a list of ``{"thread_id", "task", "state",
"stop_reason", "loops", "updated_at"}``; ``state`` is ``running`` (not finished: it
runs now, or its process died and ``resume`` continues it), ``paused`` or
``finished``. Every lcel_agent run in the store is listed, the Python API's too; a
thread whose checkpoint cannot be read is named on standard error and left out.
"""

from __future__ import annotations

import argparse
import json
from datetime import datetime
from typing import Any

from .._redact import redact
from ..durable import ThreadSummary, summarize_thread
from ..errors import CheckpointError
from ._display import one_line, pad
from ._drive import say
from ._status import EXIT_USAGE
from ._store import StoreError, open_store, shown

__all__ = ["threads_command"]

#: The library's word for a run that has not finished, and the command's.
_STATES = {"unfinished": "running", "paused": "paused", "finished": "finished"}


def _row(summary: ThreadSummary) -> dict[str, Any]:
    return {
        "thread_id": summary.thread_id,
        "task": summary.task.strip().splitlines()[0] if summary.task.strip() else "",
        "state": _STATES[summary.status],
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
    width = max(12, *(len(row["thread_id"]) for row in rows))
    lines = [f"{'thread':<{width}}  {'state':<18} {'loops':>5}  {'updated':<23}  task"]
    for row in rows:
        state = row["state"] + (f" ({row['stop_reason']})" if row["state"] == "finished" else "")
        lines.append(
            f"{pad(row['thread_id'], width)}  {pad(state, 18)} {row['loops']:>5}  "
            f"{_when(row['updated_at']):<23}  {one_line(row['task'], 60)}"
        )
    return lines


def threads_command(args: argparse.Namespace) -> int:
    """List the runs of ``--checkpoint STORE``; exit 0, or 2 for a store that cannot be used."""
    summaries: list[ThreadSummary] = []
    try:
        with open_store(args.checkpoint, create=False) as store:
            for thread in store.thread_ids():
                try:
                    found = summarize_thread(store.saver, thread)
                except CheckpointError as exc:
                    say(f"left out: {exc}")
                    continue
                if found is not None:
                    summaries.append(found)
    except StoreError as exc:
        say(str(exc))
        return EXIT_USAGE
    rows = [_row(s) for s in sorted(summaries, key=lambda s: s.updated_at, reverse=True)]
    if args.json:
        print(redact(json.dumps(rows, ensure_ascii=False, indent=2)), flush=True)
    elif not rows:
        print(f"no runs in {shown(args.checkpoint)}", flush=True)
    else:
        print(redact("\n".join(_table(rows))), flush=True)
    return 0

"""The results file: one JSON line per (framework, server, category, entry), appended as runs end.

    store = ResultsFile(out / "results.jsonl")
    if store.has(key(row, server, category, entry_id)): ...   # recorded: skip it
    store.append(record)                                       # written and flushed at once

An interrupted run loses at most the entry it was running: every finished entry is on
disk, and a run started again on the same file skips what is there. A line cut short by
a kill (the process died mid-write) is ignored on reading, and that entry runs again.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

Key = tuple[str, str, str, str]
"""(framework, server, category, entry id)."""


def key(framework: str, server: str, category: str, entry_id: str) -> Key:
    return (framework, server, category, entry_id)


def record_key(record: dict[str, Any]) -> Key:
    return key(record["framework"], record["server"], record["category"], record["id"])


class ResultsFile:
    """A JSON-lines results file that a run appends to and a resumed run reads."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._done: set[Key] = {record_key(r) for r in self.records()}

    def records(self) -> Iterator[dict[str, Any]]:
        """Every whole record in the file, oldest first (a torn last line is skipped)."""
        if not self.path.exists():
            return
        with self.path.open(encoding="utf-8") as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue
                if isinstance(record, dict) and "id" in record:
                    yield record

    def has(self, k: Key) -> bool:
        return k in self._done

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one line, flushed and synced before returning."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        line = json.dumps(record, ensure_ascii=False, default=str).encode("utf-8")
        with self.path.open("ab+") as f:
            # A torn line left by a kill must not swallow this record's start.
            size = f.seek(0, os.SEEK_END)
            torn = size > 0 and f.seek(size - 1) >= 0 and f.read(1) != b"\n"
            f.write((b"\n" if torn else b"") + line + b"\n")
            f.flush()
            os.fsync(f.fileno())
        self._done.add(record_key(record))

    def __len__(self) -> int:
        return len(self._done)

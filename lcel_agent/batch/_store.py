"""The results file: JSON Lines, one line per finished input, safe to resume after a crash.

Each line is ``{"id": ..., "input": ..., "result": AgentResult.to_dict()}``, written in
one ``write`` and flushed as the run finishes; ``fsync`` follows at a bounded interval
(and on close), so a crash loses at most the last second of lines, never a line in
the middle. Opening the file reads the ids already there (the job skips them) and
repairs a half-written last line, which a crash can leave, by cutting it off: it is
never read as a result, and its input simply runs again. A damaged line *before* the
last one is not a crash's trace, so the store refuses the file rather than guess.

Only one job may write a file at a time (an advisory ``flock`` where the OS has it).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

from ._items import key_of
from .errors import BatchStoreError

try:  # POSIX; elsewhere two jobs on one file are the user's to avoid
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = ["ResultStore", "result_key"]


def result_key(raw: bytes) -> str | None:
    """The id key of a results line, or None when the line is not a complete result."""
    try:
        data: Any = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("result"), dict):
        return None
    item_id = data.get("id")
    if isinstance(item_id, bool) or not isinstance(item_id, (str, int)):
        return None
    return key_of(item_id)


class ResultStore:
    """Append-only writer of the results file. Use as a context manager.

    ``done`` holds the id keys already in the file when it was opened; ``repaired``
    is the number of bytes cut from a half-written last line (0 when none).
    """

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        fsync_every: float = 1.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.path = Path(path)
        self.fsync_every = fsync_every
        self._clock = clock
        self.done: set[str] = set()
        self.repaired = 0
        self.written = 0
        self._file: IO[bytes] | None = None
        self._synced_at = 0.0
        self._dirty = False

    # -- opening -----------------------------------------------------------------------

    def open(self) -> ResultStore:
        """Lock the file (creating it and its folder), read the ids in it, repair its end."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        handle = self.path.open("a+b")
        if fcntl is not None:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                raise BatchStoreError(
                    f"{self.path} is being written by another batch job; "
                    "wait for it, or give this job another --out"
                ) from None
        try:
            self._scan(handle)
        except BaseException:
            handle.close()
            raise
        self._file = handle
        self._synced_at = self._clock()
        return self

    def _scan(self, handle: IO[bytes]) -> None:
        handle.seek(0)
        offset = good_end = 0
        bad: int | None = None  # line number of an unreadable line
        unterminated = False
        for number, raw in enumerate(handle, start=1):
            if bad is not None:
                raise BatchStoreError(
                    f"{self.path} line {bad} is not a result line, and lines follow it: the "
                    "file was changed by something other than a crash. Fix or remove that "
                    "line (or use another --out) and run again."
                )
            key = result_key(raw) if raw.strip() else ""
            if key is None:
                bad = number
            else:
                if key:
                    self.done.add(key)
                good_end = offset + len(raw)
                unterminated = not raw.endswith(b"\n")
            offset += len(raw)
        if bad is not None:
            # A crash's half-written last line: cut it off; its input runs again.
            handle.truncate(good_end)
            self.repaired = offset - good_end
        if unterminated:  # a complete line whose newline did not make it
            handle.seek(0, os.SEEK_END)
            handle.write(b"\n")
        handle.seek(0, os.SEEK_END)
        if bad is not None or unterminated:
            handle.flush()
            os.fsync(handle.fileno())

    # -- writing -----------------------------------------------------------------------

    def __contains__(self, key: object) -> bool:
        return key in self.done

    def append(self, line: str) -> None:
        """Write one results line (its JSON text, without the newline) and flush it."""
        if self._file is None:
            raise RuntimeError("the result store is not open")
        self._file.write(line.encode("utf-8") + b"\n")
        self._file.flush()
        self.written += 1
        self._dirty = True
        if self._clock() - self._synced_at >= self.fsync_every:
            self.sync()

    def sync(self) -> None:
        """``fsync`` what was written since the last one (cheap when nothing was)."""
        if self._file is not None and self._dirty:
            os.fsync(self._file.fileno())
            self._dirty = False
        self._synced_at = self._clock()

    def close(self) -> None:
        """Flush, ``fsync`` and unlock. Safe to call twice."""
        if self._file is None:
            return
        try:
            self._file.flush()
            self.sync()
        finally:
            self._file.close()  # closing releases the flock
            self._file = None

    def __enter__(self) -> ResultStore:
        return self.open()

    def __exit__(self, *exc: object) -> None:
        self.close()

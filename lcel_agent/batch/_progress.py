"""The job's progress on stderr: done/total, rate, ETA and the stop reasons so far.

On a terminal with rich installed (the ``cli`` extra) it is a live bar; elsewhere (a
log, a CI job) a plain line at most every ``every`` seconds. :func:`status_line` is the
text both show.
"""

from __future__ import annotations

import sys
import time
from typing import Any, Protocol, TextIO

from ._tally import Tally

__all__ = ["Display", "make_display", "status_line"]


def _duration(span: float) -> str:
    seconds = round(span)
    if seconds < 60:
        return f"{seconds}s"
    minutes, seconds = divmod(seconds, 60)
    if minutes < 60:
        return f"{minutes}m{seconds:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


def status_line(tally: Tally, elapsed: float | None = None) -> str:
    """``"120/1000 done · 4.1 runs/s · ETA 3m34s · final 110 · max_errors 10"``.

    The rate counts from when the workers were up (``elapsed`` overrides it).
    """
    elapsed = tally.running_s if elapsed is None else elapsed
    finished = tally.done + tally.skipped
    parts = [f"{finished}/{tally.total if tally.total is not None else '?'} done"]
    rate = tally.done / elapsed if elapsed > 0 else 0.0
    parts.append(f"{rate:.1f} runs/s")
    if tally.total is not None and rate > 0:
        parts.append(f"ETA {_duration(max(0, tally.total - finished) / rate)}")
    if tally.skipped:
        parts.append(f"{tally.skipped} resumed")
    if tally.reruns:
        parts.append(f"{tally.reruns} re-run")
    if tally.reasons:
        parts.append(tally.reasons_text())
    return " · ".join(parts)


class Display(Protocol):
    """What the driver calls as the job goes."""

    def update(self, tally: Tally) -> None:
        """Show the current counts (cheap: called after every run)."""
        ...

    def close(self, tally: Tally) -> None:
        """Show the final counts and let go of the terminal."""
        ...


class _Silent:
    def update(self, tally: Tally) -> None:
        pass

    def close(self, tally: Tally) -> None:
        pass


class _Lines:
    """A status line every ``every`` seconds, for logs."""

    def __init__(self, stream: TextIO, every: float) -> None:
        self.stream = stream
        self.every = every
        self._last = time.monotonic()

    def update(self, tally: Tally) -> None:
        if time.monotonic() - self._last >= self.every:
            self._last = time.monotonic()
            print(f"batch: {status_line(tally)}", file=self.stream, flush=True)

    def close(self, tally: Tally) -> None:
        print(f"batch: {status_line(tally)}", file=self.stream, flush=True)


class _Bar:
    """A rich live bar on the terminal."""

    def __init__(self, tally: Tally, stream: TextIO) -> None:
        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn

        self.progress: Any = Progress(
            BarColumn(),
            TextColumn("{task.fields[status]}"),
            console=Console(file=stream),
            transient=False,
        )
        self.task = self.progress.add_task("batch", total=tally.total, status=status_line(tally))
        self.progress.start()

    def update(self, tally: Tally) -> None:
        self.progress.update(
            self.task, completed=tally.done + tally.skipped, status=status_line(tally)
        )

    def close(self, tally: Tally) -> None:
        self.update(tally)
        self.progress.stop()


def make_display(
    enabled: bool, tally: Tally, *, stream: TextIO | None = None, every: float = 10.0
) -> Display:
    """A live bar on a terminal (with rich), status lines elsewhere, nothing if not ``enabled``."""
    if not enabled:
        return _Silent()
    stream = stream or sys.stderr
    if stream.isatty():
        try:
            return _Bar(tally, stream)
        except ImportError:
            pass
    return _Lines(stream, every)

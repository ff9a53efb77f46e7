"""The running counts of a batch job, updated as runs finish, frozen into its summary."""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field

from ..state import StopReason, Usage
from ._summary import BatchSummary, percentile
from ._work import Finished

__all__ = ["Tally"]


@dataclass
class Tally:
    """The job's running counts, updated as runs finish (read by the progress display)."""

    out: str
    total: int | None = None
    done: int = 0
    skipped: int = 0
    reruns: int = 0
    repaired: int = 0
    started: float = field(default_factory=time.monotonic)
    running_since: float | None = None
    """When the workers were up (None before)."""
    reasons: Counter[str] = field(default_factory=Counter)
    usage: Usage = field(default_factory=Usage)
    run_times: list[float] = field(default_factory=list)

    def add(self, run: Finished) -> None:
        """Count a finished run."""
        self.done += 1
        self.reasons[run.stop_reason] += 1
        self.usage = self.usage + Usage(run.input_tokens, run.output_tokens)
        self.run_times.append(run.elapsed_s)

    @property
    def elapsed_s(self) -> float:
        """Seconds since the job started."""
        return time.monotonic() - self.started

    @property
    def running_s(self) -> float:
        """Seconds since the workers were up (0 before)."""
        return time.monotonic() - self.running_since if self.running_since is not None else 0.0

    def reasons_text(self) -> str:
        """``final 12 · max_errors 1`` — the stop reasons so far, most frequent first."""
        return " · ".join(f"{reason} {n}" for reason, n in self.reasons.most_common())

    def summary(self, *, completed: bool) -> BatchSummary:
        """Freeze the counts into a :class:`BatchSummary`."""
        known = [r.value for r in StopReason]
        ordered = sorted(self.reasons.items(), key=lambda kv: (-kv[1], _rank(known, kv[0])))
        return BatchSummary(
            out=self.out,
            done=self.done,
            skipped=self.skipped,
            stop_reasons=dict(ordered),
            usage=self.usage,
            elapsed_s=self.elapsed_s,
            p50_s=percentile(self.run_times, 50),
            p95_s=percentile(self.run_times, 95),
            reruns=self.reruns,
            repaired=self.repaired,
            total=self.total,
            completed=completed,
            startup_s=(self.running_since or time.monotonic()) - self.started,
        )


def _rank(known: list[str], reason: str) -> int:
    return known.index(reason) if reason in known else len(known)

"""How a batch job went: :class:`BatchSummary` (built by :class:`~lcel_agent.batch._tally.Tally`).

It sits below the batch errors, which carry one (``BatchError.summary``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..state import Usage

__all__ = ["BatchSummary", "percentile"]


def percentile(values: list[float], q: float) -> float | None:
    """The ``q``-th percentile (0..100) of ``values`` by the nearest-rank rule; None if empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(q / 100 * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True)
class BatchSummary:
    """What a batch job did. ``str(summary)`` is a short table; ``to_dict()`` is JSON-safe."""

    out: str
    """The results file."""
    done: int
    """Runs this job finished (one line each in ``out``)."""
    skipped: int
    """Inputs whose id was already in ``out`` (finished by an earlier job)."""
    stop_reasons: Mapping[str, int]
    """This job's runs by stop reason (``final``, ``max_errors`` ...), most frequent first."""
    usage: Usage
    """Tokens of this job's runs."""
    elapsed_s: float
    """Wall time of the job, starting the workers included."""
    p50_s: float | None
    """Median run time (a run's own time), None when no run finished."""
    p95_s: float | None
    """95th-percentile run time."""
    reruns: int = 0
    """Runs started again because their worker was lost (killed, node gone)."""
    repaired: int = 0
    """Bytes of a half-written last line cut from ``out`` when the job opened it."""
    total: int | None = None
    """Inputs the job was given, when known."""
    completed: bool = True
    """False when the job was interrupted before every input had its line."""
    startup_s: float = 0.0
    """Of ``elapsed_s``, the time taken to start the workers (Ray) and build the agent(s)."""

    @property
    def runs_per_s(self) -> float:
        """This job's finished runs per second, once the workers were up."""
        running = self.elapsed_s - self.startup_s
        return self.done / running if running > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe dict of the summary."""
        return {
            "out": self.out,
            "total": self.total,
            "done": self.done,
            "skipped": self.skipped,
            "completed": self.completed,
            "stop_reasons": dict(self.stop_reasons),
            "usage": self.usage.to_dict(),
            "elapsed_s": round(self.elapsed_s, 3),
            "startup_s": round(self.startup_s, 3),
            "runs_per_s": round(self.runs_per_s, 3),
            "p50_s": self.p50_s,
            "p95_s": self.p95_s,
            "reruns": self.reruns,
            "repaired": self.repaired,
        }

    def __str__(self) -> str:
        state = "done" if self.completed else "INTERRUPTED"
        total = f"{self.total} inputs, " if self.total is not None else ""
        rows = [
            f"batch {state} -> {self.out}",
            f"  {total}{self.done} run now, {self.skipped} skipped (already in the file)",
        ]
        if self.reruns or self.repaired:
            rows.append(
                f"  {self.reruns} run again after a lost worker; "
                f"{self.repaired} bytes of a broken last line repaired"
            )
        width = max([len(reason) for reason in self.stop_reasons] + [len("stop reason")])
        rows.append(f"  {'stop reason':<{width}}  runs")
        rows += [f"  {reason:<{width}}  {n:>4}" for reason, n in self.stop_reasons.items()]
        u = self.usage
        rows.append(
            f"  tokens    {u.total_tokens:,} ({u.input_tokens:,} in, {u.output_tokens:,} out)"
        )
        timing = (
            f"  time      {self.elapsed_s:.1f} s ({self.startup_s:.1f} s starting), "
            f"{self.runs_per_s:.2f} runs/s"
        )
        if self.p50_s is not None and self.p95_s is not None:
            timing += f"; a run p50 {self.p50_s:.2f} s, p95 {self.p95_s:.2f} s"
        rows.append(timing)
        return "\n".join(rows)

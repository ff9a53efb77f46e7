"""Run an agent over thousands of inputs: resumable, locally or on a Ray cluster, rate-limited.

::

    from lcel_agent.batch import run_batch

    summary = run_batch(make_agent, ["查询北京天气", {"id": "sh", "input": "查询上海天气"}],
                        out="results.jsonl", rpm=500)
    print(summary)              # counts by stop reason, tokens, p50/p95 run time

* :func:`run_batch` / :func:`arun_batch`: the job (``executor="local"`` or ``"ray"``).
* :class:`BatchSummary`: how it went; :class:`TaskFile`: a JSON Lines file of tasks, streamed.
* :class:`RateLimiter`, :class:`RateLimitCallback`, :class:`AsyncRateLimitCallback`:
  the job's rate limit, usable on its own with any agent or chain.
* :mod:`lcel_agent.batch.errors`: the job's exceptions.

Importing this package imports nothing (``lcel-agent --help`` stays fast); each name
loads on first use, and Ray only for ``executor="ray"``. See docs/batch.md.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ._items import TaskFile
    from ._limiter import AsyncRateLimitCallback, RateLimitCallback, RateLimiter, RateSchedule
    from ._local import timeout_needed
    from ._runner import arun_batch, run_batch
    from ._summary import BatchSummary
    from .errors import (
        BatchError,
        BatchInputError,
        BatchInterrupted,
        BatchRunError,
        BatchStoreError,
    )

__all__ = [
    "AsyncRateLimitCallback",
    "BatchError",
    "BatchInputError",
    "BatchInterrupted",
    "BatchRunError",
    "BatchStoreError",
    "BatchSummary",
    "RateLimitCallback",
    "RateLimiter",
    "RateSchedule",
    "TaskFile",
    "arun_batch",
    "run_batch",
    "timeout_needed",
]

_LAZY = {
    "BatchError": ".errors",
    "BatchInputError": ".errors",
    "BatchInterrupted": ".errors",
    "BatchRunError": ".errors",
    "BatchStoreError": ".errors",
    "AsyncRateLimitCallback": "._limiter",
    "RateLimitCallback": "._limiter",
    "RateLimiter": "._limiter",
    "RateSchedule": "._limiter",
    "timeout_needed": "._local",
    "BatchSummary": "._summary",
    "TaskFile": "._items",
    "arun_batch": "._runner",
    "run_batch": "._runner",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

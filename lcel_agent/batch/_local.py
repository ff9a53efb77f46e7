"""The executor contract, and the local executor: asyncio in this process.

An executor runs items and hands back :class:`~lcel_agent.batch._work.Finished` runs;
the driver (``_runner``) decides what to run, writes the lines and keeps the counts.
``run`` raises :class:`WorkerLost` when the infrastructure lost a run (a killed worker,
a lost node): the driver runs that item again elsewhere. Any other exception stops
the job.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Protocol

from langchain_core.callbacks.base import BaseCallbackHandler

from ..errors import ConfigurationError
from ._items import AgentFactory, Item, build_agent
from ._limiter import AsyncRateLimitCallback, RateLimiter, RateSchedule
from ._work import Finished, release, run_item
from .errors import RateTooLowError

__all__ = [
    "Executor",
    "LocalExecutor",
    "WorkerLost",
    "check_timeout",
    "headroom",
    "llm_timeout_of",
    "timeout_needed",
    "wait_for_room",
]


class WorkerLost(Exception):
    """A run was lost with its worker (not the run's fault): run the item again."""


class Executor(Protocol):
    """What the driver needs of an executor."""

    slots: int
    """Runs that may be in flight at once, over all workers."""

    async def start(self) -> None:
        """Build the agent(s); raise if the job cannot run."""
        ...

    async def run(self, item: Item) -> Finished:
        """Run one item; :class:`WorkerLost` when its worker died under it."""
        ...

    async def admit(self) -> None:
        """Wait until the rate limiter has room for a new run (at once without a limiter)."""
        ...

    async def close(self) -> None:
        """Stop the workers; runs still in flight are abandoned (they have no line)."""
        ...


def llm_timeout_of(agent: Any) -> float | None:
    """The per-call model timeout of an lcel_agent agent (None if unknown or unset)."""
    stages = getattr(agent, "stages", None)
    stage = stages.get("call_llm") if isinstance(stages, dict) else None
    timeout = getattr(stage, "timeout", None)
    return float(timeout) if isinstance(timeout, (int, float)) else None


def timeout_needed(schedule: RateSchedule) -> float:
    """The smallest ``llm_timeout`` that a call waiting a few turns for its own fits in."""
    return 4 * (headroom(schedule) + schedule.interval)


def check_timeout(schedule: RateSchedule, timeout: float | None) -> None:
    """Refuse an ``rpm`` so low that calls waiting for their turn would hit ``llm_timeout``.

    The wait for a turn happens inside the model call (in its callback), so it counts
    toward the agent's ``llm_timeout``. The driver keeps the queue of booked calls
    short (see :func:`headroom`), so a call waits at most a few turns.
    """
    need = timeout_needed(schedule)
    if schedule.rpm and timeout is not None and timeout < need:
        raise RateTooLowError(schedule.rpm, schedule.interval, timeout, need)


async def wait_for_room(backlog: Callable[[], Awaitable[float]], room: float) -> None:
    """Sleep until fewer than ``room`` seconds of model calls are booked ahead."""
    while (ahead := await backlog()) > room:
        await asyncio.sleep(ahead - room)


def headroom(schedule: RateSchedule) -> float:
    """How far ahead the booked calls may run before the driver starts no new run.

    New runs wait while the limiter's backlog is past this, so a call waits a few turns
    at most, while the queue never runs dry (which would waste the provider's limit).
    """
    return max(2 * schedule.interval, 0.5)


class LocalExecutor:
    """Runs items as asyncio tasks in this process, on one agent built once."""

    def __init__(
        self,
        make_agent: AgentFactory,
        *,
        max_in_flight: int,
        rpm: float | None = None,
        tpm: float | None = None,
    ) -> None:
        self.make_agent = make_agent
        self.slots = max_in_flight
        self.limiter = RateLimiter(rpm, tpm) if rpm or tpm else None
        self._agent: Any = None
        self._callbacks: list[BaseCallbackHandler] = []

    async def start(self) -> None:
        self._agent = build_agent(self.make_agent)
        if self.limiter is not None:
            check_timeout(self.limiter.schedule, llm_timeout_of(self._agent))
            self._callbacks = [AsyncRateLimitCallback(self.limiter)]

    async def run(self, item: Item) -> Finished:
        if self._agent is None:
            raise ConfigurationError("the executor was not started")
        return await run_item(self._agent, item, self._callbacks)

    async def admit(self) -> None:
        if self.limiter is not None:
            await wait_for_room(self.limiter.abacklog, headroom(self.limiter.schedule))

    async def close(self) -> None:
        if self._agent is not None:
            await release(self._agent)
        self._agent = None

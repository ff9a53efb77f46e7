"""One rate limit for a whole batch job: requests and tokens per minute, on every model call.

The job's agent is built by the user's ``make_agent``, so the limit reaches its model
calls through a callback handler passed in each run's config: the handler waits for its
turn in ``on_chat_model_start`` (the call starts only when the handler returns) and
reports the tokens the provider counted in ``on_llm_end``. Every model call of the run is
limited this way (retries of a 429 included, and any other model the agent calls).

The schedule (:class:`RateSchedule`) spaces calls evenly, a cell-rate scheme without
bursts: a call may start ``60/rpm`` seconds after the previous one, and ``n·60/tpm``
seconds after a call that cost ``n`` tokens. So in any window of ``T`` seconds at most
``rpm·T/60 + 1`` calls start. Tokens are known only when a call ends: a call reserves an
estimate of its prompt, and the difference is settled when the provider's count arrives;
so a window holds at most ``tpm·T/60`` tokens, plus one call's, plus what the calls then
in flight spent beyond their estimates (their replies).

The schedule is pure (the clock is an argument); :class:`RateLimiter` shares one across
threads and tasks of this process; with Ray one limiter actor holds it for the fleet::

    limiter = RateLimiter(rpm=500, tpm=200_000)
    agent.invoke(task, {"callbacks": [RateLimitCallback(limiter)]})
    await agent.ainvoke(task, {"callbacks": [AsyncRateLimitCallback(limiter)]})
"""

from __future__ import annotations

import asyncio
import math
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol
from uuid import UUID

from langchain_core.callbacks import AsyncCallbackHandler, BaseCallbackHandler
from langchain_core.messages import BaseMessage
from langchain_core.outputs import LLMResult

from ..memory.counters import count_message, estimate_tokens
from ..rules.numbers import positive_number

__all__ = [
    "AsyncRateLimitCallback",
    "Permits",
    "RateLimitCallback",
    "RateLimiter",
    "RateSchedule",
    "check_rate",
]


def check_rate(name: str, value: Any) -> float | None:
    """``rpm``/``tpm`` as a positive float, or None; a clear error for anything else."""
    if value is None:
        return None
    return positive_number(name, value, "a number per minute", "per minute", finite=True)


class RateSchedule:
    """The pure schedule: when may the next model call start? Not thread-safe by itself.

    ``reserve(now, tokens)`` books the next free start time and returns how long to wait
    for it; ``settle`` corrects a reservation once the real token count is known;
    ``backlog(now)`` is how far the booked schedule runs ahead of ``now``.
    """

    def __init__(self, rpm: float | None = None, tpm: float | None = None) -> None:
        self.rpm = check_rate("rpm", rpm)
        self.tpm = check_rate("tpm", tpm)
        self._next_call = -math.inf
        self._next_token = -math.inf

    @property
    def interval(self) -> float:
        """Seconds between two calls under ``rpm`` (0 without it)."""
        return 60.0 / self.rpm if self.rpm else 0.0

    def reserve(self, now: float, tokens: int = 0) -> float:
        """Book a start for a call estimated at ``tokens``; return the seconds to wait."""
        start = max(now, self._next_call, self._next_token)
        if self.rpm:
            self._next_call = start + 60.0 / self.rpm
        if self.tpm:
            self._next_token = start + max(0, tokens) * 60.0 / self.tpm
        return start - now

    def settle(self, now: float, reserved: int, actual: int) -> None:
        """The call booked with ``reserved`` tokens cost ``actual``: move the schedule."""
        if self.tpm and actual != reserved:
            # Credit never reaches back before now: an idle past is not spendable.
            moved = self._next_token + (actual - reserved) * 60.0 / self.tpm
            self._next_token = max(moved, min(now, self._next_token))

    def backlog(self, now: float) -> float:
        """Seconds of calls already booked ahead of ``now`` (0 when a call could start now)."""
        return max(0.0, self._next_call - now, self._next_token - now)


class Permits(Protocol):
    """Where a callback gets its turns: a local :class:`RateLimiter` or the Ray limiter."""

    def reserve(self, tokens: int) -> float:
        """Book a call; return the seconds to wait before starting it."""
        ...

    async def areserve(self, tokens: int) -> float:
        """Async twin of :meth:`reserve`."""
        ...

    def settle(self, reserved: int, actual: int) -> None:
        """Report the real token count of a booked call."""
        ...

    async def abacklog(self) -> float:
        """Seconds of calls booked ahead of now."""
        ...


class RateLimiter:
    """A :class:`RateSchedule` shared by every thread and task of this process."""

    def __init__(
        self,
        rpm: float | None = None,
        tpm: float | None = None,
        *,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.schedule = RateSchedule(rpm, tpm)
        self._clock = clock
        self._lock = threading.Lock()

    def reserve(self, tokens: int) -> float:
        with self._lock:
            return self.schedule.reserve(self._clock(), tokens)

    async def areserve(self, tokens: int) -> float:
        return self.reserve(tokens)

    def settle(self, reserved: int, actual: int) -> None:
        with self._lock:
            self.schedule.settle(self._clock(), reserved, actual)

    def backlog(self) -> float:
        """Seconds of calls booked ahead of now."""
        with self._lock:
            return self.schedule.backlog(self._clock())

    async def abacklog(self) -> float:
        return self.backlog()


# --- the callbacks --------------------------------------------------------------------


def _prompt_tokens(messages: Sequence[Sequence[BaseMessage]]) -> int:
    return sum(count_message(m, estimate_tokens) for batch in messages for m in batch)


def _text_tokens(prompts: Sequence[str]) -> int:
    return sum(estimate_tokens(p) for p in prompts)


def _spent(response: LLMResult) -> int | None:
    """Tokens the provider reported for a call, or None when it reported none."""
    total = 0
    found = False
    for generations in response.generations:
        for generation in generations:
            usage = getattr(getattr(generation, "message", None), "usage_metadata", None)
            if usage:
                total += int(usage.get("total_tokens") or 0)
                found = True
    if not found:
        usage = (response.llm_output or {}).get("token_usage") or {}
        if usage.get("total_tokens"):
            return int(usage["total_tokens"])
    return total if found else None


class _Ledger:
    """The handlers' shared bookkeeping: tokens reserved per model call (by run id)."""

    def __init__(self, permits: Permits) -> None:
        self.permits = permits
        self.failure: BaseException | None = None
        self._reserved: dict[UUID, int] = {}

    def booked(self, run_id: UUID, tokens: int) -> None:
        self._reserved[run_id] = tokens

    def ended(self, run_id: UUID, response: LLMResult | None) -> None:
        reserved = self._reserved.pop(run_id, None)
        actual = _spent(response) if response is not None else None
        if reserved is not None and actual is not None:
            self.permits.settle(reserved, actual)

    def failed(self, exc: BaseException) -> BaseException:
        # Remembered, so the job can tell a limiter that broke from a run that failed.
        self.failure = exc
        return exc


class RateLimitCallback(BaseCallbackHandler):
    """Holds each model call until the limiter gives it a turn (sync runs: ``invoke``, ``batch``).

    Pass it in the run's config: ``agent.invoke(task, {"callbacks": [RateLimitCallback(l)]})``.
    In async runs it still works (langchain-core runs it on a thread); prefer the twin,
    :class:`AsyncRateLimitCallback`, there.
    """

    raise_error = True  # a limiter that fails must not let calls through unlimited

    def __init__(self, permits: Permits) -> None:
        self.ledger = _Ledger(permits)

    def _wait(self, run_id: UUID, tokens: int) -> None:
        try:
            delay = self.ledger.permits.reserve(tokens)
        except Exception as exc:
            raise self.ledger.failed(exc) from exc
        self.ledger.booked(run_id, tokens)
        if delay > 0:
            time.sleep(delay)

    def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        self._wait(run_id, _prompt_tokens(messages))

    def on_llm_start(
        self, serialized: dict[str, Any], prompts: list[str], *, run_id: UUID, **kwargs: Any
    ) -> None:
        self._wait(run_id, _text_tokens(prompts))

    def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        self.ledger.ended(run_id, response)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.ledger.ended(run_id, None)  # the reservation stands: the provider may count it


class AsyncRateLimitCallback(AsyncCallbackHandler):
    """Async twin of :class:`RateLimitCallback`: awaits its turn without holding a thread."""

    raise_error = True

    def __init__(self, permits: Permits) -> None:
        self.ledger = _Ledger(permits)

    async def _wait(self, run_id: UUID, tokens: int) -> None:
        try:
            delay = await self.ledger.permits.areserve(tokens)
        except Exception as exc:
            raise self.ledger.failed(exc) from exc
        self.ledger.booked(run_id, tokens)
        if delay > 0:
            await asyncio.sleep(delay)

    async def on_chat_model_start(
        self,
        serialized: dict[str, Any],
        messages: list[list[BaseMessage]],
        *,
        run_id: UUID,
        **kwargs: Any,
    ) -> None:
        await self._wait(run_id, _prompt_tokens(messages))

    async def on_llm_start(
        self, serialized: dict[str, Any], prompts: list[str], *, run_id: UUID, **kwargs: Any
    ) -> None:
        await self._wait(run_id, _text_tokens(prompts))

    async def on_llm_end(self, response: LLMResult, *, run_id: UUID, **kwargs: Any) -> None:
        self.ledger.ended(run_id, response)

    async def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self.ledger.ended(run_id, None)

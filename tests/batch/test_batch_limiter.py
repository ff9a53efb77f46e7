"""The rate limit: the pure schedule's guarantees, and the callbacks that apply it to model calls."""

from __future__ import annotations

import asyncio
import time

import pytest
from batch_support import LostLimiter
from hypothesis import given
from hypothesis import strategies as st
from langchain_core.messages import AIMessage, HumanMessage

from lcel_agent.batch import AsyncRateLimitCallback, RateLimitCallback, RateLimiter
from lcel_agent.batch._limiter import RateSchedule
from lcel_agent.errors import ConfigurationError
from lcel_agent.testing.fake import FunctionChatModel


def most_in_window(times: list[float], window: float, weights: list[int] | None = None) -> int:
    """The largest count (or weight) of ``times`` within any half-open ``window``."""
    weights = weights or [1] * len(times)
    pairs = sorted(zip(times, weights, strict=True))
    best = total = first = 0
    for last in range(len(pairs)):
        total += pairs[last][1]
        while pairs[last][0] - pairs[first][0] >= window:
            total -= pairs[first][1]
            first += 1
        best = max(best, total)
    return best


arrivals = st.lists(st.floats(min_value=0, max_value=30), min_size=1, max_size=80).map(sorted)


@given(arrivals, st.sampled_from([6.0, 60.0, 600.0]), st.sampled_from([1.0, 10.0, 60.0]))
def test_any_window_holds_at_most_rpm_share_plus_one_call(
    times: list[float], rpm: float, window: float
) -> None:
    schedule = RateSchedule(rpm=rpm)
    starts = [now + schedule.reserve(now) for now in times]
    assert all(start >= now for start, now in zip(starts, times, strict=True))
    assert most_in_window(starts, window) <= rpm * window / 60 + 1


@given(
    arrivals,
    st.lists(st.integers(min_value=0, max_value=3000), min_size=80, max_size=80),
    st.sampled_from([1.0, 10.0, 60.0]),
)
def test_any_window_holds_at_most_tpm_share_plus_one_call_of_tokens(
    times: list[float], tokens: list[int], window: float
) -> None:
    tpm = 20_000.0
    schedule = RateSchedule(tpm=tpm)
    costs = tokens[: len(times)]
    starts = [now + schedule.reserve(now, cost) for now, cost in zip(times, costs, strict=True)]
    assert most_in_window(starts, window, costs) <= tpm * window / 60 + max(costs)


def test_a_call_starts_at_once_when_the_schedule_is_idle_and_waits_its_turn_otherwise() -> None:
    schedule = RateSchedule(rpm=60)
    assert schedule.reserve(100.0) == 0.0
    assert schedule.reserve(100.0) == 1.0
    assert schedule.reserve(100.5) == 1.5
    assert schedule.backlog(100.5) == 2.5
    assert schedule.reserve(200.0) == 0.0  # an idle past is not saved up for a burst
    assert schedule.backlog(300.0) == 0.0


def test_settling_moves_the_token_schedule_by_the_real_count() -> None:
    schedule = RateSchedule(tpm=600)  # 10 tokens a second
    schedule.reserve(0.0, 100)  # 10 s booked
    schedule.settle(0.0, 100, 150)  # the provider counted 150: 15 s
    assert schedule.backlog(0.0) == pytest.approx(15.0)
    schedule.settle(1.0, 150, 0)  # a credit never reaches back before now
    assert schedule.backlog(1.0) == 0.0
    assert RateSchedule(rpm=60).interval == 1.0 and RateSchedule(tpm=5).interval == 0.0


@pytest.mark.parametrize(
    ("options", "error"),
    [({"rpm": 0}, ConfigurationError), ({"tpm": -5}, ConfigurationError),
     ({"rpm": "60"}, TypeError), ({"rpm": True}, TypeError), ({"rpm": float("inf")}, ConfigurationError)],
)  # fmt: skip
def test_bad_rates_are_refused_clearly(options: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error, match="per minute"):
        RateSchedule(**options)  # type: ignore[arg-type]


# --- the callbacks on real model calls ----------------------------------------------------


def stamping_model(starts: list[float]) -> FunctionChatModel:
    def reply(messages, tools):
        starts.append(time.monotonic())
        return AIMessage(content="好的")

    return FunctionChatModel(reply)


CALLS = 6
RPM = 1200.0  # one call every 50 ms


def test_sync_callback_holds_each_model_call_until_its_turn() -> None:
    starts: list[float] = []
    model, limiter = stamping_model(starts), RateLimiter(rpm=RPM)
    begun = time.monotonic()
    for _ in range(CALLS):
        model.invoke([HumanMessage("hi")], {"callbacks": [RateLimitCallback(limiter)]})
    # a sleep never ends early: the k-th call cannot start before k turns have passed
    assert all(s - begun >= k * 60 / RPM - 1e-3 for k, s in enumerate(sorted(starts)))


def test_async_callback_holds_concurrent_model_calls_until_their_turns() -> None:
    starts: list[float] = []
    model, limiter = stamping_model(starts), RateLimiter(rpm=RPM)
    handler = AsyncRateLimitCallback(limiter)

    async def calls() -> None:
        await asyncio.gather(
            *(model.ainvoke([HumanMessage("hi")], {"callbacks": [handler]}) for _ in range(CALLS))
        )

    begun = time.monotonic()
    asyncio.run(calls())
    assert len(starts) == CALLS
    assert all(s - begun >= k * 60 / RPM - 1e-3 for k, s in enumerate(sorted(starts)))


@pytest.mark.parametrize("kind", ["sync", "async"])
def test_the_token_count_the_model_reported_is_settled_with_the_limiter(kind: str) -> None:
    # A long reply: 1,000 tokens in all, where the prompt alone was booked (about 180).
    usage = {"input_tokens": 180, "output_tokens": 820, "total_tokens": 1000}
    model = FunctionChatModel(lambda m, t: AIMessage(content="好的", usage_metadata=usage))
    limiter = RateLimiter(tpm=6000.0)  # 100 tokens a second
    prompt = [HumanMessage("查询北京和上海今天的天气" * 20)]
    if kind == "sync":
        reply = model.invoke(prompt, {"callbacks": [RateLimitCallback(limiter)]})
    else:
        reply = asyncio.run(model.ainvoke(prompt, {"callbacks": [AsyncRateLimitCallback(limiter)]}))
    spent = reply.usage_metadata["total_tokens"]
    # The schedule now runs `spent` tokens ahead, minus the moments the call itself took
    # (seconds at most); left unsettled, it would run the prompt's 1.8 s ahead.
    assert spent == 1000 and spent / 100 - 5 < limiter.backlog() <= spent / 100


def test_a_limiter_that_fails_stops_the_call_and_is_remembered() -> None:
    handler = RateLimitCallback(LostLimiter())
    with pytest.raises(ConnectionError):
        stamping_model([]).invoke([HumanMessage("hi")], {"callbacks": [handler]})
    assert isinstance(handler.ledger.failure, ConnectionError)
    twin = AsyncRateLimitCallback(LostLimiter())
    with pytest.raises(ConnectionError):
        asyncio.run(stamping_model([]).ainvoke([HumanMessage("hi")], {"callbacks": [twin]}))
    assert isinstance(twin.ledger.failure, ConnectionError)

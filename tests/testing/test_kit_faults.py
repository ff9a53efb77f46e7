"""Every fault as the real ``openai`` client sees it, injected one by one or by a seeded profile."""

from __future__ import annotations

import collections
import contextlib

import openai
import pytest

from lcel_agent.testing.faults import Fault, FaultProfile, FaultSampler, FaultSpec, Latency
from lcel_agent.testing.policies import ScriptedPolicy

pytest_plugins = ["lcel_agent.testing.fixtures"]

HELLO = [{"role": "user", "content": "你好"}]

# fault -> (exception the client raises, HTTP status recorded by the server)
RAISING = {
    Fault.RATE_LIMIT: (openai.RateLimitError, 429),
    Fault.SERVER_ERROR: (openai.InternalServerError, 500),
    Fault.UNAVAILABLE: (openai.InternalServerError, 503),
    Fault.AUTH: (openai.AuthenticationError, 401),
    Fault.BAD_REQUEST: (openai.BadRequestError, 400),
    Fault.CONTEXT_TOO_LONG: (openai.BadRequestError, 400),
    Fault.HANG: (openai.APITimeoutError, None),
    Fault.DROP: (openai.APIConnectionError, None),
    Fault.MALFORMED: (ValueError, 200),  # json.JSONDecodeError from the client's parse
}


def _timeout(fault: Fault) -> float:
    """The client's timeout: short for the hang it must notice, roomy for answers a busy
    machine may take more than a moment to send."""
    return 0.3 if fault is Fault.HANG else 10.0


def _check(fault: Fault, err: BaseException, srv) -> None:
    expected, status = RAISING[fault]
    assert isinstance(err, expected)
    if fault is Fault.DROP:
        assert not isinstance(err, openai.APITimeoutError)
    if fault is Fault.CONTEXT_TOO_LONG:
        assert isinstance(err, openai.BadRequestError)
        assert err.code == "context_length_exceeded"
    (rec,) = srv.chat_requests
    assert (rec.fault, rec.status) == (fault, status)


@pytest.mark.parametrize("fault", list(RAISING))
def test_each_fault_raises_the_right_exception(fault, simulated_openai, oai):
    srv = simulated_openai(ScriptedPolicy(["never sent"]), hang_seconds=3)
    srv.inject(fault)
    with pytest.raises(Exception) as info:
        oai(srv, timeout=_timeout(fault)).chat.completions.create(model="m", messages=HELLO)
    _check(fault, info.value, srv)


@pytest.mark.parametrize("fault", list(RAISING))
async def test_each_fault_raises_the_right_exception_async(fault, simulated_openai, aoai):
    srv = simulated_openai(ScriptedPolicy(["never sent"]), hang_seconds=3)
    srv.inject(fault)
    with pytest.raises(Exception) as info:
        await aoai(srv, timeout=_timeout(fault)).chat.completions.create(model="m", messages=HELLO)
    _check(fault, info.value, srv)


def test_rate_limit_announces_retry_after(simulated_openai, oai):
    srv = simulated_openai(["x"])
    srv.inject(Fault.RATE_LIMIT, retry_after=2.5)
    with pytest.raises(openai.RateLimitError) as info:
        oai(srv).chat.completions.create(model="m", messages=HELLO)
    headers = info.value.response.headers
    assert (headers["retry-after"], headers["retry-after-ms"]) == ("2", "2500")
    assert info.value.code == "rate_limit_exceeded"
    body = info.value.response.json()
    assert set(body["error"]) == {"message", "type", "param", "code"}


def test_empty_choices(simulated_openai, oai):
    srv = simulated_openai(["x"])
    srv.inject(Fault.EMPTY_CHOICES, times=2)
    c = oai(srv)
    assert c.chat.completions.create(model="m", messages=HELLO).choices == []
    chunks = list(c.chat.completions.create(model="m", messages=HELLO, stream=True))
    assert all(chunk.choices == [] for chunk in chunks)


async def test_empty_choices_async(simulated_openai, aoai):
    srv = simulated_openai(["x"])
    srv.inject(Fault.EMPTY_CHOICES)
    out = await aoai(srv).chat.completions.create(model="m", messages=HELLO)
    assert out.choices == []


def test_malformed_stream_event_raises(simulated_openai, oai):
    srv = simulated_openai(["x"])
    srv.inject(Fault.MALFORMED)
    with pytest.raises(ValueError):
        list(oai(srv).chat.completions.create(model="m", messages=HELLO, stream=True))


def test_injected_faults_do_not_consume_the_script(simulated_openai, oai):
    policy = ScriptedPolicy(["第一", "第二"])
    srv = simulated_openai(policy)
    srv.inject(Fault.RATE_LIMIT, retry_after=0.01, times=2)
    # The client's own retries (honouring retry-after-ms) reach the first scripted reply.
    out = oai(srv, max_retries=2).chat.completions.create(model="m", messages=HELLO)
    assert out.choices[0].message.content == "第一"
    assert [r.status for r in srv.requests] == [429, 429, 200]
    assert policy.remaining == 1


def test_scripted_faults_take_their_turn(simulated_openai, oai):
    srv = simulated_openai([FaultSpec(Fault.UNAVAILABLE, message="维护中"), "好了"])
    c = oai(srv)
    with pytest.raises(openai.InternalServerError) as info:
        c.chat.completions.create(model="m", messages=HELLO)
    assert info.value.status_code == 503
    assert "维护中" in info.value.message
    assert c.chat.completions.create(model="m", messages=HELLO).choices[0].message.content == "好了"


PROFILE = FaultProfile(rate_limit=0.2, server_error=0.1, unavailable=0.1, empty_choices=0.1, seed=7)


def _statuses(srv, oai, n: int = 30) -> list[object]:
    c = oai(srv)
    for _ in range(n):
        with contextlib.suppress(openai.APIStatusError):
            c.chat.completions.create(model="m", messages=HELLO)
    return [(r.status, r.fault) for r in srv.requests]


def test_seeded_profile_is_reproducible(simulated_openai, oai):
    first = _statuses(simulated_openai(lambda m, t: "ok", faults=PROFILE), oai)
    again = _statuses(simulated_openai(lambda m, t: "ok", faults=PROFILE), oai)
    other = FaultProfile(**{**PROFILE.rates(), "seed": 8})
    different = _statuses(simulated_openai(lambda m, t: "ok", faults=other), oai)
    assert first == again
    assert first != different
    assert {f for _, f in first} == {None, *PROFILE_FAULTS}


PROFILE_FAULTS = {Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.UNAVAILABLE, Fault.EMPTY_CHOICES}


def test_profile_rates_hold_over_many_draws():
    sampler = FaultSampler(FaultProfile(rate_limit=0.05, server_error=0.02, drop=0.03, seed=7))
    counts = collections.Counter(
        s.fault if s else None for s in (sampler.draw() for _ in range(20_000))
    )
    # Binomial standard deviations at n=20,000 are 31, 20 and 24: allow four.
    assert abs(counts[Fault.RATE_LIMIT] - 1000) < 124
    assert abs(counts[Fault.SERVER_ERROR] - 400) < 80
    assert abs(counts[Fault.DROP] - 600) < 96
    assert set(counts) == {None, Fault.RATE_LIMIT, Fault.SERVER_ERROR, Fault.DROP}
    replay = FaultSampler(sampler.profile)
    assert [replay.draw() for _ in range(20_000)].count(FaultSpec(Fault.DROP)) == counts[Fault.DROP]


@pytest.mark.parametrize(
    "kwargs", [{"rate_limit": 1.5}, {"server_error": -0.1}, {"rate_limit": 0.6, "drop": 0.6}]
)
def test_profile_rejects_impossible_rates(kwargs):
    with pytest.raises(ValueError):
        FaultProfile(**kwargs)


def test_latency_still_delivers_the_whole_reply(simulated_openai, oai):
    text = "慢一点的回答" * 3
    srv = simulated_openai([text, text], latency=Latency(fixed=0.01, per_output_token=0.001))
    c = oai(srv)
    assert c.chat.completions.create(model="m", messages=HELLO).choices[0].message.content == text
    chunks = list(c.chat.completions.create(model="m", messages=HELLO, stream=True))
    assert "".join(ch.choices[0].delta.content or "" for ch in chunks) == text
    assert Latency(fixed=0.2, per_output_token=0.002).total(100) == pytest.approx(0.4)

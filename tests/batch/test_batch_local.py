"""The local executor end to end: the real ChatOpenAI against the simulated server.

Every job test has its async twin (``run_batch`` and ``await arun_batch``).
"""

from __future__ import annotations

import asyncio
import functools
import io
import json
import os
import signal
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from batch_support import (
    KEY,
    LostLimiter,
    Recording,
    broken_agent,
    ids_of,
    in_background,
    make_agent,
    read_lines,
    task,
    tasks,
    wait_for_lines,
)
from langchain_core.messages import AIMessage
from langchain_core.tools import tool

from lcel_agent import create_agent
from lcel_agent.batch import (
    BatchError,
    BatchInterrupted,
    BatchRunError,
    BatchSummary,
    RateLimitCallback,
    arun_batch,
    run_batch,
)
from lcel_agent.batch._items import Item
from lcel_agent.batch._progress import _Bar, status_line
from lcel_agent.batch._tally import Tally
from lcel_agent.batch._work import run_item
from lcel_agent.errors import ConfigurationError
from lcel_agent.report import read_results, render_batch
from lcel_agent.testing.fake import FunctionChatModel
from lcel_agent.testing.server import SimulatedOpenAIServer


@pytest.fixture(params=["sync", "async"])
def job(request: pytest.FixtureRequest):
    """``job(make_agent, inputs, **options)``: run_batch, or its async twin.

    The twin runs every job of a test on one loop, as an async program would: the model
    client's pooled connections belong to the loop that opened them.
    """
    loop = asyncio.new_event_loop()

    def start(make, inputs, **options: Any) -> BatchSummary:
        options.setdefault("progress", False)
        if request.param == "sync":
            return run_batch(make, inputs, **options)
        return loop.run_until_complete(arun_batch(make, inputs, **options))

    yield start
    loop.close()


def test_every_input_gets_exactly_one_line_with_its_result(
    job, server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    out = tmp_path / "results.jsonl"
    inputs = [task(0), *tasks(10, start=1), {"input": task(11)}]
    summary = job(functools.partial(make_agent, server.base_url), inputs, out=out, max_in_flight=4)

    lines = read_lines(out)
    assert sorted(line["id"] for line in lines) == list(range(12))  # positions stand in for ids
    for line in lines:
        assert line["input"] == task(line["id"])
        result = line["result"]
        assert result["stop_reason"] == "final" and result["loops"] == 4
        assert "北京市天气" in result["output"] and "台风" in result["output"]
    assert model.calls_per_task() == {i: 4 for i in range(12)}
    served = sum(r.usage["total_tokens"] for r in server.chat_requests if r.usage)
    assert summary.usage.total_tokens == served
    assert (summary.done, summary.skipped, summary.total, summary.completed) == (12, 0, 12, True)
    assert dict(summary.stop_reasons) == {"final": 12}
    assert summary.p50_s is not None and summary.p95_s is not None
    assert 0 < summary.p50_s <= summary.p95_s <= summary.elapsed_s
    table = str(summary)
    assert "final" in table and "12 run now" in table and "p95" in table
    assert json.loads(json.dumps(summary.to_dict()))["stop_reasons"] == {"final": 12}
    assert KEY not in out.read_text()
    # the run report reads the file as a batch: every line a record, none a problem
    records, problems = read_results(out)
    assert problems == [] and len(records) == 12
    assert "final" in render_batch(records, problems, title=out.name)


def _interrupt_when(path: Path, lines: int, stop: Any) -> threading.Thread:
    thread, _ = in_background(lambda: (wait_for_lines(path, lines), stop()))
    return thread


def _stopped_part(model: Recording, out: Path, inputs: list[dict[str, Any]]) -> list[Any]:
    """The ids the interrupted job wrote (each once, some but not all); forget its calls."""
    first = ids_of(out)
    assert len(first) == len(set(first)) and 5 <= len(first) < len(inputs)
    model.forget()
    return first


def _check_resumed(
    model: Recording, out: Path, inputs: list[dict[str, Any]], first: list[Any], summary: Any
) -> None:
    missing = {item["id"] for item in inputs} - set(first)
    # the second job asked the model about the missing ids, and only about them
    assert set(model.calls_per_task()) == missing
    assert (summary.done, summary.skipped) == (len(missing), len(first))
    assert sorted(ids_of(out)) == sorted(item["id"] for item in inputs)


def test_ctrl_c_stops_cleanly_and_the_same_job_resumes_where_it_stopped(
    server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    out, inputs = tmp_path / "r.jsonl", tasks(24)
    watcher = _interrupt_when(out, 5, lambda: os.kill(os.getpid(), signal.SIGINT))
    with pytest.raises(BatchInterrupted) as stopped:
        run_batch(
            functools.partial(make_agent, server.base_url), inputs, out=out,
            max_in_flight=2, progress=False,
        )  # fmt: skip
    watcher.join()
    assert isinstance(stopped.value, KeyboardInterrupt)
    summary = stopped.value.summary
    assert not summary.completed and summary.done == len(ids_of(out))
    first = _stopped_part(model, out, inputs)
    resumed = run_batch(functools.partial(make_agent, server.base_url), inputs, out=out,
                        progress=False)  # fmt: skip
    _check_resumed(model, out, inputs, first, resumed)


def test_cancelling_arun_batch_stops_cleanly_and_the_same_job_resumes(
    server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    out, inputs = tmp_path / "r.jsonl", tasks(24)
    make = functools.partial(make_agent, server.base_url)

    async def main() -> None:
        job = asyncio.create_task(
            arun_batch(make, inputs, out=out, max_in_flight=2, progress=False)
        )
        loop = asyncio.get_running_loop()
        watcher = _interrupt_when(out, 5, lambda: loop.call_soon_threadsafe(job.cancel))
        with pytest.raises(asyncio.CancelledError):
            await job
        watcher.join()
        first = _stopped_part(model, out, inputs)
        resumed = await arun_batch(make, inputs, out=out, progress=False)
        _check_resumed(model, out, inputs, first, resumed)

    asyncio.run(main())


def test_a_half_written_last_line_is_repaired_and_only_its_id_runs_again(
    job, server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    out, inputs = tmp_path / "r.jsonl", tasks(5)
    make = functools.partial(make_agent, server.base_url)
    job(make, inputs, out=out)
    data = out.read_bytes()
    last = data.rstrip(b"\n").rsplit(b"\n", 1)[1]
    broken_id = json.loads(last)["id"]
    out.write_bytes(data[: len(data) - len(last) // 2 - 1])  # a crash in the middle of a write
    model.forget()

    summary = job(make, inputs, out=out)
    assert summary.repaired > 0 and (summary.done, summary.skipped) == (1, 4)
    assert set(model.calls_per_task()) == {broken_id}
    assert sorted(ids_of(out)) == list(range(5))


#: The most a request's arrival at the server may lag behind its turn: the client's own work
#: (building the request, the event loop busy with other runs) between the two.
JITTER = 0.25


def test_the_rate_limit_holds_at_the_server(
    server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    make = functools.partial(make_agent, server.base_url)
    summary = run_batch(make, tasks(6), out=tmp_path / "held.jsonl", max_in_flight=8,
                        rpm=600, progress=False)  # fmt: skip
    # With rpm=600, calls start 0.1 s apart, where without a limit the 8 in flight would
    # leave together. Measured where they arrive, each also carries the client's own delay
    # between its turn and the wire (JITTER at most, on a loaded 2-core machine): the k-th
    # arrives no sooner than k turns after the first, and a 1 s window holds at most
    # 10·(1 + JITTER) + 1 of them.
    times = sorted(t for t, _ in model.arrivals)
    assert len(times) == 24
    assert all(t - times[0] >= k * 0.1 - JITTER for k, t in enumerate(times))
    assert model.max_in_window(1.0) <= 10 * (1 + JITTER) + 1
    assert summary.stop_reasons == {"final": 6}


def test_the_token_limit_holds_at_the_server(
    server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    tpm = 120_000  # 2,000 tokens a second; one request here is about 300
    make = functools.partial(make_agent, server.base_url)
    summary = run_batch(make, tasks(4), out=tmp_path / "r.jsonl", max_in_flight=4, tpm=tpm,
                        progress=False)  # fmt: skip
    biggest = max(spent for _, spent in model.tokens)
    # a window holds its share, plus one call, plus the replies of the (at most 4) calls
    # in flight, whose size is known only when they end
    assert model.max_in_window(1.0, tokens=True) <= tpm / 60 + biggest + 4 * 150
    assert summary.usage.total_tokens == sum(spent for _, spent in model.tokens)
    assert summary.stop_reasons == {"final": 4}


def test_a_run_that_raises_stops_the_job_naming_its_id(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    with pytest.raises(BatchRunError, match=r"id 0: the run raised RuntimeError") as raised:
        run_batch(broken_agent, ["查询北京天气"], out=out, progress=False)
    assert KEY not in str(raised.value)  # the key in the exception's text is redacted
    assert raised.value.summary is not None and raised.value.summary.done == 0
    assert out.read_text() == ""


def test_a_failed_limiter_is_a_job_error_not_a_result() -> None:
    @tool
    def noop(x: str) -> str:
        """noop"""
        return x

    agent = create_agent(FunctionChatModel(lambda m, t: AIMessage("{}")), [noop], llm_retries=1)
    with pytest.raises(BatchRunError, match="the rate limiter failed: ConnectionError"):
        asyncio.run(run_item(agent, Item(1, "task"), [RateLimitCallback(LostLimiter())]))


@pytest.mark.parametrize(
    ("options", "error", "message"),
    [
        ({"executor": "gpu"}, ConfigurationError, "executor must be"),
        ({"address": "auto"}, ConfigurationError, "address is for executor='ray'"),
        ({"workers": 2}, ConfigurationError, "the local executor is one worker"),
        ({"max_in_flight": 0}, ConfigurationError, "max_in_flight must be >= 1"),
        ({"rpm": 0}, ConfigurationError, "rpm must be > 0"),
        ({"out": None}, TypeError, "out must be a file path"),
        ({"inputs": "查询北京天气"}, TypeError, "inputs must be an iterable"),
        ({"make_agent": 42}, TypeError, "make_agent must be"),
    ],
)
def test_bad_arguments_are_refused_before_anything_runs(
    tmp_path: Path, options: dict[str, Any], error: type[Exception], message: str
) -> None:
    arguments: dict[str, Any] = {
        "make_agent": broken_agent,
        "inputs": ["x"],
        "out": tmp_path / "r.jsonl",
    }
    arguments.update(options)
    with pytest.raises(error, match=message):
        run_batch(arguments.pop("make_agent"), arguments.pop("inputs"), **arguments)
    assert not (tmp_path / "r.jsonl").exists()


def test_an_rpm_too_low_for_the_agents_llm_timeout_is_refused(
    server: SimulatedOpenAIServer, tmp_path: Path
) -> None:
    make = functools.partial(make_agent, server.base_url, llm_timeout=5.0)
    with pytest.raises(ConfigurationError, match=r"llm_timeout >= \d+ s, or raise rpm"):
        run_batch(make, ["x"], out=tmp_path / "r.jsonl", rpm=6, progress=False)


def test_executor_ray_without_ray_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what `import ray` meets without the extra
    with pytest.raises(
        BatchError, match=r"optional extra 'ray': in a clone, pip install -e '\.\[ray\]'"
    ):
        run_batch(broken_agent, ["x"], out=tmp_path / "r.jsonl", executor="ray")


async def test_run_batch_works_where_an_event_loop_runs_already(
    server: SimulatedOpenAIServer, tmp_path: Path
) -> None:
    # as in a notebook: the job runs on its own loop, not on the caller's
    make = functools.partial(make_agent, server.base_url)
    summary = run_batch(make, tasks(2), out=tmp_path / "r.jsonl", progress=False)
    assert summary.stop_reasons == {"final": 2}


def test_progress_shows_done_rate_eta_and_stop_reasons(
    server: SimulatedOpenAIServer, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    run_batch(functools.partial(make_agent, server.base_url), tasks(3), out=tmp_path / "r.jsonl")
    err = capsys.readouterr().err  # not a terminal: a status line (and the last one at the end)
    assert err.splitlines()[-1].startswith("batch: 3/3 done · ")
    assert err.rstrip().endswith("final 3")

    tally = Tally(out="r.jsonl", total=10, done=3, skipped=1, reruns=2)
    tally.reasons.update({"final": 2, "max_errors": 1})
    assert status_line(tally, elapsed=2.0) == (
        "4/10 done · 1.5 runs/s · ETA 4s · 1 resumed · 2 re-run · final 2 · max_errors 1"
    )
    screen = io.StringIO()
    bar = _Bar(tally, screen)
    bar.close(tally)
    assert "max_errors 1" in screen.getvalue()


def test_the_summary_counts_the_time_taken_to_join_the_workers(
    server: SimulatedOpenAIServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Joining Ray (ray.init, seconds) happens before the job's coroutine starts: the
    # summary's time and its "starting" part must still include it.
    import time

    from lcel_agent.batch import _runner
    from lcel_agent.batch._local import LocalExecutor

    class SlowToJoin(LocalExecutor):
        def connect(self) -> None:
            time.sleep(1.0)

    monkeypatch.setattr(
        _runner, "_executor", lambda job: SlowToJoin(job.make_agent, max_in_flight=2)
    )
    summary = run_batch(functools.partial(make_agent, server.base_url), tasks(1),
                        out=tmp_path / "r.jsonl", progress=False)  # fmt: skip
    assert summary.startup_s >= 1.0 and summary.elapsed_s >= summary.startup_s
    assert f"({summary.startup_s:.1f} s starting)" in str(summary)

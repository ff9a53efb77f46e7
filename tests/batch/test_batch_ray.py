"""The Ray executor on a local one-node Ray (``ray.init(num_cpus=2)``), shared by the module.

Workers are separate processes: they build the agent from ``batch_support.make_agent``
and talk to the simulated server over loopback like any client.
"""

from __future__ import annotations

import functools
import os
import signal
from pathlib import Path

import pytest
from batch_support import (
    Recording,
    ids_of,
    in_background,
    make_agent,
    read_lines,
    tasks,
    wait_for_lines,
)

from lcel_agent.batch import run_batch
from lcel_agent.testing.server import SimulatedOpenAIServer

pytestmark = [pytest.mark.ray, pytest.mark.usefixtures("local_ray")]

JITTER = 0.25  # see test_batch_local.py: a request's arrival may lag its turn by this much


def workers_seen(server: SimulatedOpenAIServer) -> set[str]:
    """The worker processes that sent requests (their pid rides in a header)."""
    return {r.headers.get("x-worker", "?") for r in server.chat_requests}


def test_a_ray_job_runs_every_input_once_on_every_worker(
    server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    marks = tmp_path / "marks"
    marks.mkdir()
    make = functools.partial(make_agent, server.base_url, mark_dir=str(marks))
    summary = run_batch(make, tasks(12), out=tmp_path / "r.jsonl", executor="ray",
                        workers=2, max_in_flight=4, progress=False)  # fmt: skip

    assert sorted(ids_of(tmp_path / "r.jsonl")) == list(range(12))
    assert all(
        line["result"]["stop_reason"] == "final" for line in read_lines(tmp_path / "r.jsonl")
    )
    assert model.calls_per_task() == {i: 4 for i in range(12)}
    pids = {p.name for p in marks.iterdir()}
    assert len(pids) == 2 and str(os.getpid()) not in pids  # two worker processes, not us
    assert workers_seen(server) == pids
    assert summary.done == 12 and summary.stop_reasons == {"final": 12}


def test_a_worker_killed_mid_job_leaves_exactly_one_line_per_input(
    server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    marks, out = tmp_path / "marks", tmp_path / "r.jsonl"
    marks.mkdir()
    make = functools.partial(make_agent, server.base_url, mark_dir=str(marks))
    job, finished = in_background(lambda: run_batch(
        make, tasks(30), out=out, executor="ray", workers=2, max_in_flight=4, progress=False,
    ))  # fmt: skip
    wait_for_lines(out, 6, job.is_alive)
    victim = int(sorted(marks.iterdir())[0].name)
    os.kill(victim, signal.SIGKILL)  # the worker process dies with runs in flight
    job.join(timeout=120)

    assert finished, "the job did not finish"
    summary = finished[0]
    ids = ids_of(out)
    assert sorted(ids) == list(range(30))  # none lost, none written twice
    assert all(line["result"]["stop_reason"] == "final" for line in read_lines(out))
    assert summary.reruns >= 1  # the killed worker had runs in flight; they ran again
    assert summary.done == 30 and summary.completed


def test_the_rate_limit_holds_across_four_workers(
    server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    make = functools.partial(make_agent, server.base_url)
    summary = run_batch(make, tasks(8), out=tmp_path / "r.jsonl", executor="ray", workers=4,
                        max_in_flight=4, rpm=600, progress=False)  # fmt: skip

    assert len(workers_seen(server)) == 4  # the fleet really was four processes
    times = sorted(t for t, _ in model.arrivals)
    assert len(times) == 32
    # one limiter actor for the fleet: calls start 0.1 s apart whichever worker makes them
    assert times[-1] - times[0] >= 31 * 0.1 - JITTER
    assert model.max_in_window(1.0) <= 10 * (1 + JITTER) + 1
    assert summary.stop_reasons == {"final": 8}


def test_a_worker_that_cannot_build_its_agent_fails_the_job_clearly(tmp_path: Path) -> None:
    from lcel_agent.batch import BatchRunError

    with pytest.raises(BatchRunError, match=r"a Ray worker could not start .*no_such_module"):
        run_batch("no_such_module:make", ["x"], out=tmp_path / "r.jsonl", executor="ray",
                  workers=1, progress=False)  # fmt: skip
    assert not (tmp_path / "r.jsonl").exists()  # refused before out was touched

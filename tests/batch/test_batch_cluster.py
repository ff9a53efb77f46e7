"""The Ray executor on a two-node cluster on loopback, started and stopped by the fixture.

The head runs on 127.0.0.2 and the second node on 127.0.0.3 (one CPU each); each job
joins it as a driver (``address="auto"`` finds it through ``RAY_ADDRESS``, as on a
cluster's head) and leaves it running when it ends.
"""

from __future__ import annotations

import functools
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
from ray_support import Cluster

from lcel_agent.batch import run_batch
from lcel_agent.testing.server import SimulatedOpenAIServer

pytestmark = pytest.mark.ray


def test_a_job_on_a_two_node_cluster_runs_on_both_nodes(
    ray_cluster: Cluster,
    server: SimulatedOpenAIServer,
    model: Recording,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import ray

    marks, out = tmp_path / "marks", tmp_path / "r.jsonl"
    marks.mkdir()
    monkeypatch.setenv("RAY_ADDRESS", ray_cluster.address)
    make = functools.partial(make_agent, server.base_url, mark_dir=str(marks))
    summary = run_batch(make, tasks(10), out=out, executor="ray", address="auto", workers=2,
                        max_in_flight=4, progress=False)  # fmt: skip
    assert not ray.is_initialized()  # the job left the cluster, which runs on

    nodes = {p.read_text() for p in marks.iterdir()}
    assert len(nodes) == 2 and "" not in nodes  # one worker on each node
    assert sorted(ids_of(out)) == list(range(10))
    assert all(line["result"]["stop_reason"] == "final" for line in read_lines(out))
    assert summary.stop_reasons == {"final": 10}


def test_a_node_lost_mid_job_loses_no_input(
    ray_cluster: Cluster, server: SimulatedOpenAIServer, model: Recording, tmp_path: Path
) -> None:
    # Last in this module: it takes the second node down for good.
    out = tmp_path / "r.jsonl"
    make = functools.partial(make_agent, server.base_url)
    job, finished = in_background(lambda: run_batch(
        make, tasks(40), out=out, executor="ray", address=ray_cluster.address, workers=2,
        max_in_flight=2, progress=False,
    ))  # fmt: skip
    wait_for_lines(out, 4, job.is_alive)
    ray_cluster.stop("node")  # every process of 127.0.0.3: its raylet and its worker
    job.join(timeout=180)

    assert finished, "the job did not finish"
    assert sorted(ids_of(out)) == list(range(40))
    assert all(line["result"]["stop_reason"] == "final" for line in read_lines(out))
    assert finished[0].reruns >= 1 and finished[0].completed

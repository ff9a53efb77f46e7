"""Fixtures of the batch tests: the simulated server, and Ray on loopback.

Ray stays on 127.0.0.0/8 and off the user's own Ray state: a private ``RAY_TMPDIR``,
token auth off, the one-node mode that binds 127.0.0.1 (see NOTES "Ray on these
machines"). The two-node cluster gives each node its own loopback address; its
processes are started in their own sessions and stopped by process group, never by
``ray stop`` (which would stop every Ray on the machine).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from batch_support import Recording
from ray_support import Cluster

from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer

HERE = Path(__file__).resolve().parent


@pytest.fixture
def model() -> Recording:
    return Recording()


@pytest.fixture
def server(model: Recording) -> Iterator[SimulatedOpenAIServer]:
    """The simulated OpenAI server playing :class:`Recording`, 20 ms per answer."""
    with SimulatedOpenAIServer(model, latency=Latency(fixed=0.02)) as srv:
        yield srv


@pytest.fixture(scope="session")
def ray_env() -> Iterator[dict[str, str]]:
    """The environment every Ray process of the tests gets (the driver's own included)."""
    tmp = tempfile.mkdtemp(prefix="rayb", dir="/tmp")  # short: socket paths live under it
    wanted = {
        "RAY_TMPDIR": tmp,
        "RAY_AUTH_MODE": "disabled",
        "RAY_USAGE_STATS_ENABLED": "0",
        "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH")) if p),
    }
    saved = {name: os.environ.get(name) for name in wanted}
    os.environ.update(wanted)
    yield wanted
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    shutil.rmtree(tmp, ignore_errors=True)


@pytest.fixture(scope="module")
def local_ray(ray_env: dict[str, str]) -> Iterator[None]:
    """A local one-node Ray with two CPUs, shared by a test module."""
    import ray

    # One-node mode: Ray binds 127.0.0.1 instead of the machine's network address.
    saved = os.environ.get("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER")
    os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = "0"
    try:
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False,
                 object_store_memory=100 * 2**20)  # fmt: skip
        yield
    finally:
        ray.shutdown()
        if saved is None:
            os.environ.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)
        else:
            os.environ["RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"] = saved


@pytest.fixture(scope="module")
def ray_cluster(ray_env: dict[str, str]) -> Iterator[Cluster]:
    """A two-node Ray cluster on loopback (one CPU each); jobs join it by its address."""
    own = Path(ray_env["RAY_TMPDIR"]) / "cluster"  # apart from the local Ray's files
    own.mkdir(exist_ok=True)
    cluster = Cluster(ray_env | {"RAY_TMPDIR": str(own)})
    try:
        yield cluster.start()
    finally:
        cluster.stop()

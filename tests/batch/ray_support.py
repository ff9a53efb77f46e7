"""A two-node Ray cluster on loopback for the tests: started by ``ray start``, stopped by
process group (never ``ray stop``, which stops every Ray on the machine)."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def _ray_cli() -> str:
    return str(Path(sys.executable).with_name("ray"))


class Cluster:
    """Two Ray nodes on 127.0.0.2 (head) and 127.0.0.3, started by ``ray start``."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = {**os.environ, **env}
        self.env.pop("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", None)  # multi-node: each node names
        # its own loopback address instead
        self.port = _free_port("127.0.0.2")
        self.address = f"127.0.0.2:{self.port}"
        self.groups: dict[str, int] = {}

    def _start(self, name: str, *args: str) -> None:
        common = ["--num-cpus=1", "--object-store-memory=100000000", "--disable-usage-stats"]
        # A file, not a pipe: the daemons `ray start` leaves behind would hold a pipe open.
        log = Path(self.env["RAY_TMPDIR"]) / f"ray-start-{name}.log"
        with log.open("w") as output:
            process = subprocess.Popen(
                [_ray_cli(), "start", *args, *common],
                env=self.env,
                start_new_session=True,  # the node's processes stay in this new process group
                stdout=output,
                stderr=subprocess.STDOUT,
            )
        # `ray start` exits once the node is up; the processes it started keep its pid as
        # their process group, which is how the fixture stops exactly this node.
        self.groups[name] = process.pid
        try:
            process.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.stop(name)
            process.wait()
            raise RuntimeError(f"ray start ({name}) did not finish:\n{log.read_text()}") from None
        if process.returncode != 0:
            raise RuntimeError(f"ray start ({name}) failed:\n{log.read_text()}")

    def start(self) -> Cluster:
        self._start("head", "--head", "--node-ip-address=127.0.0.2", f"--port={self.port}",
                    "--include-dashboard=false")  # fmt: skip
        self._start("node", f"--address={self.address}", "--node-ip-address=127.0.0.3")
        self._wait_for_nodes(2)
        return self

    def _wait_for_nodes(self, count: int, timeout: float = 60) -> None:
        """Until ``count`` nodes are alive and offer their CPUs (a raylet that has just
        started may not take work yet, and the job would put every worker on the head)."""
        import ray

        ray.init(address=self.address, log_to_driver=False)
        try:
            deadline = time.monotonic() + timeout
            while ray.available_resources().get("CPU", 0) < count:
                if time.monotonic() > deadline:
                    raise RuntimeError(f"the cluster never offered {count} CPUs: {ray.nodes()}")
                time.sleep(0.2)
        finally:
            ray.shutdown()

    def stop(self, name: str | None = None) -> None:
        """Stop one node (or all) by process group: TERM, then KILL what is left."""
        groups = (
            [self.groups.pop(name)] if name else [self.groups.pop(n) for n in list(self.groups)]
        )
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for group in groups:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(group, sig)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline and any(_alive(g) for g in groups):
                time.sleep(0.1)


def _alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    return True

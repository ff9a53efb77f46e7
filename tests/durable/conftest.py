"""Fixtures of the durable-run tests: savers on real storage, and a PostgreSQL server.

``storage`` gives a function that opens a *new* saver object on one storage each time
it is called (a restarted process opens its database again): SQLite on disk, or the
in-memory saver (one object: its storage is the object). ``postgres_url`` starts a
throwaway PostgreSQL server on 127.0.0.1 for the session (Debian's ``postgresql``
package; run as the ``postgres`` user when the tests run as root, as NOTES.md says)
and skips, saying why, only where the server is not installed.
"""

from __future__ import annotations

import gc
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from durable_support import World, sqlite_saver
from langgraph.checkpoint.memory import InMemorySaver


@pytest.fixture(autouse=True, scope="module")
def _quiet_heap() -> None:
    """Collect what earlier test modules left before these allocation-heavy tests run.

    A model client used under an earlier test's ``asyncio.run`` can leave sockets behind
    (see ``closes_async_clients`` in tests/conftest.py); whichever test then happens to
    trigger the garbage collector reports them as its own ResourceWarning. The property
    test allocates enough to be that test, so the heap is collected quietly first.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@pytest.fixture
def world() -> World:
    return World()


@pytest.fixture(params=["sqlite", "memory"])
def storage(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Callable[[], Any]]:
    """Open a saver on the test's storage (a new object per call for SQLite)."""
    opened: list[Any] = []
    if request.param == "sqlite":

        def open_saver() -> Any:
            saver = sqlite_saver(tmp_path / "checkpoints.db")
            opened.append(saver)
            return saver

        yield open_saver
    else:
        memory = InMemorySaver()
        yield lambda: memory
    for saver in opened:
        saver.conn.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _pg_bin() -> Path | None:
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """A PostgreSQL server of its own on loopback, for the whole session."""
    bindir = _pg_bin()
    if bindir is None:
        pytest.skip(
            "PostgreSQL is not installed here (Debian's postgresql package, which .ci/run "
            "installs): the PostgresSaver tests need a real server"
        )
    root = Path(tempfile.mkdtemp(prefix="pg", dir="/tmp"))  # short: the socket lives here
    as_root = os.geteuid() == 0
    prefix = ["runuser", "-u", "postgres", "--"] if as_root else []
    if as_root:
        shutil.chown(root, "postgres")
    port = _free_port()
    data, log = root / "data", root / "log"

    def pg(*args: str) -> None:
        subprocess.run([*prefix, *args], check=True, capture_output=True, timeout=120)

    pg(str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres")
    options = f"-k {root} -p {port} -h 127.0.0.1"
    pg(str(bindir / "pg_ctl"), "-D", str(data), "-o", options, "-l", str(log), "-w", "start")
    try:
        yield f"postgresql://postgres@127.0.0.1:{port}/postgres"
    finally:
        pg(str(bindir / "pg_ctl"), "-D", str(data), "stop", "-m", "fast", "-w")
        shutil.rmtree(root, ignore_errors=True)

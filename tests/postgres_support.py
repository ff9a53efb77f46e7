"""A throwaway PostgreSQL server on loopback, for the tests that need a real one.

Debian's ``postgresql`` package (which .ci/run installs) has the binaries; as NOTES.md
says, they refuse to run as root, so a root test run starts them as ``postgres``.
The ``postgres_url`` fixture (tests/conftest.py) starts one per session and skips,
saying why, only where the server is not installed.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

NOT_INSTALLED = (
    "PostgreSQL is not installed here (Debian's postgresql package, which .ci/run "
    "installs): the PostgresSaver tests need a real server"
)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def pg_bin() -> Path | None:
    """The folder of PostgreSQL's server binaries, or None when it is not installed."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


@contextmanager
def postgres_server(bindir: Path) -> Iterator[str]:
    """Start a server of its own on 127.0.0.1; yield its URL; stop it and remove its files."""
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

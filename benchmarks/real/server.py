"""The llama.cpp server (llama-cpp-python's) as a process the benchmark owns.

    with LlamaServer(".venv-llama/bin/python", model_path, log_path) as server:
        server.base_url              # http://127.0.0.1:<free port>
        mark = server.log_mark()     # ... then server.log_since(mark)

It listens on loopback only, on a free port; its output goes to ``log_path``. It runs in
its own process group, so leaving the ``with`` block (normally, on an exception, or on
Ctrl-C, which the runner turns into ``KeyboardInterrupt``) stops it and its threads.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType

#: Flags every run uses (docs/benchmarks.md, "Real models"): the default chat format
#: (the GGUF's own template; tool calls come back as text). Threads are a parameter.
SERVER_FLAGS = ("--n_ctx", "8192", "--model_alias", "local")

#: ggml runs its threads under OpenMP, whose workers spin while they wait. On cores shared
#: with other work a spinning worker holds a core the others need: measured here under a
#: load of 11 on 2 cores, the 0.5B model took 103 s for a 101-token prompt and 40 tokens
#: with spinning, 17 s with passive waits. The user's own setting wins.
SERVER_ENV = {"OMP_WAIT_POLICY": "PASSIVE"}


class ServerError(Exception):
    """The server did not come up."""


def free_port() -> int:
    """A TCP port free on 127.0.0.1 right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class LlamaServer:
    """``python -m llama_cpp.server`` on 127.0.0.1, started and stopped with the block."""

    def __init__(
        self, python: str, model: Path, log_path: Path, *, threads: int = 2,
        start_timeout: float = 180.0, flags: Sequence[str] = SERVER_FLAGS,
    ) -> None:  # fmt: skip
        self.python = python
        self.model = model
        self.log_path = log_path
        self.threads = threads
        self.start_timeout = start_timeout
        self.flags = tuple(flags)
        self.port = 0
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        if not self.model.exists():
            raise ServerError(f"no model at {self.model} (run: make bench-models)")
        self.port = free_port()
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as log:
            self._process = subprocess.Popen(
                self.command(), stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                start_new_session=True, env=self.environment(),
            )  # fmt: skip
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._process.poll() is not None:
                raise ServerError(
                    f"the server exited ({self._process.returncode}):\n{self._tail()}"
                )
            try:
                with urllib.request.urlopen(self.base_url + "/v1/models", timeout=2) as answer:
                    if answer.status == 200:
                        return
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise ServerError(
            f"the server did not answer within {self.start_timeout:.0f} s:\n{self._tail()}"
        )

    def command(self) -> list[str]:
        """The server's command line (a subclass may start another server the same way)."""
        return [
            self.python, "-m", "llama_cpp.server", "--model", str(self.model),
            "--host", "127.0.0.1", "--port", str(self.port), "--n_threads", str(self.threads),
            *self.flags,
        ]  # fmt: skip

    def environment(self) -> dict[str, str]:
        """The server's environment: :data:`SERVER_ENV` under the caller's own settings."""
        return SERVER_ENV | dict(os.environ)

    def alive(self) -> bool:
        """True while the server process runs (a crash shows here, not only as refused calls)."""
        return self._process is not None and self._process.poll() is None

    def stop(self) -> None:
        """Stop the server's process group: SIGTERM, then SIGKILL after 10 s."""
        process, self._process = self._process, None
        if process is None or process.poll() is not None:
            return
        try:
            os.killpg(process.pid, signal.SIGTERM)
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)
        except ProcessLookupError:
            pass

    def log_mark(self) -> int:
        """The log's current size: pass it to :meth:`log_since` after a request."""
        try:
            return self.log_path.stat().st_size
        except OSError:
            return 0

    def log_since(self, mark: int) -> str:
        """What the server logged after ``mark``."""
        try:
            with self.log_path.open("rb") as f:
                f.seek(mark)
                return f.read().decode("utf-8", errors="replace")
        except OSError:
            return ""

    def _tail(self, lines: int = 15) -> str:
        return "\n".join(self.log_since(0).splitlines()[-lines:])

    def __enter__(self) -> LlamaServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

"""Helpers of the checkpointed-run tests: real ``lcel-agent`` processes, watched and stopped.

Every command runs ``--simulate`` in its own process. A ``sitecustomize`` module put
first on the child's path (as the Ctrl-C tests do) watches it from inside without
touching the library: each call of the simulated model appends a line to ``model`` in
the test's log folder, each request to the fake Amap service the city to ``weather``;
with ``LCEL_TEST_HANG=上海`` the weather request for that city writes ``hang`` and never
returns, so the test can kill or interrupt the process during that tool call. The
simulated services start afresh in every process, so the counts add up across a run
and its resumes.
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

from cli_support import LCEL_AGENT, ROOT, SCRUBBED, on_path

#: Two cities, then an answer: three model calls, two of them with a tool call.
TASK = "查询北京和上海今天的天气"

_HOOK = """
import os, pathlib, time
from lcel_agent.testing import offline, services

_log = pathlib.Path(os.environ["LCEL_TEST_LOG"])
_hang = os.environ.get("LCEL_TEST_HANG")


def _append(name, line):
    with open(_log / name, "a", encoding="utf-8") as out:
        out.write(line + "\\n")


_model = offline.TaskReadingModel.__call__


def _counted(self, messages, tools):
    _append("model", str(os.getpid()))
    return _model(self, messages, tools)


_answer = services.FakeAmapServer._answer


def _weather(self, mode, path, query):
    city = query.get("city", "")
    _append("weather", city)
    if city == _hang:
        (_log / "hang").write_text(str(os.getpid()))
        time.sleep(600)
    return _answer(self, mode, path, query)


offline.TaskReadingModel.__call__ = _counted
services.FakeAmapServer._answer = _weather

# LCEL_TEST_SIGINT: Ctrl-C at a moment after the run's result is stored: "stored" (right
# after the last checkpoint is written), "printed" (after the result is printed, while
# the report and notes are written) or "exit" (while the interpreter exits).
# LCEL_TEST_SIGNAL names another signal to send then (SIGTERM, SIGHUP).
_sigint = os.environ.get("LCEL_TEST_SIGINT")
if _sigint:
    import atexit, signal

    _signal = getattr(signal, os.environ.get("LCEL_TEST_SIGNAL", "SIGINT"))

    def _interrupt():
        os.kill(os.getpid(), _signal)

    if _sigint == "stored":
        from lcel_agent.durable import _run

        _put = _run.DurableRun._put

        def _put_then_interrupt(self, phase, state):
            _put(self, phase, state)
            if phase is _run.Phase.FINISHED:
                _interrupt()

        _run.DurableRun._put = _put_then_interrupt
    elif _sigint == "printed":
        from lcel_agent.cli import _drive

        _report = _drive._write_report

        def _report_after_interrupt(result, path):
            _interrupt()
            return _report(result, path)

        _drive._write_report = _report_after_interrupt
    else:
        atexit.register(_interrupt)
"""


class Cli:
    """``lcel-agent`` in child processes, with the watching hook and one log folder."""

    def __init__(self, folder: Path) -> None:
        self.log = folder / "log"
        self.log.mkdir()
        hook = folder / "hook"
        hook.mkdir()
        (hook / "sitecustomize.py").write_text(_HOOK, encoding="utf-8")
        path = os.pathsep.join(p for p in (str(hook), os.environ.get("PYTHONPATH")) if p)
        self.env = on_path({k: v for k, v in os.environ.items() if k not in SCRUBBED})
        self.env |= {"PYTHONPATH": path, "LCEL_TEST_LOG": str(self.log), "COLUMNS": "200",
                     "PYTHONIOENCODING": "utf-8", "PYTHONUNBUFFERED": "1"}  # fmt: skip

    def _env(self, hang: str | None, env: dict[str, str] | None) -> dict[str, str]:
        return self.env | ({"LCEL_TEST_HANG": hang} if hang else {}) | (env or {})

    def run(
        self,
        *args: str,
        hang: str | None = None,
        env: dict[str, str] | None = None,
        prefix: tuple[str, ...] = (),
    ) -> subprocess.CompletedProcess[str]:
        """``lcel-agent ARGS``, to its end (``env``: more variables; ``prefix``: a command
        that runs it, such as ``setpriv ...``)."""
        return subprocess.run(
            [*prefix, str(LCEL_AGENT), *args],
            cwd=ROOT, env=self._env(hang, env), capture_output=True, text=True,
            encoding="utf-8", timeout=120, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip

    def start(
        self, *args: str, hang: str | None = None, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """``lcel-agent ARGS`` in the background (kill it in a ``finally``)."""
        (self.log / "hang").unlink(missing_ok=True)
        return subprocess.Popen(
            [str(LCEL_AGENT), *args],
            cwd=ROOT, env=self._env(hang, env), stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8",
        )  # fmt: skip

    def wait_for_hang(self, process: subprocess.Popen[str], timeout: float = 90) -> None:
        """Until ``process`` is inside the hanging tool call (it wrote ``hang``)."""
        deadline = time.monotonic() + timeout
        while not (self.log / "hang").exists():
            if process.poll() is not None:
                raise AssertionError(f"exited {process.returncode}: {process.communicate()}")
            assert time.monotonic() < deadline, "the tool call never started"
            time.sleep(0.02)

    def lines(self, name: str) -> list[str]:
        """The lines the hook logged to ``name`` (``model`` or ``weather``)."""
        path = self.log / name
        return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def resume_command(stderr: str, decision: str = "") -> list[str]:
    """The arguments of the ``lcel-agent resume ...`` line the command printed (the one
    with the option ``decision`` when one is given), without the program's name."""
    for line in stderr.splitlines():
        at = line.find("lcel-agent resume ")
        if at < 0:
            continue
        words = shlex.split(line[at:])
        assert words[0] == "lcel-agent"
        if not decision or decision in words:
            return words[1:]
    raise AssertionError(f"no resume command{' ' + decision if decision else ''} in {stderr!r}")


def result_of(done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    """The ``--json`` result a command printed."""
    data: dict[str, Any] = json.loads(done.stdout)
    return data


def contents(store: str) -> list[Any]:
    """Everything a store holds, to check that a refused command changed nothing."""
    if store.startswith("postgresql://"):
        import psycopg

        with psycopg.connect(store, autocommit=True) as conn:
            rows: list[Any] = []
            for table in ("checkpoints", "checkpoint_writes", "checkpoint_blobs"):
                found = conn.execute(f"SELECT * FROM {table} ORDER BY 1, 2, 3, 4").fetchall()
                rows.append([tuple(map(repr, row)) for row in found])
            return rows
    # Closed here, not when collected: an open connection keeps STORE-wal and -shm about.
    with contextlib.closing(sqlite3.connect(store)) as conn:
        return list(conn.iterdump())

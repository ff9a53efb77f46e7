"""Fixtures for the CLI tests: fake Amap/Baidu servers and a way to run the real command."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cli_support import ROOT, SCRUBBED, on_path
from resume_support import TASK, Cli, result_of

from lcel_agent.testing.services import FakeAmapServer, FakeBaiduServer


@pytest.fixture
def services() -> Iterator[tuple[FakeAmapServer, FakeBaiduServer]]:
    with FakeAmapServer() as amap, FakeBaiduServer() as baidu:
        yield amap, baidu


@pytest.fixture
def run_cli() -> Callable[..., subprocess.CompletedProcess[str]]:
    """``run_cli(*args, env={...}, command=[...])``: the real command in a subprocess."""

    def run(
        *args: str,
        env: dict[str, str] | None = None,
        command: list[str] | None = None,
        python: bool = False,
        input: str | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``command`` replaces ``lcel-agent`` (found on ``PATH``, as in an activated
        venv); with ``python=True`` it is the interpreter's arguments instead."""
        full_env = on_path({k: v for k, v in os.environ.items() if k not in SCRUBBED})
        full_env |= {"COLUMNS": "200", "PYTHONIOENCODING": "utf-8", **(env or {})}
        if command is None:
            command = ["lcel-agent"]
        elif python:
            command = [sys.executable, *command]
        return subprocess.run(
            [*command, *args],
            env=full_env,
            cwd=ROOT,
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=90,
            check=False,
            input=input,
            stdin=None if input is not None else subprocess.DEVNULL,
        )

    return run


@pytest.fixture
def cli_env(monkeypatch: pytest.MonkeyPatch) -> Callable[..., None]:
    """For in-process ``main()`` calls: the same clean environment, set with monkeypatch."""

    def apply(values: dict[str, str]) -> None:
        for name in SCRUBBED:
            monkeypatch.delenv(name, raising=False)
        monkeypatch.setenv("COLUMNS", "200")
        for name, value in values.items():
            monkeypatch.setenv(name, value)

    return apply


@pytest.fixture
def cli(tmp_path: Path) -> Cli:
    """``lcel-agent`` in child processes that the test can watch (resume_support.Cli)."""
    return Cli(tmp_path)


@pytest.fixture(params=["sqlite", "postgres"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new checkpoint STORE: a SQLite file's path, or a database of its own on the
    session's PostgreSQL server (made for the test, dropped after it)."""
    if request.param == "sqlite":
        yield str(tmp_path / "runs.db")
        return
    import psycopg

    server = request.getfixturevalue("postgres_url")
    name = f"cli_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    yield f"{server.rsplit('/', 1)[0]}/{name}"
    with psycopg.connect(server, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


@pytest.fixture(scope="session")
def loops_without_a_checkpoint(tmp_path_factory: pytest.TempPathFactory) -> int:
    """How many loops TASK takes in one plain ``run --simulate``: what every resumed
    run of it must add up to."""
    done = Cli(tmp_path_factory.mktemp("plain")).run("run", "--simulate", "--json", TASK)
    assert done.returncode == 0, done.stderr
    loops: int = result_of(done)["loops"]
    return loops

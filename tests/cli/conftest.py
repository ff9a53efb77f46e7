"""Fixtures for the CLI tests: fake Amap/Baidu servers and a way to run the real command."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator

import pytest
from cli_support import ROOT, SCRUBBED

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
        """``command`` replaces ``python -m lcel_agent.cli``; with ``python=True`` it is
        the interpreter's arguments instead."""
        full_env = {k: v for k, v in os.environ.items() if k not in SCRUBBED}
        full_env |= {"COLUMNS": "200", "PYTHONIOENCODING": "utf-8", **(env or {})}
        if command is None:
            command = [sys.executable, "-m", "lcel_agent.cli"]
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

"""A process killed with SIGKILL during a tool call, resumed in a new process.

The child (sigkill_child.py) runs a three-reply script on a SQLite file; its first
reply asks for three calls side by side, one of which hangs. Once the other two have
finished (and their results are in the checkpoint's writes), the test kills the
process with SIGKILL. A second process resumes the thread: the two finished calls
do not run again, the killed one does, and no model call is repeated.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

CHILD = Path(__file__).with_name("sigkill_child.py")


def lines(path: Path) -> list[str]:
    return path.read_text(encoding="utf-8").splitlines() if path.exists() else []


def call_writes(db: Path) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db, timeout=5) as conn:
        try:
            found = conn.execute("SELECT count(*) FROM writes WHERE channel = 'lcel_agent:call'")
        except sqlite3.OperationalError:  # the table is not made yet
            return 0
        return int(found.fetchone()[0])


def wait_for(condition, what: str, process: subprocess.Popen[str], timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert process.poll() is None, f"the child exited early: {process.communicate()}"
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.02)


@pytest.mark.parametrize("driver", ["sync", "async"])
def test_a_process_killed_during_a_tool_call_resumes_in_a_new_process(tmp_path, driver):
    child = subprocess.Popen(
        [sys.executable, str(CHILD), str(tmp_path), "start", driver],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: (tmp_path / "hang").exists(), "the hanging call", child)
        wait_for(lambda: call_writes(tmp_path / "checkpoints.db") == 2, "two writes", child)
        os.kill(child.pid, signal.SIGKILL)  # inside get_weather("上海")
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
        child.communicate()
    before = Counter(lines(tmp_path / "tools"))
    assert before == Counter(["get_weather:北京", "search_baidu:台风"])
    assert lines(tmp_path / "model") == ["0"]

    resumed = subprocess.run(
        [sys.executable, str(CHILD), str(tmp_path), "resume", driver],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert resumed.returncode == 0, resumed.stderr
    result = json.loads(resumed.stdout.strip().splitlines()[-1])

    assert result["stop_reason"] == "final" and result["output"] == "北京、上海、广州都是晴天"
    # No finished call ran again; the killed one and the rest ran once.
    assert Counter(lines(tmp_path / "tools")) == Counter(
        ["get_weather:北京", "search_baidu:台风", "get_weather:上海", "get_weather:广州"]
    )
    # The first reply was not asked for again: one model call per reply in all.
    assert lines(tmp_path / "model") == ["0", "1", "2"]
    assert len(result["steps"]) == 3
    assert [o["output"] for o in result["steps"][0]["observations"]] == [
        "北京：晴",
        "上海：晴",
        "台风：晴",
    ]

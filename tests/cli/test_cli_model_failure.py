"""A model server that dies mid-run leaves a thread that resumes on another server (issue 36, 1).

The model server runs in a process of its own (tests/cli/model_server.py) and is
killed with SIGKILL while it holds the run's second model call. The run retries, ends
``llm_error`` (exit 6) and the thread reads ``failed (llm_error)``; ``resume
--base-url`` against a second server asks that failed call again and goes on: the two
servers together answer one call per loop of a plain run, and no tool call runs twice.
SQLite and PostgreSQL.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from cli_support import SECRET, service_env
from resume_support import TASK, result_of, resume_command

from lcel_agent.testing.offline import TaskReadingModel
from lcel_agent.testing.server import SimulatedOpenAIServer

SERVER = Path(__file__).with_name("model_server.py")


def _wait_for(path: Path, process: subprocess.Popen[str], deadline: float) -> None:
    while not path.exists():
        if process.poll() is not None:
            raise AssertionError(f"exited {process.returncode}: {process.communicate()}")
        assert time.monotonic() < deadline, f"{path.name} never showed"
        time.sleep(0.02)


def test_a_model_server_killed_mid_run_leaves_a_failed_thread_that_resumes_elsewhere(
    cli, store, services, tmp_path, loops_without_a_checkpoint
):
    log = tmp_path / "server"
    log.mkdir()
    server = subprocess.Popen(
        [sys.executable, str(SERVER), str(log), "2"], stdout=subprocess.PIPE, text=True
    )
    env = {"OPENAI_API_KEY": SECRET, **service_env(*services)}
    try:
        assert server.stdout is not None
        first_url = server.stdout.readline().strip()
        run = cli.start(
            "run", TASK, "--base-url", first_url, "--timeout", "3", "--json",
            "--checkpoint", store, "--thread", "r1", env=env,
        )  # fmt: skip
        try:
            _wait_for(log / "hang", run, time.monotonic() + 90)  # inside the 2nd model call
            server.kill()  # the local model server dies under the run
            server.wait(timeout=30)
            out, err = run.communicate(timeout=120)
        finally:
            run.kill()
    finally:
        server.kill()
        server.communicate()

    assert run.returncode == 6, err
    failed = json.loads(out)
    assert failed["stop_reason"] == "llm_error" and failed["thread_id"] == "r1"
    assert "Traceback" not in err and SECRET not in out + err
    assert resume_command(err)[:2] == ["resume", "r1"]  # the way on, printed
    (row,) = json.loads(cli.run("threads", "--checkpoint", store, "--json").stdout)
    assert (row["state"], row["stop_reason"]) == ("failed", "llm_error")
    table = cli.run("threads", "--checkpoint", store).stdout
    assert "failed (llm_error)" in table  # the state column is not cut

    with SimulatedOpenAIServer(TaskReadingModel(), require_key=SECRET) as second:
        done = cli.run(
            "resume", "r1", "--checkpoint", store, "--base-url", second.base_url, "--json",
            env=env,
        )  # fmt: skip
        asked_second = len(second.chat_requests)
    assert done.returncode == 0, done.stderr
    result = result_of(done)
    assert result["stop_reason"] == "final" and "上海市天气" in result["output"]
    # The first server answered loop 1 and hung in loop 2; the second asked loop 2 again
    # and then the answer: one call per loop of a plain run, the failed one twice.
    assert len((log / "served").read_text().split()) == 2
    assert asked_second == loops_without_a_checkpoint - 1 == 2
    assert result["loops"] == loops_without_a_checkpoint
    assert Counter(r.query["city"] for r in services[0].requests) == {"北京": 1, "上海": 1}
    (row,) = json.loads(cli.run("threads", "--checkpoint", store, "--json").stdout)
    assert (row["state"], row["stop_reason"]) == ("finished", "final")


def test_a_failed_thread_is_not_taken_by_a_new_run_and_says_how_to_resume(cli, store, services):
    env = {"OPENAI_API_KEY": SECRET, **service_env(*services)}
    with SimulatedOpenAIServer(TaskReadingModel(), require_key="not-the-key-given") as wrong:
        failed = cli.run(
            "run", TASK, "--base-url", wrong.base_url, "--checkpoint", store, "--thread", "r2",
            env=env,
        )  # fmt: skip
    assert failed.returncode == 6, failed.stderr  # a 401: the model API failed for good
    again = cli.run("run", "查询广州天气", "--checkpoint", store, "--thread", "r2", env=env)
    assert again.returncode == 2
    assert "thread r2 holds an unfinished run (failed" in again.stderr
    assert resume_command(again.stderr)[:2] == ["resume", "r2"]

"""Usage counts every request sent, those an interruption lost included (issue 43, point 6).

A run killed (SIGKILL) or stopped (SIGTERM) while its second model request is on its
way, then resumed: the server saw four requests for three loops, and a provider bills
all four. The resumed run's usage says so: ``interrupted_requests`` 1 in ``--json``,
its prompt tokens counted (estimated, and marked so), and the trace's summary line names
it. The model is a server of the test's; the command is the real ``lcel-agent``.
"""

from __future__ import annotations

import signal
import threading
import time

import pytest
from cli_support import SECRET, service_env
from resume_support import TASK, result_of

from lcel_agent.testing.offline import TaskReadingModel
from lcel_agent.testing.server import SimulatedOpenAIServer


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM], ids=["killed", "stopped"])
def test_a_request_lost_to_an_interruption_is_counted(cli, store, services, how):
    model, asked, release = TaskReadingModel(), [], threading.Event()

    def policy(messages, tools):
        asked.append(len(messages))
        if len(asked) == 2:  # the run is stopped while this one is on its way
            release.wait(60)
        return model(messages, tools)

    with SimulatedOpenAIServer(policy) as server:
        env = {"OPENAI_API_KEY": SECRET, **service_env(*services)}
        process = cli.start("run", TASK, "--base-url", server.base_url, "--checkpoint", store,
                            "--thread", "u1", env=env)  # fmt: skip
        try:
            deadline = time.monotonic() + 60
            while len(asked) < 2:
                assert process.poll() is None and time.monotonic() < deadline, process.returncode
                time.sleep(0.02)
            process.send_signal(how)
            process.communicate(timeout=60)
        finally:
            process.kill()
            release.set()
        done = cli.run("resume", "u1", "--checkpoint", store, "--json", env=env)
        assert done.returncode == 0, done.stderr
    result = result_of(done)
    assert len(asked) == 4 and result["loops"] == 3  # the provider saw one more
    usage = result["usage"]
    assert usage["interrupted_requests"] == 1 and usage["estimated"] is True
    steps = sum(step["usage"]["input_tokens"] for step in result["steps"])
    assert usage["input_tokens"] > steps  # the lost request's prompt is counted too
    trace = cli.run("resume", "u1", "--checkpoint", store)  # the stored result, as a trace
    assert "loops 3 · 1 interrupted request · " in trace.stdout
    assert "(estimated in part)" in trace.stdout

"""Ctrl-C at any moment: exit status 130 and one line, never a traceback."""

from __future__ import annotations

import os
import signal
import time

from cli_support import SECRET, service_env, start_cli

from lcel_agent.testing.faults import Latency
from lcel_agent.testing.server import SimulatedOpenAIServer


def _wait_for(stream, needle: str, deadline: float) -> list[str]:
    seen = []
    while time.monotonic() < deadline:
        line = stream.readline()
        if not line:
            break
        seen.append(line)
        if needle in line:
            return seen
    raise AssertionError(f"{needle!r} never showed; saw {seen[-5:]}")


# Imported by the child at start-up (it is first on its PYTHONPATH): holds the import of
# langchain_core for a while after saying so, so Ctrl-C lands inside the imports however
# fast or loaded the machine is, instead of racing them.
_SLOW_IMPORT = """
import importlib.abc, sys, time

class _Slow(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path=None, target=None):
        if name == "langchain_core":
            sys.meta_path.remove(self)
            print("importing langchain_core", file=sys.stderr, flush=True)
            time.sleep(30)
        return None

sys.meta_path.insert(0, _Slow())
"""


def test_ctrl_c_while_importing_exits_130_without_a_traceback(tmp_path):
    (tmp_path / "sitecustomize.py").write_text(_SLOW_IMPORT, encoding="utf-8")
    path = os.pathsep.join(p for p in (str(tmp_path), os.environ.get("PYTHONPATH")) if p)
    process = start_cli(["demo"], {"PYTHONPATH": path})
    try:
        _wait_for(process.stderr, "importing langchain_core", time.monotonic() + 60)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=30)
    finally:
        process.kill()

    assert process.returncode == 130, err[-2000:]
    assert out == ""  # interrupted before the header
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip() == "lcel-agent: interrupted"


def test_ctrl_c_during_a_model_call_exits_130_without_a_traceback(services):
    with SimulatedOpenAIServer(["never sent"], latency=Latency(fixed=20.0)) as server:
        env = {
            "OPENAI_API_KEY": SECRET,
            "OPENAI_BASE_URL": server.base_url,
            **service_env(*services),
        }
        process = start_cli(["run", "查询北京天气"], env)
        try:
            _wait_for(process.stdout, "查询北京天气", time.monotonic() + 60)  # the header
            deadline = time.monotonic() + 30
            while not server.chat_requests and time.monotonic() < deadline:
                time.sleep(0.05)
            assert server.chat_requests, "the model was never called"
            process.send_signal(signal.SIGINT)
            started = time.monotonic()
            out, err = process.communicate(timeout=15)
            took = time.monotonic() - started
        finally:
            process.kill()

    assert process.returncode == 130, err[-2000:]
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    assert err.strip().endswith("lcel-agent: interrupted")
    assert took < 10  # it did not wait for the 20 s reply
    assert SECRET not in out + err

"""``run --simulate``, ``--version``, a command-less command line, and Ctrl-C with ``--report``."""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Any

import pytest
from cli_support import SECRET, never_answers, service_env, start_cli

from lcel_agent import __version__
from lcel_agent.cli import main
from lcel_agent.testing.server import SimulatedOpenAIServer


def test_version_says_the_version(capsys):
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"lcel-agent {__version__}"


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["--bogus"], "lcel-agent: error: unknown option --bogus"),
        ([], "lcel-agent: error: a command is needed: run, demo, batch or report"),
    ],
)
def test_no_command_says_what_is_wrong_in_the_commands_words(argv, said, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert said in err
    assert "the following arguments are required" not in err


def test_run_simulate_needs_no_key_and_no_task(cli_env, capsys):
    cli_env({})  # no OPENAI_API_KEY, no AMAP_KEY, no base URLs
    assert main(["run", "--simulate"]) == 0

    out = capsys.readouterr().out
    assert "台风最新路径" in out and "stop: final" in out
    assert "--simulate" in out  # the header says the model is simulated
    assert "OPENAI_API_KEY" not in os.environ  # the environment is given back


def test_run_simulate_does_what_the_task_asks(cli_env, capsys):
    cli_env({"OPENAI_API_KEY": SECRET})  # a real key is set aside, never sent or shown
    status = main(["run", "--simulate", "--json", "查询广州和深圳今天的天气，再搜索“暴雨预警”"])

    out = capsys.readouterr().out
    result = json.loads(out)
    assert status == 0 and result["stop_reason"] == "final"
    called = [a["tool"] for step in result["steps"] for a in step["actions"]]
    assert called == ["get_weather", "get_weather", "search_baidu", "final"]
    assert "广州市天气：雷阵雨" in result["output"] and "暴雨预警" in result["output"]
    assert SECRET not in out and os.environ["OPENAI_API_KEY"] == SECRET


class _TwoLoopsThenAHang:
    """A model that answers two calls, then hangs: Ctrl-C lands while the run waits."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> str:
        self.calls += 1
        if self.calls >= 3:
            time.sleep(30)
        return never_answers(messages, tools)


@pytest.mark.parametrize("json_output", [False, True], ids=["live", "json"])
def test_ctrl_c_during_run_writes_the_report_of_the_loops_that_finished(
    services, tmp_path, json_output
):
    report = tmp_path / "run.html"
    with SimulatedOpenAIServer(_TwoLoopsThenAHang()) as server:
        env = {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url}
        args = [
            "run",
            "查询北京天气",
            "--report",
            str(report),
            *(["--json"] if json_output else []),
        ]
        process = start_cli(args, env | service_env(*services))
        try:
            deadline = time.monotonic() + 60
            while len(server.chat_requests) < 3 and time.monotonic() < deadline:
                time.sleep(0.05)
            assert len(server.chat_requests) == 3, "the third model call never came"
            process.send_signal(signal.SIGINT)
            out, err = process.communicate(timeout=20)
        finally:
            process.kill()

    assert process.returncode == 130, err[-2000:]
    assert "Traceback" not in err and err.strip().endswith("lcel-agent: interrupted")
    assert f"report of the 2 loop(s) that finished: {report}" in err
    page = report.read_text(encoding="utf-8")
    assert page.count('<details class="loop') == 2
    assert "interrupted (Ctrl-C) after 2 finished loop(s)" in page
    assert SECRET not in out + err + page

"""The real ``lcel-agent`` command, run in a subprocess against loopback servers."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from cli_support import SECRET, json_action, never_answers, service_env

from lcel_agent.testing.article import ArticleTaskModel
from lcel_agent.testing.server import SimulatedOpenAIServer

_ROW = re.compile(r"^\s*(\d+)\s+(\S+)", re.M)


def _trace_steps(stdout: str) -> list[tuple[int, str]]:
    return [(int(n), action) for n, action in _ROW.findall(stdout)]


def test_console_script_is_installed_and_explains_a_missing_key(run_cli):
    script = Path(sys.executable).parent / "lcel-agent"
    assert script.is_file(), f"no console script next to {sys.executable}"

    done = run_cli("run", "查询北京天气", command=[str(script)])

    assert done.returncode == 2
    assert done.stdout == ""
    for needed in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AMAP_KEY", "lcel-agent demo"):
        assert needed in done.stderr


def test_demo_shows_the_trace_the_answer_and_the_summary(run_cli):
    done = run_cli("demo")

    assert done.returncode == 0, done.stderr
    steps = _trace_steps(done.stdout)
    assert [n for n, _ in steps] == list(range(1, len(steps) + 1))
    actions = " ".join(action for _, action in steps)
    assert "get_weather(北京)" in actions and "search_baidu(" in actions
    assert steps[-1][1] == "final"
    answer = done.stdout.split("answer", 1)[1]
    assert "北京" in answer and "上海" in answer
    assert re.search(
        rf"loops {len(steps)} · tokens \d+ in / \d+ out · [\d.]+ s · stop: final", done.stdout
    )


def test_demo_json_is_the_result_and_nothing_else(run_cli):
    done = run_cli("demo", "--json", "--protocol", "tool_calling")

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["stop_reason"] == "final"
    assert result["loops"] == len(result["steps"])
    assert "北京" in result["output"] and "上海" in result["output"]
    assert result["usage"]["total_tokens"] > 0


def test_run_against_an_openai_compatible_server(run_cli, services):
    amap, baidu = services
    with SimulatedOpenAIServer(ArticleTaskModel(), require_key=SECRET) as server:
        env = {
            "OPENAI_API_KEY": SECRET,
            "OPENAI_BASE_URL": server.base_url,
            **service_env(amap, baidu),
        }
        done = run_cli("run", "查询北京和上海今天的天气，然后百度搜索“台风最新路径”", env=env)
        chats = server.chat_requests

    assert done.returncode == 0, done.stderr
    assert chats and all(r.authorized for r in chats)
    assert [r.query["city"] for r in amap.requests] == ["北京", "上海"]
    assert [n for n, _ in _trace_steps(done.stdout)] == list(range(1, len(chats) + 1))
    assert "stop: final" in done.stdout
    assert SECRET not in done.stdout + done.stderr


def test_run_that_never_answers_exits_3_with_max_loops(run_cli, services):
    amap, baidu = services
    with SimulatedOpenAIServer(never_answers) as server:
        env = {
            "OPENAI_API_KEY": SECRET,
            "OPENAI_BASE_URL": server.base_url,
            **service_env(amap, baidu),
        }
        done = run_cli("run", "查询天气", "--max-loops", "2", "--json", env=env)
        chats = server.chat_requests

    assert done.returncode == 3, done.stderr
    result = json.loads(done.stdout)
    assert result["stop_reason"] == "max_loops"
    assert result["loops"] == 2 and len(chats) == 2
    assert "max_loops=2" in result["error"]["message"]
    # Two weather results were in hand: a stopped run delivers them as they came, marked
    # incomplete (issue 41), where it used to print no output at all.
    assert result["answer"]["trigger"] == "stopped" and result["answer"]["complete"] is False
    assert result["output"].startswith("get_weather(")
    assert SECRET not in done.stdout + done.stderr


def test_a_key_the_model_echoes_is_masked_in_json_output(run_cli, services):
    amap, baidu = services
    leak = json_action("final", f"your key is {SECRET}")
    with SimulatedOpenAIServer([leak]) as server:
        env = {
            "OPENAI_API_KEY": SECRET,
            "OPENAI_BASE_URL": server.base_url,
            **service_env(amap, baidu),
        }
        done = run_cli("run", "what is my key?", "--json", env=env)

    assert done.returncode == 0, done.stderr
    assert SECRET not in done.stdout + done.stderr
    assert json.loads(done.stdout)["output"] == "your key is ***"


def test_the_trace_names_the_answer_stages_rows():
    from lcel_agent.cli._display import step_rows
    from lcel_agent.errors import ErrorClass
    from lcel_agent.result import RunError, StepRecord, Usage

    def step(raw: str, error: RunError | None = None) -> StepRecord:
        return StepRecord(5, raw, (), (), error, Usage(), 1.0, 0.0, kind="answer")

    assert step_rows(step('{"1. 北京": "北京晴"}')) == [
        ("answer", "written", '{"1. 北京": "北京晴"}')
    ]
    cut = RunError(5, "answer", ErrorClass.TRUNCATED, "cut at the limit")
    assert step_rows(step("北京", cut)) == [("answer", "truncated", "北京")]

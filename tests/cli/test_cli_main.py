"""``main()`` in this process: exit statuses, argument checks, both displays, secrets."""

from __future__ import annotations

import re
import sys

import pytest
from cli_support import SECRET, json_action, never_answers, service_env

from lcel_agent.cli import EXIT_CODES, EXIT_INTERRUPTED, main
from lcel_agent.state import StopReason
from lcel_agent.testing.server import SimulatedOpenAIServer


def test_help_documents_every_exit_status(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for reason, code in EXIT_CODES.items():
        assert re.search(rf"^\s+{code}\s+{reason}\b", out, re.M), reason
    assert re.search(rf"^\s+{EXIT_INTERRUPTED}\s+interrupted\s+Ctrl-C", out, re.M)
    assert set(EXIT_CODES) == set(StopReason)
    assert len(set(EXIT_CODES.values())) == len(EXIT_CODES)


@pytest.mark.parametrize(
    "argv",
    [
        ["demo", "--faults", "2"],
        ["demo", "--noise", "-1"],
        ["run", "task", "--max-loops", "0"],
        ["run", "task", "--protocol", "xml"],
        ["fly"],
        [],
    ],
)
def test_bad_arguments_exit_2(argv, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    # One line, in the words of the command given (issue 36: no usage block before it).
    assert err.startswith("lcel-agent") and ": error: " in err and err.count("\n") == 1
    assert "--help" in err


def _unknown_tool(messages, tools):
    return json_action("get_wether", "北京")


def _same_call(messages, tools):
    return json_action("get_weather", "北京")


@pytest.mark.parametrize(
    ("policy", "extra", "server_key", "reason"),
    [
        (_unknown_tool, [], None, StopReason.MAX_ERRORS),
        (_same_call, ["--max-errors", "5"], None, StopReason.DRIFT),
        (never_answers, [], "not-the-key-given", StopReason.LLM_ERROR),
        (never_answers, ["--token-budget", "1"], None, StopReason.BUDGET),
    ],
    ids=["max_errors", "drift", "llm_error", "budget"],
)
def test_exit_status_follows_the_stop_reason(
    policy, extra, server_key, reason, services, cli_env, capsys
):
    with SimulatedOpenAIServer(policy, require_key=server_key) as server:
        cli_env(
            {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url, **service_env(*services)}
        )
        status = main(["run", "查询北京天气", *extra])

    out, err = capsys.readouterr()
    assert status == EXIT_CODES[reason], out + err
    assert f"stop: {reason.value}" in out
    assert f"stopped: {reason.value}: step " in out  # where and why it stopped
    assert SECRET not in out + err


def test_live_display_masks_a_key_the_model_echoes(services, cli_env, capsys):
    with SimulatedOpenAIServer([json_action("final", f"the key: {SECRET}")]) as server:
        cli_env(
            {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url, **service_env(*services)}
        )
        assert main(["run", "what is my key?"]) == 0

    out, err = capsys.readouterr()
    assert SECRET not in out + err
    assert "the key: ***" in out


def test_main_runs_twice_in_one_process_against_one_endpoint(services, cli_env, capsys):
    # langchain-openai 1.x shares one HTTP client per endpoint across the process: a run
    # that closed it on the way out made the next run on that endpoint an llm_error.
    replies = [json_action("final", "first answer"), json_action("final", "second answer")]
    with SimulatedOpenAIServer(replies) as server:
        cli_env(
            {"OPENAI_API_KEY": SECRET, "OPENAI_BASE_URL": server.base_url, **service_env(*services)}
        )
        statuses = [main(["run", "查询北京天气"]), main(["run", "--json", "查询北京天气"])]

    out, err = capsys.readouterr()
    assert statuses == [0, 0], out + err
    assert "first answer" in out and "second answer" in out
    assert len(server.requests) == 2


def test_plain_display_when_rich_is_missing(monkeypatch, cli_env, capsys):
    cli_env({})
    monkeypatch.setitem(sys.modules, "rich", None)  # `import rich` now raises ImportError
    assert main(["demo"]) == 0

    out = capsys.readouterr().out
    assert "╭" not in out
    rows = re.findall(r"^\s*(\d+)\s+(\S+)", out, re.M)
    assert rows[0][0] == "1" and rows[-1][1] == "final"
    assert "answer:" in out and "stop: final" in out


def test_demo_rides_out_model_api_faults_and_weather_timeouts(cli_env, capsys):
    cli_env({})
    assert main(["demo", "--noise", "0", "--faults", "0.3", "--seed", "8"]) == 0

    out = capsys.readouterr().out
    faults = re.search(r"model API faults: (\d+)", out)
    assert faults and int(faults.group(1)) > 0
    assert "stop: final" in out

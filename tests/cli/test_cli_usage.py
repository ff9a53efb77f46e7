"""Usage errors and ``--help``: in the subcommand's words, before any header, without LangChain."""

from __future__ import annotations

import pytest
from cli_support import HEAVY
from cli_support import imported_packages as _imported


def _usage_text(stderr: str) -> str:
    return "\n".join(line for line in stderr.splitlines() if not line.startswith("import time:"))


@pytest.mark.parametrize(
    "argv",
    [
        ["--help"],
        ["run", "--help"],
        ["run", ""],
        ["run", "x", "--max-loops", "abc"],
        ["run", "x", "--frobnicate"],
        ["demo", "--faults", "2"],
        ["report", "missing.jsonl"],
    ],
    ids=["help", "run-help", "empty-task", "bad-int", "unknown-option", "bad-rate", "no-file"],
)
def test_help_and_usage_errors_answer_without_importing_langchain(run_cli, argv):
    done = run_cli(*argv, command=["-X", "importtime", "-m", "lcel_agent.cli"], python=True)

    assert done.returncode in (0, 2), _usage_text(done.stderr)
    assert not _imported(done.stderr) & set(HEAVY), sorted(_imported(done.stderr) & set(HEAVY))
    assert "lcel_agent" in _imported(done.stderr)  # the measurement itself works


@pytest.mark.parametrize("task", ["", "   \n\t "], ids=["empty", "blank"])
def test_an_empty_task_is_a_usage_error_before_any_header(run_cli, task):
    done = run_cli("run", task, env={"OPENAI_API_KEY": "k"})

    assert done.returncode == 2
    assert done.stdout == ""  # no header, no trace
    assert done.stderr.startswith("lcel-agent run: error: the task is empty")
    assert done.stderr.count("\n") == 1  # one line, as the docs promise
    assert "internal error" not in done.stderr


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["run", "x", "--max-loops", "abc"], "argument --max-loops: expected a whole number >= 1, got 'abc'"),
        (["run", "x", "--max-loops", "1.5"], "argument --max-loops: expected a whole number >= 1, got '1.5'"),
        (["run", "x", "--timeout", "inf"], "argument --timeout: expected a number > 0, got 'inf'"),
        (["run", "x", "--temperature", "5"], "argument --temperature: expected a temperature within 0..2, got '5'"),
        (["run", "x", "--temperature", "-0.1"], "expected a temperature within 0..2"),
        (["demo", "--seed", "x"], "argument --seed: expected a whole number, got 'x'"),
        (["demo", "--faults", "nan"], "argument --faults: expected a rate within 0..1, got 'nan'"),
        (["run"], "a task is needed: TASK, '-' to read it from standard input, or --task-file PATH"),
        (["run", "x", "--task-file", "t.txt"], "either as TASK or with --task-file, not both"),
    ],
)  # fmt: skip
def test_bad_values_say_what_was_wanted(run_cli, argv, message):
    done = run_cli(*argv)

    assert done.returncode == 2
    assert message in done.stderr
    assert "_positive_int" not in done.stderr and "invalid" not in done.stderr


@pytest.mark.parametrize(
    ("argv", "command"),
    [
        (["run", "x", "--frobnicate"], "lcel-agent run"),
        (["demo", "--frobnicate", "1"], "lcel-agent demo"),
        (["report", "r.jsonl", "--frobnicate"], "lcel-agent report"),
        (["resume", "t1", "--checkpoint", "c.db", "--frobnicate"], "lcel-agent resume"),
    ],
)
def test_an_unknown_option_is_one_line_in_the_words_of_its_command(run_cli, argv, command):
    done = run_cli(*argv)
    rest = " 1" if argv[-1] == "1" else ""

    assert done.returncode == 2
    assert done.stderr == (
        f"{command}: error: unrecognized arguments: --frobnicate{rest} (see {command} --help)\n"
    )


def test_report_path_is_checked_before_the_run(run_cli, tmp_path):
    done = run_cli("demo", "--report", str(tmp_path / "no-such-folder" / "r.html"))

    assert done.returncode == 2
    assert "does not exist" in done.stderr and done.stdout == ""

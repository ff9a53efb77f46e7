"""A task of any length: from the command line, standard input or a file; and a window
too small for it is named before the run."""

from __future__ import annotations

import json

import pytest
from cli_support import SECRET, json_action, service_env

from lcel_agent import SlidingWindowMemory
from lcel_agent.cli._commands import window_warning
from lcel_agent.testing.server import SimulatedOpenAIServer

#: About 200 KB of UTF-8: past what one command-line argument may hold (128 KiB on Linux).
BIG_TASK = "请总结下面的资料。\n" + "".join(
    f"第{i}段：北京今天晴，气温二十五度。\n" for i in range(4200)
)


def _answer(messages, tools):
    question = next(m["content"] for m in messages if m["role"] == "user")
    return json_action("final", f"读到 {len(question)} 个字符")


@pytest.fixture
def env_with_server(services):
    with SimulatedOpenAIServer(_answer) as server:
        yield (
            server,
            {
                "OPENAI_API_KEY": SECRET,
                "OPENAI_BASE_URL": server.base_url,
                **service_env(*services),
            },
        )


def test_the_big_task_does_not_fit_in_one_argument():
    assert len(BIG_TASK.encode("utf-8")) > 200_000


@pytest.mark.parametrize("source", ["stdin", "file", "file-dash"])
def test_a_200_kb_task_from_stdin_or_a_file_reaches_the_model_whole(
    run_cli, env_with_server, tmp_path, source
):
    server, env = env_with_server
    path = tmp_path / "task.txt"
    path.write_text(BIG_TASK, encoding="utf-8")
    args = {
        "stdin": ["-"],
        "file": ["--task-file", str(path)],
        "file-dash": ["--task-file", "-"],
    }[source]

    done = run_cli(
        "run", *args, "--json", "--memory-tokens", "200000", env=env,
        input=None if source == "file" else BIG_TASK,
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert result["input"] == BIG_TASK
    assert result["output"] == f"读到 {len(BIG_TASK)} 个字符"
    (request,) = server.chat_requests
    assert any(m["content"] == BIG_TASK for m in request.body["messages"])
    assert "warning" not in done.stderr  # the window has room


def test_a_task_bigger_than_the_window_is_warned_about_before_the_run(run_cli, env_with_server):
    _, env = env_with_server

    done = run_cli("run", "-", env=env, input=BIG_TASK)

    assert done.returncode == 0, done.stderr
    warning = done.stderr.split("\n")[0]
    assert warning.startswith("lcel-agent: warning: the system prompt and the task take ")
    assert "of the memory window's 800 tokens" in warning
    assert "Give --memory-tokens" in warning


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "the task is empty"),
        (b"  \n", "the task is empty"),
        (b"\xff\xfe", "is not UTF-8 text"),
    ],
    ids=["empty", "blank", "not-utf8"],
)
def test_a_bad_task_file_is_a_usage_error(run_cli, tmp_path, content, message):
    path = tmp_path / "task.txt"
    path.write_bytes(content)

    done = run_cli("run", "--task-file", str(path), env={"OPENAI_API_KEY": "k"})

    assert done.returncode == 2 and done.stdout == ""
    assert message in done.stderr


def test_a_missing_task_file_is_a_usage_error(run_cli, tmp_path):
    done = run_cli("run", "--task-file", str(tmp_path / "nope.txt"))

    assert done.returncode == 2
    assert "cannot read the task from" in done.stderr and "No such file" in done.stderr


def test_window_warning_names_the_room_left_and_a_window_that_would_do():
    memory = SlidingWindowMemory(max_tokens=800)
    assert window_warning(memory, "Reply with JSON.", "查询北京天气") is None

    text = window_warning(memory, "Reply with JSON.", "北京" * 500)
    assert text is not None
    pinned = int(text.split(" take ")[1].split(" of ")[0].replace(",", ""))
    suggested = int(text.split("--memory-tokens ")[1].split()[0])
    assert 800 - pinned < 200  # under a quarter of the window is left
    assert suggested - pinned >= suggested / 4  # the suggestion leaves a quarter
    assert (
        window_warning(SlidingWindowMemory(max_tokens=suggested), "Reply with JSON.", "北京" * 500)
        is None
    )

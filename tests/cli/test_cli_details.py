"""The smaller things a user met when pushing further (issue 43, point 8).

``--simulate`` on a reused thread answers the new question; ``threads`` prints a CJK id
whole (it is copied); a long task's warning names ``--memory-tokens`` once, when the
run starts, and never again when the thread is listed or resumed; counts say ``1 loop``;
an empty file is no store yet for the commands that read, and ``run`` makes it one, as
they say; and every refusal of ``run``, ``resume`` and ``threads`` starts as argparse's
do, ``lcel-agent COMMAND: error:``. The real ``lcel-agent``.
"""

from __future__ import annotations

import json
import shlex

import pytest
from resume_support import TASK, result_of


def test_simulate_on_a_reused_thread_answers_the_new_question(cli, store):
    first = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "r1", TASK)
    assert first.returncode == 0, first.stderr
    again = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "r1", "--json",
                    "查询广州今天的天气")  # fmt: skip
    assert again.returncode == 0, again.stderr
    assert "广州市天气" in result_of(again)["output"]
    assert cli.lines("weather")[-1] == "广州"


@pytest.mark.parametrize("length", [12, 13, 24])
def test_threads_prints_a_cjk_id_whole(cli, store, length):
    thread = "长" * length
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", thread, TASK)
    assert done.returncode == 0, done.stderr
    table = cli.run("threads", "--checkpoint", store).stdout
    assert thread in table and "…" not in table, table
    if length > 12:  # wider than the 24-column id: a line of its own
        assert thread in table.splitlines()


def test_a_long_tasks_warning_names_the_option_once(cli, store):
    task = TASK + "。" + "请详细说明各种情况" * 60
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "w1",
                   "--memory-tokens", "300", task)  # fmt: skip
    assert done.returncode == 0, done.stderr
    (warning,) = [line for line in done.stderr.splitlines() if "warning:" in line]
    assert warning.startswith("lcel-agent: warning: the system prompt and the task take ")
    assert "Give --memory-tokens " in warning and "max_tokens" not in done.stderr
    for again in (cli.run("threads", "--checkpoint", store),
                  cli.run("resume", "w1", "--checkpoint", store)):  # fmt: skip
        assert again.returncode == 0, again.stderr
        assert "warning:" not in again.stderr.lower() and "max_tokens" not in again.stderr


def test_one_loop_is_one_loop(cli, store):
    first = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "o1", "你好")
    assert first.returncode == 0 and "loops 1 " in first.stdout, first.stdout
    again = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "o1", TASK)
    assert "continuing thread o1: finished (final), 1 loop, new question" in again.stderr


def test_an_empty_file_is_no_store_yet_and_run_makes_it_one(cli, tmp_path):
    path = tmp_path / "new.db"
    path.touch()
    for argv in (["threads"], ["resume", "t1"]):
        done = cli.run(*argv, "--checkpoint", str(path))
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        said = f"no checkpoint store in {path} yet (an empty database): "
        assert said in done.stderr and done.stderr.rstrip().endswith(" makes one")
        assert path.read_bytes() == b""
    made = shlex.split(done.stderr.split(": ", 3)[-1].removesuffix(" makes one\n"))
    assert made == ["lcel-agent", "run", "TASK", "--checkpoint", str(path)]
    assert cli.run("run", "--simulate", TASK, *made[3:]).returncode == 0  # as it said
    listed = cli.run("threads", "--checkpoint", str(path), "--json")
    assert listed.returncode == 0 and len(json.loads(listed.stdout)) == 1


def test_every_refusal_starts_as_a_usage_error_does(cli, store, tmp_path):
    paused = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "p1", "--pause", TASK)
    assert paused.returncode == 8, paused.stderr
    text = tmp_path / "notes.txt"
    text.write_text("米, 面\n", encoding="utf-8")
    refusals = {
        "run": ["run", "--simulate", TASK, "--checkpoint", store, "--thread", "p1"],
        "resume": ["resume", "nope", "--checkpoint", store],
        "threads": ["threads", "--checkpoint", str(text)],
    }
    for command, argv in refusals.items():
        done = cli.run(*argv)
        assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
        assert done.stderr.startswith(f"lcel-agent {command}: error: "), done.stderr

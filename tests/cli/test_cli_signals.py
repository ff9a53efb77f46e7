"""A signal after the result is stored changes nothing (issue 36, point 6).

Ctrl-C (SIGINT, sent by the process to itself from a hook, so it lands at an exact
moment) right after the last checkpoint is written, after the result is printed, and
while the interpreter exits: the command still prints the finished run's result and
exits by its stop reason, never 130 and never by the signal.
"""

from __future__ import annotations

import json

import pytest
from resume_support import TASK, result_of


@pytest.mark.parametrize("moment", ["stored", "printed", "exit"])
@pytest.mark.parametrize("json_output", [True, False], ids=["json", "trace"])
def test_ctrl_c_after_the_result_is_stored_changes_nothing(
    cli, store, moment, json_output, loops_without_a_checkpoint
):
    extra = ["--json"] if json_output else []
    done = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "s1", *extra, TASK,
                   env={"LCEL_TEST_SIGINT": moment})  # fmt: skip
    assert done.returncode == 0, (done.returncode, done.stderr)
    assert "interrupted" not in done.stderr and "Traceback" not in done.stderr
    if json_output:
        result = result_of(done)
        assert result["stop_reason"] == "final" and result["thread_id"] == "s1"
        assert result["loops"] == loops_without_a_checkpoint
    else:
        assert "stop: final" in done.stdout and "上海市天气" in done.stdout
    (row,) = json.loads(cli.run("threads", "--checkpoint", store, "--json").stdout)
    assert (row["state"], row["stop_reason"]) == ("finished", "final")

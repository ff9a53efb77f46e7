"""Hints are commands that paste (issue 43, point 7).

Every command the output shows starts with the program as the user ran it: ``lcel-agent``
when the shell found it on ``PATH``, ``.venv/bin/lcel-agent`` when that is what was
typed (the README's way), ``python -m lcel_agent.cli`` for the module; every value in it
is quoted, a store path with a space too; and each refusal of a thread id states the
id rule, whether argparse or the command refused it. The hints are pasted back: each
runs as printed, from the folder the command ran in.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys

import pytest
from cli_support import LCEL_AGENT, ROOT
from resume_support import TASK

RULE = "expected a thread id (1 to 200 printable characters, no spaces, not starting with '-')"


def _env(cli) -> dict[str, str]:
    """The watched child's environment, without the command's folder on PATH."""
    path = os.pathsep.join(p for p in os.environ.get("PATH", "").split(os.pathsep)
                           if p != str(LCEL_AGENT.parent))  # fmt: skip
    return cli.env | {"PATH": path}


def _run(cli, program: list[str], *args: str) -> subprocess.CompletedProcess[str]:
    """``PROGRAM ARGS`` from the repository's folder, the venv not on PATH."""
    return subprocess.run([*program, *args], cwd=ROOT, env=_env(cli), capture_output=True,
                          text=True, encoding="utf-8", timeout=120, check=False,
                          stdin=subprocess.DEVNULL)  # fmt: skip


def _hints(output: str, program: list[str]) -> list[list[str]]:
    """Every command the output shows (what follows the program's name on a line, up to a
    comment or the end of a parenthesis), read back as a shell reads it."""
    start = shlex.join(program) + " "
    found = []
    for line in output.splitlines():
        at = line.find(start)
        if at >= 0:
            shown = line[at:].split("  #")[0].removesuffix(" makes one)")  # a comment after it
            found.append(shlex.split(shown))
    return found


PROGRAMS = {
    "venv path": [os.path.relpath(LCEL_AGENT, ROOT)],
    "python -m": [sys.executable, "-m", "lcel_agent.cli"],
}


@pytest.mark.parametrize("how", list(PROGRAMS))
def test_hints_start_with_the_program_as_it_was_run_and_paste(cli, tmp_path, how):
    program = PROGRAMS[how]
    store = str(tmp_path / "my runs" / "runs.db")  # a space: quoted in every hint
    os.mkdir(tmp_path / "my runs")
    paused = _run(cli, program, "run", "--simulate", "--checkpoint", store, "--thread", "t1",
                  "--pause", TASK)  # fmt: skip
    assert paused.returncode == 8, paused.stderr
    hints = _hints(paused.stdout + paused.stderr, program)
    assert len(hints) == 3, paused.stdout  # --approve, --deny, --no-pause
    assert all(h[: len(program)] == program for h in hints)
    assert f"--checkpoint {shlex.quote(store)}" in paused.stdout
    done = _run(cli, [], *hints[2])  # the --no-pause command, as printed
    assert done.returncode == 0, done.stderr

    missing = str(tmp_path / "my runs" / "none.db")
    refused = _run(cli, program, "threads", "--checkpoint", missing)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    (make,) = _hints(refused.stderr, program)
    assert make == [*program, "run", "TASK", "--checkpoint", missing]
    assert f"(see {shlex.join(program)} threads --help)" not in refused.stderr  # not a usage
    usage = _run(cli, program, "threads")
    assert f"(see {shlex.join(program)} threads --help)" in usage.stderr

    no_key = _run(cli, program, "run", TASK)
    assert no_key.returncode == 2
    simulate, demo = _hints(no_key.stderr, program)
    assert simulate[len(program) :] == ["run", "--simulate", "查询北京今天的天气"]
    assert demo[len(program) :] == ["demo"]


def test_on_path_the_hints_say_lcel_agent(cli, store):
    paused = cli.run("run", "--simulate", "--checkpoint", store, "--thread", "t1", "--pause", TASK)
    assert paused.returncode == 8, paused.stderr
    assert f"  lcel-agent resume t1 --checkpoint {shlex.quote(store)} --no-pause" in paused.stdout


@pytest.mark.parametrize(
    ("argv", "typed"),
    [
        (["run", "x", "--checkpoint", "c.db", "--thread", "-x"], "-x"),
        (["run", "x", "--checkpoint", "c.db", "--thread=-x"], "-x"),
        (["resume", "-x", "--checkpoint", "c.db"], "-x"),
        (["resume", "--checkpoint", "c.db", "-dash"], "-dash"),
        (["resume", "--checkpoint", "c.db", "--", "-dash"], "-dash"),
        (["run", "x", "--checkpoint", "c.db", "--thread", "a b"], "a b"),
    ],
)
def test_every_refusal_of_an_id_states_the_rule(run_cli, argv, typed):
    done = run_cli(*argv)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert f"{RULE}, got {typed!r}" in done.stderr
    assert "expected one argument" not in done.stderr and "required: ID" not in done.stderr

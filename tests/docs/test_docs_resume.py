"""The README's resume flow runs as written, and docs/cli.md documents every option of
``resume`` and ``threads`` and every field of ``threads --json``."""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import ROOT

from lcel_agent.cli import build_parser

README = (ROOT / "README.md").read_text(encoding="utf-8")
CLI_MD = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")


def _resume_flow() -> list[str]:
    """The README's second bash block: the three lines of the resume flow."""
    blocks = re.findall(r"```bash\n(.*?)```", README, re.S)
    lines = [line.split("  #")[0].strip() for line in blocks[1].splitlines()]
    return [line for line in lines if line]


def test_the_readme_resume_flow_runs_as_written(tmp_path):
    assert README.index("lcel-agent resume") < README.index("## Why")  # near the top
    flow = _resume_flow()
    assert len(flow) == 3
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "lcel-agent").symlink_to(
        Path(sys.executable).with_name("lcel-agent")
    )
    clean = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "AMAP_KEY", "AMAP_BASE_URL",
             "BAIDU_BASE_URL")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in clean} | {"PYTHONIOENCODING": "utf-8"}
    statuses, outputs = [], []
    for command in flow:
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=120, check=False)  # fmt: skip
        statuses.append(done.returncode)
        outputs.append(done.stdout + done.stderr)
    # Paused before 北京; listed as paused; approved, on to the pause before 上海.
    assert statuses == [8, 0, 8], outputs
    assert re.search(r"^t1\s+paused\s+1\s", outputs[1], re.M), outputs[1]
    assert "get_weather(上海)" in outputs[2] and "北京市天气" in outputs[2]


def _section(heading: str) -> str:
    start = CLI_MD.index(heading + "\n")
    stop = CLI_MD.find("\n## ", start + len(heading))
    return CLI_MD[start : stop if stop >= 0 else None]


@pytest.mark.parametrize("command", ["resume", "threads"])
def test_every_option_is_in_its_commands_table(command):
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    options = {
        option
        for action in commands.choices[command]._actions
        for option in action.option_strings
        if option not in ("-h", "--help")
    }
    rows = set(re.findall(r"^\| `(--[a-z-]+)", _section(f"## lcel-agent {command}"), re.M))
    assert options - rows == set()


def test_the_threads_json_fields_are_documented():
    documented = set(re.findall(r"`([a-z_]+)`", _section("## lcel-agent threads")))
    fields = {"thread_id", "task", "state", "stop_reason", "loops", "updated_at"}
    assert fields - documented == set()
    assert {"running", "paused", "finished"} <= documented
    example = re.search(r"```json\n(.*?)```", _section("## lcel-agent threads"), re.S)
    assert example is not None and set(json.loads(example.group(1))[0]) == fields

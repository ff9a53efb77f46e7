"""docs/batch.md's worked example runs offline as written: the files it shows, its
``--simulate`` command, its offline Python, and its scoring."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

from docs_support import ROOT, code_blocks

BATCH_MD = (ROOT / "docs" / "batch.md").read_text(encoding="utf-8")
HEADING = "## Worked example: an evaluation job"
CLEAN = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "AMAP_KEY", "AMAP_BASE_URL",
         "BAIDU_BASE_URL")  # fmt: skip


def _write_the_example(folder):
    agent, *_ = code_blocks(BATCH_MD, HEADING)
    (cases,) = code_blocks(BATCH_MD, HEADING, "json")
    (folder / "evals").mkdir()
    (folder / "evals" / "__init__.py").write_text("", encoding="utf-8")
    (folder / "evals" / "agent.py").write_text(agent, encoding="utf-8")
    (folder / "evals" / "cases.jsonl").write_text(cases, encoding="utf-8")


def test_the_worked_example_runs_offline_from_the_shell_as_written(tmp_path):
    _write_the_example(tmp_path)
    (console,) = [b for b in code_blocks(BATCH_MD, HEADING, "console") if "--simulate" in b]
    command = console.splitlines()[0].removeprefix("$ ")
    env = {k: v for k, v in os.environ.items() if k not in CLEAN} | {"PYTHONIOENCODING": "utf-8"}
    done = subprocess.run(
        [sys.executable, "-m", "lcel_agent.cli", *command.split()[1:]],
        cwd=tmp_path, env=env, capture_output=True, text=True, encoding="utf-8", timeout=120,
        check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    shown = console.splitlines()[1:4]  # what the docs say it prints, up to the figures
    assert done.stdout.splitlines()[:3] == shown

    score = code_blocks(BATCH_MD, HEADING)[-1]
    namespace: dict[str, object] = {}
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        exec(compile(score, "docs/batch.md (score)", "exec"), namespace)
    finally:
        os.chdir(cwd)
    assert sorted(namespace["passed"]) == ["bj", "bj-sh"]


def test_the_worked_example_runs_offline_in_python_as_written(tmp_path, monkeypatch):
    _write_the_example(tmp_path)
    (offline,) = [b for b in code_blocks(BATCH_MD, HEADING) if "simulated_services" in b]
    for name in CLEAN:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    namespace: dict[str, object] = {}
    exec(compile(offline, "docs/batch.md (offline)", "exec"), namespace)

    summary = namespace["summary"]
    assert summary.done == 2 and dict(summary.stop_reasons) == {"final": 2}
    text = (tmp_path / "evals/results.jsonl").read_text(encoding="utf-8")
    lines = [json.loads(line) for line in text.splitlines()]
    assert {line["id"] for line in lines} == {"bj", "bj-sh"}
    assert re.search(
        "台风最新路径", next(x for x in lines if x["id"] == "bj-sh")["result"]["output"]
    )
    assert "OPENAI_API_KEY" not in os.environ  # the block gave the environment back

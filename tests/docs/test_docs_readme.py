"""The README's code runs as written, against the simulated model and fake services."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from docs_support import ROOT, code_blocks

from lcel_agent import AgentResult
from lcel_agent.stages import TrimMemory


def test_use_then_compose_swap_batch_trace_runs_as_written(
    offline_provider, capsys, closes_async_clients
):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    (use, *_) = code_blocks(readme, "## Use")
    (compose,) = code_blocks(readme, "### Compose, swap, batch, trace")
    namespace: dict[str, object] = {}

    exec(compile(use, "README.md (Use)", "exec"), namespace)
    exec(compile(compose, "README.md (Compose)", "exec"), namespace)

    assert namespace["action"] == {"action": "get_weather", "action_input": "北京"}
    results = namespace["results"]
    assert [type(r) for r in results] == [AgentResult, AgentResult]
    assert [r.stop_reason for r in results] == ["final", "final"]
    assert "model said:" in capsys.readouterr().out  # the swapped-in cleaner ran
    assert len(offline_provider.chat_requests) > 10
    namespace.clear()  # closes_async_clients collects what the snippet left


def test_every_snippet_runs_when_pasted_in_order(
    offline_provider, monkeypatch, capsys, closes_async_clients
):
    # A reader pastes the blocks one after the other into one session: no `...` to fill in.
    monkeypatch.setenv("DEEPSEEK_API_KEY", "sk-readme-deepseek")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = code_blocks(readme, "## Use")
    assert len(blocks) == 5
    namespace: dict[str, object] = {}
    models = []
    for number, block in enumerate(blocks, 1):
        exec(compile(block, f"README.md (Use, block {number})", "exec"), namespace)
        models.append(namespace.get("llm"))

    assert namespace["out"]["messages"][-1].response_metadata["stop_reason"] == "final"
    assert namespace["reply"].type == "ai"
    assert namespace["llm"].model_name == "deepseek-chat"
    lookup = namespace["lookup"]
    assert lookup.invoke("CN") == "China" and lookup.invoke("XX").startswith("ERROR:")
    for model in {id(m): m for m in models if m is not None}.values():
        model.root_client.close()  # the sync pool; closes_async_clients collects the async one
    models.clear()
    namespace.clear()


def _first_screen_commands(readme: str) -> list[str]:
    """The commands of the README's first code block, without the make lines."""
    block = re.search(r"```bash\n(.*?)```", readme, re.S)
    assert block is not None
    lines = [line.split("  #")[0].strip() for line in block.group(1).splitlines()]
    return [line for line in lines if line and not line.startswith("make ")]


def test_the_first_screen_goes_from_clone_to_run_and_batch_offline(tmp_path):
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    first_screen = "\n".join(readme.splitlines()[:25])
    for needed in ("make demo", ".venv/bin/lcel-agent run --simulate",
                   ".venv/bin/lcel-agent batch", "--simulate", "source .venv/bin/activate",
                   "make test", "minutes"):  # fmt: skip
        assert needed in first_screen, needed
    # Run them as written, from a folder whose .venv/bin/lcel-agent is this interpreter's.
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    (tmp_path / ".venv" / "bin" / "lcel-agent").symlink_to(
        Path(sys.executable).with_name("lcel-agent")
    )
    clean = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_API_BASE", "AMAP_KEY", "AMAP_BASE_URL",
             "BAIDU_BASE_URL")  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k not in clean} | {"PYTHONIOENCODING": "utf-8"}
    for command in _first_screen_commands(readme):
        done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, capture_output=True,
                              text=True, encoding="utf-8", timeout=120, check=False)  # fmt: skip
        assert done.returncode == 0, (command, done.stderr[-2000:])
    assert "广州市天气" in (tmp_path / "run.html").read_text(encoding="utf-8")
    results = (tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(results) == 2 and all('"stop_reason": "final"' in line for line in results)
    assert (tmp_path / "results.html").stat().st_size > 0


def test_trim_memory_takes_message_tuples():
    kept = TrimMemory(max_tokens=40).invoke(
        [("system", "s"), ("human", "q"), ("ai", "很长的回答" * 40), ("human", "b")]
    )

    assert [m.type for m in kept][:2] == ["system", "human"]
    assert kept[1].content == "q" and kept[-1].content == "b"


@pytest.mark.parametrize("value", ["just text", [1, 2], [("robot", "x")]])
def test_trim_memory_rejects_what_is_not_messages_with_a_type_error(value):
    with pytest.raises(TypeError, match="trim_memory takes an AgentState or a list of messages"):
        TrimMemory().invoke(value)


def test_every_create_agent_option_is_in_the_configuration_table():
    import inspect

    from lcel_agent import create_agent

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("## Configuration") :]
    options = [
        name for name, p in inspect.signature(create_agent).parameters.items()
        if p.kind is inspect.Parameter.KEYWORD_ONLY
    ]  # fmt: skip
    missing = [name for name in options if f"`{name}`" not in table]
    assert missing == []

"""Fixtures for the report tests: real runs of a real agent, with every kind of loop."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from uuid import UUID

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.tools import tool
from report_support import HOSTILE

from lcel_agent import AgentResult, create_agent
from lcel_agent.stages import STAGE_NAMES
from lcel_agent.testing import ScriptedChatModel


@tool
def weather(city: str) -> str:
    """The weather of a city."""
    return f"{city}市天气：晴，温度25℃"


@tool
def broken(query: str) -> str:
    """A search that is down."""
    return "ERROR: the search service is unavailable"


def _action(name: str, value: Any) -> dict[str, Any]:
    return {"action": name, "action_input": value}


#: One run that meets a format error, an unknown tool, a success, a parallel call with a
#: tool failure, and then answers.
SCRIPT = [
    '{"action": "weather", "action_input": "北京"',  # unreadable (words would be a notice)
    json.dumps(_action("get_wether", "北京"), ensure_ascii=False),
    json.dumps(_action("weather", "北京"), ensure_ascii=False),
    json.dumps([_action("weather", "上海"), _action("broken", "台风")], ensure_ascii=False),
    json.dumps(_action("final", HOSTILE), ensure_ascii=False),
]


@pytest.fixture
def mixed_result() -> AgentResult:
    agent = create_agent(ScriptedChatModel(list(SCRIPT)), [weather, broken], max_errors=3)
    result = agent.invoke("查询北京和上海的天气，再搜索台风")
    assert result.stop_reason == "final" and result.loops == len(SCRIPT)
    return result


@pytest.fixture
def write_jsonl(tmp_path: Path) -> Callable[[list[Any]], Path]:
    """Write records (dicts or raw strings) as a JSON Lines file; return its path."""

    def write(lines: list[Any]) -> Path:
        path = tmp_path / "results.jsonl"
        text = "\n".join(
            x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines
        )
        path.write_text(text + "\n", encoding="utf-8")
        return path

    return write


class StageTimer(BaseCallbackHandler):
    """Measures each stage of each loop from the run's callbacks: the step chain of loop N
    runs tagged ``loop:N``, and the stages run as its children."""

    def __init__(self) -> None:
        self.chains: dict[UUID, int] = {}
        self.started: dict[UUID, tuple[int, str, float]] = {}
        self.loops: dict[int, list[tuple[str, float]]] = {}

    def on_chain_start(self, serialized, inputs, *, run_id, parent_run_id=None, tags=None, **kw):
        loop = next((int(t.split(":")[1]) for t in tags or () if t.startswith("loop:")), None)
        if loop is not None:
            self.chains[run_id] = loop
        elif parent_run_id in self.chains and kw.get("name") in STAGE_NAMES:
            self.started[run_id] = (self.chains[parent_run_id], kw["name"], time.perf_counter())

    def on_chain_end(self, outputs, *, run_id, **kwargs):
        if run_id in self.started:
            loop, name, start = self.started.pop(run_id)
            self.loops.setdefault(loop, []).append((name, (time.perf_counter() - start) * 1000))


@pytest.fixture
def timed_data() -> dict[str, Any]:
    """The mixed run as ``to_dict()``, with per-stage timings measured from its callbacks
    where the loop did not record them itself."""
    timer = StageTimer()
    agent = create_agent(ScriptedChatModel(list(SCRIPT)), [weather, broken], max_errors=3)
    result = agent.invoke("查询北京和上海的天气，再搜索台风", {"callbacks": [timer]})
    data = result.to_dict()
    for step in data["steps"]:
        if not step["stage_ms"]:
            step["stage_ms"] = [list(pair) for pair in timer.loops[step["step"]]]
    return data


@pytest.fixture(scope="session")
def thousand_runs() -> list[dict[str, Any]]:
    """A batch of 1,000 results lines (see :func:`benchmarks._report_batch.thousand_runs`,
    which the browser benchmark measures too)."""
    from benchmarks._report_batch import thousand_runs

    return thousand_runs()

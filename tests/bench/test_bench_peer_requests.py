"""Every framework row of every benchmark sends the model exactly the requests it always has.

A fake chat model plays each run and a callback handler keeps every request: the messages
(role, text, tool calls), the call's parameters (bound tools, stop words, response
format, ...) and whether it was streamed. The runs are the article's task (the task
tables' rows and the real-model benchmark's), a BFCL single-turn entry and a multi-turn
one (BFCL's rows), each once to its answer and once with a model that never stops
calling tools, against a small step limit (each framework's own mapping of ``max_loops``).
``peer_requests.json`` holds what the adapters sent when it was recorded, one request a
line (the multi-turn runs, whose every request carries BFCL's whole file system API, as a
digest of each request): a change to a prompt, a tool description or a limit shows here
as a difference.

    python tests/bench/test_bench_peer_requests.py     # re-record, after a deliberate change
"""

from __future__ import annotations

import hashlib
import itertools
import json
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.metadata import version
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import BaseCallbackHandler
from langchain_core.messages import AIMessage, BaseMessage

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script
    sys.path.insert(0, str(ROOT))
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

from bfcl_support import ground_truth_model  # noqa: E402

from benchmarks.bfcl.entries import ground_truth, select  # noqa: E402
from benchmarks.bfcl.harness import run_entry  # noqa: E402
from benchmarks.real.services import SeededAmap, SeededBaidu, ToolLog, make_tools  # noqa: E402
from benchmarks.real.tasks import TASKS, World  # noqa: E402
from lcel_agent.testing import FunctionChatModel  # noqa: E402
from lcel_agent.testing.article import ARTICLE_TASK  # noqa: E402
from lcel_agent.testing.services import use_services  # noqa: E402

RECORDED = Path(__file__).with_name("peer_requests.json")
#: The stack the record was made on: another langchain-core major version words its
#: own prompts differently (the article's 0.3), so the comparison runs only on this one.
STACK = "langchain-core " + version("langchain-core").split(".")[0]


class Capture(BaseCallbackHandler):
    """Keeps every chat-model request: messages, parameters, streamed or not."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self._streamed: set[Any] = set()
        self._by_run: dict[Any, dict[str, Any]] = {}

    def on_chat_model_start(
        self, serialized: Any, messages: list[list[BaseMessage]], *, run_id: Any, **kwargs: Any
    ) -> None:
        params = dict(kwargs.get("invocation_params") or {})
        request = {"messages": [_message(m) for m in messages[0]], "params": params}
        self.requests.append(request)
        self._by_run[run_id] = request

    def on_llm_new_token(self, token: str, *, run_id: Any, **kwargs: Any) -> None:
        self._streamed.add(run_id)

    def normalised(self) -> list[dict[str, Any]]:
        """The requests as JSON, tool-call ids numbered by first appearance."""
        for run_id, request in self._by_run.items():
            request["streamed"] = run_id in self._streamed
        text = json.dumps(self.requests, ensure_ascii=False, sort_keys=True, default=repr)
        ids: dict[str, str] = {}
        for found in _ID.findall(text):
            ids.setdefault(found, f"id-{len(ids)}")
        for old, new in ids.items():
            text = text.replace(f'"{old}"', f'"{new}"')
        return json.loads(text)


#: Tool-call ids: the fake's own (``call-3``), bfcl_support's (``c12``), lcel_agent's and
#: LangGraph's generated ones.
_ID = re.compile(r'"((?:call-|c)\d+|call_[0-9a-zA-Z]+|[0-9a-f-]{36}|react-\d+)"')


def _message(message: BaseMessage) -> dict[str, Any]:
    out: dict[str, Any] = {"type": message.type, "content": message.content}
    for key in ("name", "tool_call_id"):
        if getattr(message, key, None):
            out[key] = getattr(message, key)
    if isinstance(message, AIMessage) and message.tool_calls:
        out["tool_calls"] = [
            {"name": c["name"], "args": c["args"], "id": c["id"]} for c in message.tool_calls
        ]
    if message.additional_kwargs:
        out["additional_kwargs"] = message.additional_kwargs
    return out


def _text(messages: list[BaseMessage]) -> str:
    return "\n".join(str(m.content) for m in messages)


Step = tuple[str, dict[str, Any]]


def scripted(steps: list[Step], answer: str, *, endless: bool = False) -> FunctionChatModel:
    """A model making ``steps`` one call a reply, then answering (or, endless, never).

    It writes each reply the way the request asks: native tool calls when tools are bound,
    ReAct when the prompt has ``Action Input:``, else lcel_agent's JSON.
    """
    count = itertools.count()

    def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> str | AIMessage:
        i = next(count)
        step = steps[i % len(steps)] if endless or i < len(steps) else None
        react = "Action Input:" in _text(messages)
        if step is None:
            if tools:
                return AIMessage(content=answer)
            if react:
                return f"Thought: I now know the final answer\nFinal Answer: {answer}"
            return json.dumps({"action": "final", "action_input": answer}, ensure_ascii=False)
        name, args = step
        if tools:
            return AIMessage(
                content="", tool_calls=[{"name": name, "args": args, "id": f"call-{i}"}]
            )
        single = next(iter(args.values())) if len(args) == 1 else args
        if react:
            given = single if isinstance(single, str) else json.dumps(single, ensure_ascii=False)
            return f"Thought: I call {name}.\nAction: {name}\nAction Input: {given}"
        return json.dumps({"action": name, "action_input": single}, ensure_ascii=False)

    return FunctionChatModel(reply)


ARTICLE_STEPS: list[Step] = [
    ("get_weather", {"city": "北京"}),
    ("get_weather", {"city": "上海"}),
    ("search_baidu", {"query": "台风最新路径"}),
]
ARTICLE_ANSWER = "北京晴，上海多云；台风最新路径见百度。"
TRIANGLE: list[Step] = [("calculate_triangle_area", {"base": 10, "height": 5})]


@contextmanager
def article_world() -> Iterator[Callable[[], list[Any]]]:
    """The real-model benchmark's tools and seeded fakes for the article's task (seed 0)."""
    with SeededAmap() as amap, SeededBaidu() as baidu, use_services(amap, baidu):
        amap.world = baidu.world = World.draw(TASKS["article"], 0)
        yield lambda: make_tools(ToolLog())


def _capture(drive: Callable[[FunctionChatModel], object], llm: FunctionChatModel) -> Any:
    capture = Capture()
    llm.callbacks = [capture]
    drive(llm)
    return capture.normalised()


# --- How each benchmark drives its rows ------------------------------------------------


def task_table_rows() -> dict[str, Callable[..., object]]:
    """The task tables' rows (benchmarks/run_all.py): build, then run the task."""
    from benchmarks._tasks import FRAMEWORKS

    def drive(peer: Any) -> Callable[..., object]:
        return lambda llm, tools, max_loops: peer(llm, tools, max_loops=max_loops)(
            ARTICLE_TASK.prompt
        )

    return {label: drive(peer) for label, peer in FRAMEWORKS}


def real_rows() -> dict[str, Callable[..., object]]:
    """The real-model benchmark's rows (benchmarks/real/run.py)."""
    from benchmarks.real.rows import ROWS

    def drive(row: Any) -> Callable[..., object]:
        return lambda llm, tools, max_loops: row.peer(llm, tools, max_loops=max_loops)(
            TASKS["article"].prompt
        )

    return {key: drive(row) for key, row in ROWS.items()}


def bfcl_rows() -> dict[str, Callable[..., object]]:
    """BFCL's rows, each as the harness takes it."""
    from benchmarks.bfcl.rows import ROWS

    return {key: row.turn for key, row in ROWS.items()}


# --- The record ---------------------------------------------------------------------------

#: How BFCL's multi-turn fake writes each row's calls (bfcl_support.ground_truth_model).
BFCL_FORMS = {"lcel-json": "json", "lcel-tools": "native", "executor": "react",
              "lc-agent": "native", "lg-react": "native"}  # fmt: skip


def record() -> dict[str, Any]:
    """Every row's requests on every run, keyed ``benchmark/row/run``."""
    out: dict[str, Any] = {"stack": STACK}
    with article_world() as tools:
        for bench, rows, max_loops in (
            ("tasks", task_table_rows(), 15),
            ("real", real_rows(), TASKS["article"].max_loops),
        ):
            for key, drive in rows.items():
                for run, endless, limit in (("answer", False, max_loops), ("endless", True, 3)):

                    def go(llm: FunctionChatModel, d: Any = drive, n: int = limit) -> object:
                        return d(llm, tools(), n)

                    model = scripted(ARTICLE_STEPS, ARTICLE_ANSWER, endless=endless)
                    out[f"{bench}/{key}/{run}"] = _capture(go, model)
    (single,) = select("simple", parity="all", ids=[0])
    single_truth = ground_truth("simple")[single["id"]]
    (multi,) = select("multi_turn_base", parity="all", ids=[0])
    multi_truth = ground_truth("multi_turn_base")[multi["id"]]
    for key, turn in bfcl_rows().items():
        for run, endless, limit in (("answer", False, 20), ("endless", True, 2)):

            def one(llm: FunctionChatModel, t: Any = turn, n: int = limit) -> object:
                return run_entry(single, single_truth, t, llm, step_limit=n)

            model = scripted(TRIANGLE, "The area is 25 square units.", endless=endless)
            out[f"bfcl/{key}/single-{run}"] = _capture(one, model)

        def many(llm: FunctionChatModel, t: Any = turn) -> object:
            return run_entry(multi, multi_truth, t, llm)

        out[f"bfcl/{key}/multi"] = _capture(
            many, ground_truth_model(multi, multi_truth, BFCL_FORMS[key])
        )
    return out


def stored(runs: dict[str, Any]) -> dict[str, Any]:
    """The record as the file keeps it: the multi-turn runs' requests as digests."""
    return {
        key: [_digest(r) for r in requests] if key.endswith("/multi") else requests
        for key, requests in runs.items()
    }


def _digest(request: dict[str, Any]) -> str:
    text = json.dumps(request, ensure_ascii=False, sort_keys=True)
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()[:32]


def dump(runs: dict[str, Any]) -> str:
    """The file's text: each run's requests one a line, so a difference reads as a diff."""
    lines = ["{"]
    for i, (key, value) in enumerate(sorted(runs.items())):
        end = "," if i < len(runs) - 1 else ""
        if not isinstance(value, list):
            lines.append(f" {json.dumps(key)}: {json.dumps(value)}{end}")
            continue
        items = [json.dumps(r, ensure_ascii=False, sort_keys=True) for r in value]
        lines.append(f" {json.dumps(key, ensure_ascii=False)}: [")
        lines += [f"  {item}{',' if j < len(items) - 1 else ''}" for j, item in enumerate(items)]
        lines.append(f" ]{end}")
    return "\n".join([*lines, "}"]) + "\n"


def test_every_row_sends_the_requests_it_was_recorded_with():
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    if recorded["stack"] != STACK:
        pytest.skip(f"recorded on {recorded['stack']}, this is {STACK}")
    now = stored(record())
    assert sorted(now) == sorted(recorded)
    for key in recorded:
        assert now[key] == recorded[key], key


def test_the_record_covers_every_peer_and_each_ones_limit():
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))
    # Each run reached the model, and the endless runs stopped at a limit of a few calls.
    for key, requests in recorded.items():
        if key == "stack":
            continue
        assert requests, key
        if key.endswith("endless"):
            assert len(requests) <= 6, (key, len(requests))
    assert {k.split("/")[1] for k in recorded if k.startswith("bfcl/")} == set(BFCL_FORMS)


if __name__ == "__main__":
    RECORDED.write_text(dump(stored(record())), encoding="utf-8")
    print(f"recorded {RECORDED}")

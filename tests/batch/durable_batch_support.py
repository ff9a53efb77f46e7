"""The agent of the batch runner's durable test: scripted, checkpointed to one SQLite file.

``make_agent(folder)`` is module-level so Ray workers can import it (conftest.py puts
tests/batch on their ``PYTHONPATH``). Every worker process opens the same SQLite file,
the checkpointer they all reach. The model answers each task from a script by how
many of its replies the conversation holds; every model call and every finished tool
call appends a line to ``folder/model`` and ``folder/tools`` (files outlive workers).
The first process to reach task 1's ``get_weather("上海1")`` writes its pid to
``folder/hang`` and hangs there, for the test to kill.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
import time
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver

from lcel_agent import SlidingWindowMemory, create_agent
from lcel_agent.testing.fake import FunctionChatModel


def script(i: int) -> list[Any]:
    """Task ``i``'s replies: three calls side by side, one more call, the answer."""
    return [
        [
            {"action": "get_weather", "action_input": f"北京{i}"},
            {"action": "get_weather", "action_input": f"上海{i}"},
            {"action": "search_baidu", "action_input": f"台风{i}"},
        ],
        {"action": "get_weather", "action_input": f"广州{i}"},
        {"action": "final", "action_input": f"任务{i}：都是晴天"},
    ]


def tasks(n: int) -> list[dict[str, Any]]:
    return [{"id": i, "input": f"查天气 #{i}"} for i in range(n)]


def _append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as log:
        log.write(line + "\n")


def saver(folder: str) -> SqliteSaver:
    """The checkpointer on ``folder``'s one SQLite file, set up.

    Several processes share the file: each waits for another's write (``timeout``), and
    makes the tables now, while it starts, not in the middle of a run. The test's own
    process calls this first, before any worker starts, as docs/durable.md says: two
    processes turning a new file to WAL at the same moment fail with "database is locked"
    whatever their timeout; once the file is in WAL, setting it up again at once is safe.
    """
    conn = sqlite3.connect(Path(folder) / "checkpoints.db", timeout=30, check_same_thread=False)
    checkpointer = SqliteSaver(conn)
    checkpointer.setup()
    return checkpointer


def make_agent(folder: str) -> Any:
    root = Path(folder)

    def model(messages: list[BaseMessage], tools: Any) -> str:
        task = next(str(m.content) for m in messages if isinstance(m, HumanMessage))
        number = int(re.search(r"#(\d+)", task).group(1))  # type: ignore[union-attr]
        turn = sum(isinstance(m, AIMessage) for m in messages)
        _append(root / "model", f"{number}:{turn}")
        return json.dumps(script(number)[turn], ensure_ascii=False)

    def finish(name: str, value: str) -> str:
        _append(root / "tools", f"{name}:{value}")
        return f"{value}：晴"

    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气"""
        if city == "上海1":
            try:
                with (root / "hang").open("x") as mark:  # only the first process to get here
                    mark.write(str(os.getpid()))
            except FileExistsError:
                pass
            else:
                time.sleep(600)  # killed here
        return finish("get_weather", city)

    @tool
    def search_baidu(query: str) -> str:
        """百度搜索"""
        return finish("search_baidu", query)

    return create_agent(
        FunctionChatModel(model),
        [get_weather, search_baidu],
        checkpointer=saver(folder),
        memory=SlidingWindowMemory(max_tokens=100_000, compactor=None),
        tool_timeout=None,
    )

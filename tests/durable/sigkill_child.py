"""A process that runs the scripted agent on a SQLite file, for the SIGKILL test.

``python sigkill_child.py DIR start sync|async`` starts the run (``invoke`` or
``ainvoke``); its ``get_weather("上海")`` call writes ``DIR/hang`` and never returns,
so the test can kill the process with SIGKILL during that call.
``python sigkill_child.py DIR resume sync|async`` resumes the thread in a new process
(the call returns at once there) and prints the result as JSON. Every
finished tool call appends a line to ``DIR/tools``, every model call one to
``DIR/model``: what the two processes did, in files that outlive them.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import sys
import time
from pathlib import Path

from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite import SqliteSaver

from lcel_agent import SlidingWindowMemory, create_agent
from lcel_agent.testing.fake import FunctionChatModel

SCRIPT = [
    [
        {"action": "get_weather", "action_input": "北京"},
        {"action": "get_weather", "action_input": "上海"},
        {"action": "search_baidu", "action_input": "台风"},
    ],
    {"action": "get_weather", "action_input": "广州"},
    {"action": "final", "action_input": "北京、上海、广州都是晴天"},
]


def append(path: Path, line: str) -> None:
    with path.open("a", encoding="utf-8") as log:
        log.write(line + "\n")
        log.flush()
        os.fsync(log.fileno())


def main(folder: Path, mode: str, driver: str) -> None:
    def model(messages: list[object], tools: object) -> str:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        append(folder / "model", str(turn))
        return json.dumps(SCRIPT[turn], ensure_ascii=False)

    def finish(name: str, value: str) -> str:
        append(folder / "tools", f"{name}:{value}")
        return f"{value}：晴"

    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气"""
        if city == "上海" and mode == "start":
            (folder / "hang").write_text(str(os.getpid()))
            time.sleep(600)  # killed here
        return finish("get_weather", city)

    @tool
    def search_baidu(query: str) -> str:
        """百度搜索"""
        return finish("search_baidu", query)

    saver = SqliteSaver(sqlite3.connect(folder / "checkpoints.db", check_same_thread=False))
    agent = create_agent(
        FunctionChatModel(model),
        [get_weather, search_baidu],
        checkpointer=saver,
        memory=SlidingWindowMemory(max_tokens=100_000, compactor=None),
        tool_timeout=None,
    )
    config = {"configurable": {"thread_id": "killed"}}
    task = "查天气" if mode == "start" else None
    if driver == "async":
        result = asyncio.run(agent.ainvoke(task, config))
    else:
        result = agent.invoke(task, config)
    print(json.dumps(result.to_dict(), ensure_ascii=False))


if __name__ == "__main__":
    main(Path(sys.argv[1]), sys.argv[2], sys.argv[3])

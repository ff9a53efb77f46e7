"""The durable-run tests' world: a scripted model, tools that log what they finished, crashes.

A *world* is what outlives a process: the tool calls that finished (their side
effects) and the model calls that were made. A :class:`Crash` (a BaseException, so
nothing in the library catches it) is the in-process stand-in for SIGKILL: once
raised, the world is *dead*, so no tool logs a finish and :class:`CrashingSaver`
drops every put and write, exactly as a killed process would leave them. A new
agent object on the same saver storage plays the restarted process.

The model replies from a script by how many of its own replies the conversation
holds (the window keeps every turn: no compaction, a large budget), so a model
asked again at the same point answers the same, as a real model at temperature 0
would be expected to.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, tool
from langgraph.checkpoint.sqlite import SqliteSaver

from lcel_agent import SlidingWindowMemory, create_agent
from lcel_agent.testing.fake import FunctionChatModel

#: One loop of a script: a list of (tool, input) calls, or a final answer (a string).
Loop = list[tuple[str, str]] | str


class Crash(BaseException):
    """The process dies here."""


class World:
    """Tool calls finished and model calls made, across "processes" (thread-safe)."""

    def __init__(self) -> None:
        self.finished: list[tuple[str, str]] = []
        self.model_calls = 0
        self.dead = False
        self.crash_in: int | None = None
        """Crash inside the n-th tool call (1-based, counting starts), once."""
        self.crash_in_model = False
        """Crash inside the next model call."""
        self.started = 0
        self.written = 0
        """Finished-call writes that reached the saver (CrashingSaver counts them)."""
        self.lock = threading.Lock()

    def revive(self) -> None:
        """The next process starts: alive, with no crash planned."""
        self.dead, self.crash_in, self.crash_in_model = False, None, False


def json_reply(loop: Loop) -> str:
    if isinstance(loop, str):
        return json.dumps({"action": "final", "action_input": loop}, ensure_ascii=False)
    body = [{"action": name, "action_input": value} for name, value in loop]
    return json.dumps(body[0] if len(body) == 1 else body, ensure_ascii=False)


def native_reply(loop: Loop, turn: int) -> AIMessage:
    if isinstance(loop, str):
        return AIMessage(content=loop)
    calls = [
        {"name": name, "args": {"city" if name == "get_weather" else "query": value},
         "id": f"tc_{turn}_{i}"}
        for i, (name, value) in enumerate(loop)
    ]  # fmt: skip
    return AIMessage(content="", tool_calls=calls)


def scripted_model(world: World, script: Sequence[Loop], *, native: bool = False) -> Any:
    """A chat model answering ``script[n]`` when the conversation holds ``n`` of its replies."""

    def reply(messages: list[BaseMessage], tools: Any) -> str | AIMessage:
        turn = sum(isinstance(m, AIMessage) for m in messages)
        with world.lock:
            if world.dead:
                raise Crash("a dead process called the model")
            if world.crash_in_model:
                world.dead = True
                raise Crash("killed during the model call")
            world.model_calls += 1
        loop = script[min(turn, len(script) - 1)]
        return native_reply(loop, turn) if native else json_reply(loop)

    return FunctionChatModel(reply)


def make_tools(world: World, *, pause_s: float = 0.0) -> list[BaseTool]:
    """``get_weather`` and ``search_baidu``: log what they finish; crash when told."""

    def work(name: str, value: str) -> str:
        with world.lock:
            if world.dead:
                raise Crash("a dead process ran a tool")
            world.started += 1
            crash = world.started == world.crash_in
        if crash:
            # The crash happens while this call runs, once the other calls of the reply that
            # have finished are written (a crash a moment later than theirs: see module doc).
            deadline = time.monotonic() + 2.0
            while time.monotonic() < deadline:
                with world.lock:
                    if world.written >= len(world.finished):
                        break
                time.sleep(0.005)
            with world.lock:
                world.dead = True
            raise Crash(f"killed inside {name}({value})")
        if pause_s:
            time.sleep(pause_s)
        with world.lock:
            if world.dead:
                raise Crash("the process died while the tool ran")
            world.finished.append((name, value))
        return f"{name}:{value}:ok"

    @tool
    def get_weather(city: str) -> str:
        """查询城市实时天气"""
        return work("get_weather", city)

    @tool
    def search_baidu(query: str) -> str:
        """百度搜索"""
        return work("search_baidu", query)

    return [get_weather, search_baidu]


class CrashingSaver:
    """A real saver, as a process that may die sees it: the process crashes right after its
    ``crash_after_put``-th checkpoint or ``crash_after_write``-th finished-call write, and a
    dead process writes nothing at all. Every other call goes to the real saver."""

    def __init__(
        self,
        saver: Any,
        world: World,
        *,
        crash_after_put: int | None = None,
        crash_after_write: int | None = None,
    ) -> None:
        self._saver = saver
        self._world = world
        self._crash_after_put = crash_after_put
        self._crash_after_write = crash_after_write
        self.puts = 0
        self.writes = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._saver, name)

    def _after_put(self) -> None:
        self.puts += 1
        if self.puts == self._crash_after_put:
            self._world.dead = True
            raise Crash(f"killed after checkpoint {self.puts}")

    def _after_write(self, writes: Sequence[tuple[str, Any]]) -> None:
        if any(channel == "lcel_agent:call" for channel, _ in writes):
            with self._world.lock:
                self.writes += 1
                self._world.written += 1
                crash = self.writes == self._crash_after_write
                if crash:
                    self._world.dead = True
            if crash:
                raise Crash(f"killed after write {self.writes}")

    def put(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        if self._world.dead:
            raise Crash("a dead process wrote a checkpoint")
        saved = self._saver.put(config, checkpoint, metadata, versions)
        self._after_put()
        return saved

    def put_writes(self, config: Any, writes: Any, task_id: str, *rest: Any) -> None:
        if self._world.dead:
            raise Crash("a dead process wrote")
        self._saver.put_writes(config, writes, task_id, *rest)
        self._after_write(writes)

    async def aput(self, config: Any, checkpoint: Any, metadata: Any, versions: Any) -> Any:
        if self._world.dead:
            raise Crash("a dead process wrote a checkpoint")
        saved = await self._saver.aput(config, checkpoint, metadata, versions)
        self._after_put()
        return saved

    async def aput_writes(self, config: Any, writes: Any, task_id: str, *rest: Any) -> None:
        if self._world.dead:
            raise Crash("a dead process wrote")
        await self._saver.aput_writes(config, writes, task_id, *rest)
        self._after_write(writes)


def make_agent(
    saver: Any,
    world: World,
    script: Sequence[Loop],
    *,
    native: bool = False,
    pause_s: float = 0.0,
    **options: Any,
) -> Any:
    """The scripted agent on ``saver`` (a fresh object: a new process on the same storage)."""
    options.setdefault("max_loops", 10)
    return create_agent(
        scripted_model(world, script, native=native),
        make_tools(world, pause_s=pause_s),
        checkpointer=saver,
        memory=SlidingWindowMemory(max_tokens=100_000, compactor=None),
        protocol="tool_calling" if native else "json",
        **options,
    )


def tool_calls_of(script: Sequence[Loop]) -> list[tuple[str, str]]:
    """Every tool call the script makes, in order."""
    return [call for loop in script if not isinstance(loop, str) for call in loop]


def sqlite_saver(path: Path) -> SqliteSaver:
    """``SqliteSaver`` on a file; ``check_same_thread=False`` because calls that run side by
    side write their results from worker threads."""
    return SqliteSaver(sqlite3.connect(path, check_same_thread=False))

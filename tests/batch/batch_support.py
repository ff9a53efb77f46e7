"""The batch tests' agent and model: the article's task on the simulated OpenAI server.

``make_agent`` is module-level so Ray workers can import it (tests/batch is put on their
``PYTHONPATH`` by conftest.py); bind its arguments with ``functools.partial``. The tools
are in-process (the batch runner is under test, not the tools); the model is the real
``ChatOpenAI`` talking to a :class:`SimulatedOpenAIServer` played by :class:`Recording`.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

from langchain_core.tools import tool
from langchain_openai import ChatOpenAI
from pydantic import SecretStr

from lcel_agent import create_agent
from lcel_agent.memory.counters import default_exact_counter
from lcel_agent.testing.article import ADCODES, ARTICLE_TASK, ArticleTaskModel
from lcel_agent.testing.server import completion_tokens, prompt_tokens

KEY = "sk-batch-test-5b1e9c07d2"
CITY_OF = {code: city for city, code in ADCODES.items()}
SEARCH = json.dumps(
    [{"title": "台风“海燕”最新路径：预计明日登陆", "link": "https://example.com/1"}],
    ensure_ascii=False,
)
_MARK = re.compile(r"#task-(\d+)")


@tool
def get_weather(city: str) -> str:
    """查询城市实时天气，城市名称必须是中文，例如'北京'"""
    return f"{CITY_OF.get(city, city)}市天气：晴，温度25℃，湿度40%"


@tool
def search_baidu(query: str) -> str:
    """百度搜索，返回前3条结果的标题和链接"""
    return SEARCH


def task(i: int) -> str:
    """The article's task, marked with its number (the model ignores the mark)."""
    return f"{ARTICLE_TASK.prompt} #task-{i}"


def tasks(n: int, *, start: int = 0) -> list[dict[str, Any]]:
    """``n`` inputs ``{"id": i, "input": task(i)}``."""
    return [{"id": i, "input": task(i)} for i in range(start, start + n)]


def make_agent(
    base_url: str,
    *,
    mark_dir: str | None = None,
    llm_timeout: float = 30.0,
    max_loops: int = 8,
) -> Any:
    """The article's agent on the simulated server; leaves ``mark_dir/<pid>`` naming its node."""
    if mark_dir is not None:
        node = ""
        try:
            import ray

            if ray.is_initialized():
                node = ray.get_runtime_context().get_node_id()
        except ImportError:
            pass
        Path(mark_dir, str(os.getpid())).write_text(node)
    llm = ChatOpenAI(
        model="gpt-4o-mini",
        base_url=base_url,
        api_key=SecretStr(KEY),
        timeout=20,
        default_headers={"X-Worker": str(os.getpid())},
    )
    return create_agent(
        llm, [get_weather, search_baidu], max_loops=max_loops, llm_timeout=llm_timeout
    )


def broken_agent() -> Any:
    """A ``make_agent`` whose agent raises on every run (a programmer's error)."""

    class Broken:
        async def ainvoke(self, value: Any, config: Any = None) -> Any:
            raise RuntimeError(f"bug while running {value!r} with key {KEY}")

    return Broken()


class Recording(ArticleTaskModel):
    """The article's model, noting when each request arrived, for which task, and its tokens
    (counted as the server counts them)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.arrivals: list[tuple[float, int]] = []
        self.tokens: list[tuple[float, int]] = []
        self._log = threading.Lock()
        self._count = default_exact_counter()

    def __call__(self, messages: list[dict[str, Any]], tools: Any) -> Any:
        now = time.monotonic()
        text = " ".join(str(m.get("content")) for m in messages if m.get("role") == "user")
        match = _MARK.search(text)
        reply = super().__call__(messages, tools)
        spent = prompt_tokens(messages, tools, self._count) + completion_tokens(reply, self._count)
        with self._log:
            self.arrivals.append((now, int(match.group(1)) if match else -1))
            self.tokens.append((now, spent))
        return reply

    def calls_per_task(self) -> Counter[int]:
        """Model calls per task number so far."""
        with self._log:
            return Counter(number for _, number in self.arrivals)

    def max_in_window(self, window: float, *, tokens: bool = False) -> int:
        """The most requests (or tokens) that arrived within any ``window`` seconds."""
        with self._log:
            events = sorted(self.tokens) if tokens else sorted((t, 1) for t, _ in self.arrivals)
        most = total = first = 0
        for now, weight in events:
            total += weight
            while now - events[first][0] >= window:
                total -= events[first][1]
                first += 1
            most = max(most, total)
        return most

    def forget(self) -> None:
        """Clear the log (between two jobs of one test)."""
        with self._log:
            self.arrivals.clear()
            self.tokens.clear()


def read_lines(path: Path) -> list[dict[str, Any]]:
    """Every line of a results file, parsed (a bad line fails the test)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def ids_of(path: Path) -> list[Any]:
    """The ids in a results file, in file order."""
    return [line["id"] for line in read_lines(path)]


def env_agent() -> Any:
    """``make_agent`` for the command line: the server's URL comes from the environment."""
    return make_agent(os.environ["BATCH_TEST_BASE_URL"])


class LostLimiter:
    """Permits whose limiter is gone: every reservation fails (a dead limiter actor)."""

    def reserve(self, tokens: int) -> float:
        raise ConnectionError("the limiter actor is gone")

    async def areserve(self, tokens: int) -> float:
        raise ConnectionError("the limiter actor is gone")

    def settle(self, reserved: int, actual: int) -> None:
        pass

    async def abacklog(self) -> float:
        return 0.0


def wait_for_lines(path: Path, lines: int, alive: Any = lambda: True, timeout: float = 60) -> None:
    """Wait until ``path`` holds ``lines`` lines, while ``alive()`` says the job still runs."""
    deadline = time.monotonic() + timeout
    while not (path.exists() and len(path.read_bytes().splitlines()) >= lines):
        assert time.monotonic() < deadline and alive(), f"{path} never reached {lines} lines"
        time.sleep(0.01)


def in_background(job: Any) -> tuple[threading.Thread, list[Any]]:
    """Start ``job()`` on a thread; its return value lands in the list."""
    results: list[Any] = []
    thread = threading.Thread(target=lambda: results.append(job()), daemon=True)
    thread.start()
    return thread, results

"""Everything an agent talks to, on loopback: try any command or script with no key and no network.

:func:`simulated_services` starts a simulated OpenAI-compatible model and the fake Amap
and Baidu services on 127.0.0.1, and points the environment at them for as long as it
is open (``OPENAI_API_KEY``, ``OPENAI_BASE_URL``, ``AMAP_KEY``, ``AMAP_BASE_URL``,
``BAIDU_BASE_URL``; the previous values come back on exit). Code that reads its model
and tools from the environment, as ``ChatOpenAI()`` and the bundled tools do, then runs
unchanged::

    from lcel_agent.testing.offline import simulated_services

    with simulated_services():
        llm = ChatOpenAI(model="gpt-4o-mini")            # talks to the simulated model
        agent = create_agent(llm, [get_weather, search_baidu])
        agent.invoke("查询广州和深圳今天的天气").output

This is what ``lcel-agent run --simulate`` and ``lcel-agent batch --simulate`` do.

The simulated model (:class:`TaskReadingModel`) reads each conversation's task and
does what :class:`~lcel_agent.testing.article.ArticleTaskModel` does for it: it asks
for the weather of every city of :data:`~lcel_agent.testing.tasks.ADCODES` the task
names, searches every phrase in quotes (“台风最新路径”), then sums up. It never reads
the system prompt, so it is no judge of prompts; it is a judge of plumbing.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from typing import Any

from lcel_agent.testing._reading import is_summary_request, text_of
from lcel_agent.testing.article import ArticleTaskModel
from lcel_agent.testing.faults import Latency
from lcel_agent.testing.policies import Reply
from lcel_agent.testing.server import SimulatedOpenAIServer
from lcel_agent.testing.services import (
    FakeAmapServer,
    FakeBaiduServer,
    set_environment,
    use_services,
)
from lcel_agent.testing.tasks import ADCODES, ARTICLE_TASK, NoiseProfile, WeatherSearchTask

__all__ = [
    "SIMULATED_KEY",
    "SimulatedServices",
    "TaskReadingModel",
    "simulated_services",
    "task_for",
]

SIMULATED_KEY = "sk-simulated-offline"
"""The API key the simulated model is given: a placeholder, never a real key."""

_QUOTED = re.compile(r"[“\"「]([^”\"」\n]+)[”\"」]")
# The default digest is added to the question after a blank line; the task is before it.
_DIGEST = "\n\nDone so far:"


def task_for(text: str) -> WeatherSearchTask:
    """The :class:`WeatherSearchTask` a task text asks for: its cities, its quoted searches.

    The article's own task text gives :data:`~lcel_agent.testing.tasks.ARTICLE_TASK`.
    A search about 台风 counts any typhoon headline; another counts a title with its words.
    """
    text = text.split(_DIGEST, 1)[0].strip()
    if text == ARTICLE_TASK.prompt:
        return ARTICLE_TASK
    cities = sorted((c for c in ADCODES if c in text), key=text.find)
    queries = [q.strip() for q in _QUOTED.findall(text) if q.strip()]
    first = queries[0] if queries else ""
    return WeatherSearchTask(
        cities=tuple(cities),
        query=first,
        keyword="台风" if "台风" in first else first,
        more_queries=tuple(dict.fromkeys(queries[1:])),
    )


def _task_text(messages: list[dict[str, Any]]) -> str:
    """The question the conversation asks now: on a thread that goes on with a new
    question, the earlier ones come first, so the last user message that reads as a task
    (not an observation or an error the agent sent back), else the first one."""
    texts = [text_of(m.get("content")) for m in messages if m.get("role") == "user"]
    asked = [
        text
        for text in texts
        if not text.lstrip().startswith(("Observation", "ERROR"))
        and ((task := task_for(text)).cities or task.query)
    ]
    return asked[-1] if asked else (texts[0] if texts else "")


class TaskReadingModel:
    """A policy ``(messages, tools) -> Reply`` that solves whatever weather-and-search task
    each conversation asks (see :func:`task_for`), one :class:`ArticleTaskModel` per task.

    ``noise`` and ``seed`` are passed to each of them; with no noise (the default) every
    reply is well formed, so a run's outcome shows the agent's plumbing, not the dice.
    """

    def __init__(self, *, noise: NoiseProfile | None = None, seed: int | None = 0) -> None:
        self.noise, self.seed = noise, seed
        self._models: dict[WeatherSearchTask, ArticleTaskModel] = {}
        self._lock = threading.Lock()

    def model_for(self, task: WeatherSearchTask) -> ArticleTaskModel:
        """The model that plays ``task`` (made on first use)."""
        with self._lock:
            if task not in self._models:
                self._models[task] = ArticleTaskModel(task, noise=self.noise, seed=self.seed)
            return self._models[task]

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None) -> Reply:
        if is_summary_request(messages):  # a compactor's request: any model takes notes
            return self.model_for(ARTICLE_TASK)(messages, tools)
        return self.model_for(task_for(_task_text(messages)))(messages, tools)


@dataclass(frozen=True)
class SimulatedServices:
    """The servers :func:`simulated_services` started, and the environment it set."""

    model: SimulatedOpenAIServer
    amap: FakeAmapServer
    baidu: FakeBaiduServer
    environment: dict[str, str]
    """The variables set while the services run (the key is :data:`SIMULATED_KEY`)."""


@contextmanager
def simulated_services(
    *,
    noise: NoiseProfile | None = None,
    seed: int | None = 0,
    latency: Latency | None = None,
) -> Iterator[SimulatedServices]:
    """Start the simulated model and the fake services, and point the environment at them.

    The environment is the process's (and that of the processes it starts, Ray's local
    workers included): open one at a time. ``latency`` slows the model down (default:
    20 ms a reply, a fast provider).
    """
    with ExitStack() as stack:
        model = stack.enter_context(
            SimulatedOpenAIServer(
                TaskReadingModel(noise=noise, seed=seed),
                latency=latency or Latency(fixed=0.02),
            )
        )
        amap = stack.enter_context(FakeAmapServer())
        baidu = stack.enter_context(FakeBaiduServer())
        stack.enter_context(use_services(amap, baidu))
        # OPENAI_API_BASE too: langchain-openai reads it before the client reads OPENAI_BASE_URL.
        environment = {
            "OPENAI_API_KEY": SIMULATED_KEY,
            "OPENAI_BASE_URL": model.base_url,
            "OPENAI_API_BASE": model.base_url,
            "AMAP_KEY": amap.key,
            "AMAP_BASE_URL": amap.base_url,
            "BAIDU_BASE_URL": baidu.base_url,
        }
        stack.enter_context(set_environment(environment))
        yield SimulatedServices(model, amap, baidu, environment)

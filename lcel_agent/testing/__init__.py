"""Test your agents without a paid API: fakes, a simulated OpenAI server, fake services.

* :class:`FunctionChatModel`, :class:`ScriptedChatModel`: in-process chat models.
* :class:`SimulatedOpenAIServer`: an OpenAI-compatible server on 127.0.0.1, with
  scripted or function policies, fault injection (:class:`Fault`, :class:`FaultProfile`)
  and latency, for the real ``ChatOpenAI`` and ``openai`` clients.
* :class:`ArticleTaskModel`: a simulated model for the article's task, with noise.
* :class:`FakeAmapServer`, :class:`FakeBaiduServer`, :func:`use_services`: the
  weather and search services the bundled tools talk to.
* :func:`simulated_services`: all of them on loopback at once, with the environment
  pointed at them (what ``lcel-agent run --simulate`` uses).

Pytest fixtures: ``pytest_plugins = ["lcel_agent.testing.fixtures"]``.
"""

from .article import ArticleTaskModel
from .fake import APIStatusFault, FunctionChatModel, ScriptedChatModel
from .faults import Fault, FaultProfile, FaultSpec, Latency
from .offline import TaskReadingModel, simulated_services
from .policies import Reply, ScriptedPolicy, ScriptExhaustedError
from .server import RecordedRequest, SimulatedOpenAIServer, completion_tokens, prompt_tokens
from .services import FakeAmapServer, FakeBaiduServer, use_services
from .tasks import ADCODES, ARTICLE_TASK, LONG_TASK, STRESS_TASK, NoiseProfile, WeatherSearchTask

__all__ = [
    "ADCODES",
    "ARTICLE_TASK",
    "LONG_TASK",
    "STRESS_TASK",
    "APIStatusFault",
    "ArticleTaskModel",
    "FakeAmapServer",
    "FakeBaiduServer",
    "Fault",
    "FaultProfile",
    "FaultSpec",
    "FunctionChatModel",
    "Latency",
    "NoiseProfile",
    "RecordedRequest",
    "Reply",
    "ScriptExhaustedError",
    "ScriptedChatModel",
    "ScriptedPolicy",
    "SimulatedOpenAIServer",
    "TaskReadingModel",
    "WeatherSearchTask",
    "completion_tokens",
    "prompt_tokens",
    "simulated_services",
    "use_services",
]

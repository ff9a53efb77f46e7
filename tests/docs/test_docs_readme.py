"""The README's code runs as written, against the simulated model and fake services."""

from __future__ import annotations

import pytest
from docs_support import ROOT, code_blocks

from lcel_agent import AgentResult
from lcel_agent.stages import TrimMemory
from lcel_agent.testing import (
    ArticleTaskModel,
    FakeAmapServer,
    FakeBaiduServer,
    SimulatedOpenAIServer,
    use_services,
)


@pytest.fixture
def offline_provider(monkeypatch):
    """OPENAI_* pointed at a simulated model; the weather and search tools at fakes."""
    with (
        SimulatedOpenAIServer(ArticleTaskModel()) as server,
        FakeAmapServer() as amap,
        FakeBaiduServer() as baidu,
        use_services(amap, baidu),
    ):
        monkeypatch.setenv("OPENAI_API_KEY", "sk-readme")
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        monkeypatch.setenv("AMAP_KEY", amap.key)
        yield server


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

"""A provider's 401 that echoes part of the refused key: the part is masked everywhere (issue 31).

Some providers quote the key they refused without its ``sk-`` prefix, or only a stretch of
it. Each test drives a real ``ChatOpenAI`` against ``SimulatedOpenAIServer`` on 127.0.0.1,
whose 401 body echoes such a piece of a fresh key, and searches every surface the run has:
``result.error``, ``repr(result)``, ``to_dict()``, the log records, the HTML report and a
batch job's results file. The keys are fresh per test, so a key masked by an earlier test
cannot make this one pass.
"""

from __future__ import annotations

import functools
import html
import json
import logging
import secrets
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rel_support import chat_model, run_over_http

import lcel_agent
from lcel_agent import StopReason, create_agent
from lcel_agent._redact import REDACTED
from lcel_agent.batch import run_batch
from lcel_agent.testing.fake import FunctionChatModel
from lcel_agent.testing.server import SimulatedOpenAIServer

_ALNUM = "abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789"


def _chars(n: int) -> str:
    return "".join(secrets.choice(_ALNUM) for _ in range(n))


# (the key, the piece of it the server echoes): each piece is one the registered value
# alone does not cover.
ECHOES: dict[str, Callable[[], tuple[str, str]]] = {
    # A body shorter than 16 characters: only the body rule masks it.
    "short body": lambda: (key := "sk-" + _chars(13), key.removeprefix("sk-")),
    "short proj body": lambda: (key := "sk-proj-" + _chars(11), key.removeprefix("sk-proj-")),
    # A stretch from the middle of a long key: only the 16-character rule masks it.
    "middle run": lambda: (key := "sk-" + _chars(40), key[9:29]),
    "body head": lambda: (key := "sk-proj-" + _chars(40), key[8:30]),
}


def _surfaces(result: Any, caplog: pytest.LogCaptureFixture) -> dict[str, str]:
    return {
        "error": str(result.error),
        "repr": repr(result),
        "to_dict": json.dumps(result.to_dict(), ensure_ascii=False),
        "logs": "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records),
        "log_text": caplog.text,
        "html": html.unescape(result.to_html()),
    }


@pytest.fixture
def debug_logs(caplog: pytest.LogCaptureFixture) -> pytest.LogCaptureFixture:
    caplog.set_level(logging.DEBUG)
    lcel_agent.redact_logging(caplog.handler)
    return caplog


@pytest.mark.parametrize("echo", list(ECHOES))
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_401_echoing_part_of_the_key_leaks_it_nowhere(
    mode: str, echo: str, debug_logs: pytest.LogCaptureFixture
) -> None:
    key, piece = ECHOES[echo]()
    with SimulatedOpenAIServer(
        ["never"],
        require_key="sk-" + _chars(40),  # any other key: every request is refused
        auth_message=f"Incorrect API key provided: {piece}. See ...",
    ) as srv:
        llm = chat_model(srv.base_url, key)
        result = run_over_http(mode, create_agent(llm, [_noop]), llm)
        assert srv.chat_requests  # the key was sent and refused
    assert result.stop_reason is StopReason.LLM_ERROR
    assert "Incorrect API key provided: ***" in result.error.message  # echoed, then masked
    for name, text in _surfaces(result, debug_logs).items():
        assert piece not in text, name


def _echoing_agent(base_url: str, key: str, piece: str) -> Any:
    del base_url  # the model below answers itself; the key is only registered
    model = FunctionChatModel(
        lambda m, t: json.dumps({"action": "final", "action_input": f"the key was {piece}"})
    )
    return create_agent(model, [_noop], secrets=[key])


def test_a_batch_results_file_holds_no_piece_of_a_key(tmp_path: Path) -> None:
    key, piece = ECHOES["middle run"]()
    out = tmp_path / "results.jsonl"
    make = functools.partial(_echoing_agent, "", key, piece)
    run_batch(make, ["查询北京天气"], out=out, progress=False)
    line = out.read_text(encoding="utf-8")
    assert f"the key was {REDACTED}" in json.loads(line)["result"]["output"]
    assert piece not in line


def _noop_tool() -> Any:
    from langchain_core.tools import tool

    @tool
    def probe(city: str) -> str:
        """查询城市实时天气，城市名称必须是中文，例如'北京'"""
        return f"{city}市天气：晴"

    return probe


_noop = _noop_tool()

"""``AgentResult.to_html()`` and ``render_run``: what the page of one run shows."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import pytest
from langchain_core.tools import tool
from report_support import HOSTILE, Page, css_fetches

from lcel_agent import create_agent
from lcel_agent._redact import register_secret
from lcel_agent.report import render_run
from lcel_agent.testing import FunctionChatModel


def test_every_loop_has_a_row_with_its_reply_actions_and_observations(mixed_result):
    html = mixed_result.to_html()
    page = Page(html)

    loops = page.find("details", class_="loop")
    assert [int(d["data-step"]) for d in loops] == [1, 2, 3, 4, 5]
    assert [("failed" in d["class"]) for d in loops] == [True, True, False, False, False]
    for step in mixed_result.steps:  # what opens on click: the raw reply, parsed, observed
        assert step.raw.split("\n")[0][:30] in page.text
        for observation in step.observations:
            assert observation.output in page.text
    assert "查询北京和上海的天气，再搜索台风" in page.text
    assert page.find("span", class_="stop-final")


def test_errors_are_coloured_by_class(mixed_result):
    page = Page(mixed_result.to_html())

    badges = [e["class"] for e in page.find("span", class_="cls")]
    assert any("err-format" in b for b in badges)
    assert any("err-unknown-tool" in b for b in badges)
    assert any("err-tool-failure" in b for b in badges)  # the failed call of the parallel pair
    legend = {e["class"] for e in page.find("span", class_="key")}
    assert {"key err err-format", "key err err-unknown-tool", "key err err-tool-failure"} <= legend


def test_model_text_is_escaped_and_its_links_are_inert(mixed_result):
    html = mixed_result.to_html()
    page = Page(html)

    assert mixed_result.output == HOSTILE
    assert '<script>alert("x")' not in html and "<img" not in html
    assert 'alert("x")' in page.text and "https://evil.example/x" in page.text
    assert page.external_urls() == []
    assert css_fetches(html) == []
    assert len(page.find("script")) == 1  # the report's own script, inline
    assert all("src" not in attrs for attrs in page.find("script"))


def test_timeline_bars_follow_stage_timings_to_scale(mixed_result):
    data = mixed_result.to_dict()
    stages = ["assemble_prompt", "call_llm", "clean_json", "parse_action", "dispatch_tools",
              "classify_error", "trim_memory"]  # fmt: skip
    for i, step in enumerate(data["steps"]):
        step["stage_ms"] = [
            [name, 10.0 * (i + 1) if name == "call_llm" else 1.0] for name in stages
        ]
    page = Page(render_run(data))

    tracks = page.find("details", class_="loop")
    assert len(tracks) == 5
    bars = [b for b in page.find("rect", class_="stage")]
    assert [b["data-name"] for b in bars[:7]] == stages  # chain order
    llm = [float(b["width"]) for b in bars if b["data-name"] == "call_llm"]
    # The longest loop (5: 50 + 6 ms) spans the track; the others are to the same scale.
    assert llm[-1] == pytest.approx(50 / 56 * 1000, rel=1e-3)
    assert llm[0] == pytest.approx(10 / 56 * 1000, rel=1e-3)
    xs = [float(b["x"]) for b in bars[:7]]
    assert xs == sorted(xs)  # each stage starts where the one before ended
    errored = [b for b in bars if "err" in b["class"].split()]
    assert {b["data-name"] for b in errored} == {
        s["error"]["stage"] for s in data["steps"] if s["error"]
    }


def test_without_stage_timings_the_model_call_and_dispatch_are_drawn(mixed_result):
    data = mixed_result.to_dict()
    for step in data["steps"]:
        step["stage_ms"] = []
        step["llm_ms"], step["tools_ms"] = 30.0, 10.0
    page = Page(render_run(data))

    names = [b["data-name"] for b in page.find("rect", class_="stage")]
    assert names == ["call_llm", "dispatch_tools"] * 5
    assert "per-stage times not recorded" in page.text
    tools = page.find("rect", class_="tool")
    assert len(tools) == sum(len(s["observations"]) for s in data["steps"])
    assert all(float(t["x"]) == pytest.approx(750.0) for t in tools)  # from the dispatch on


def test_window_and_tokens_per_call_are_charted(mixed_result):
    page = Page(mixed_result.to_html())

    captions = " ".join(page.texts)
    assert "Tokens per call" in captions and "The memory window at each call" in captions
    windows = [r for r in page.find("rect") if r.get("class") in ("win", "win-over")]
    assert len(windows) == mixed_result.loops
    budget = mixed_result.steps[0].window_budget
    assert f"window {mixed_result.steps[0].window_tokens}/{budget}" in page.text


def test_fields_it_does_not_know_are_shown_not_dropped(mixed_result):
    data = mixed_result.to_dict()
    data["compaction"] = {"compacted_turns": 3, "saved_tokens": 412}
    data["steps"][2]["cache_hits"] = 7
    text = Page(render_run(data)).text

    assert '"saved_tokens": 412' in text
    assert '"cache_hits": 7' in text


def test_the_librarys_own_fields_are_known_not_other(mixed_result):
    data = mixed_result.to_dict()
    assert {"compaction_usage", "compaction_calls"} <= data.keys()
    page = Page(render_run(data))
    assert "Other fields" not in page.text  # every field of today's to_dict() has its place

    data["compaction_calls"] = 2
    data["compaction_usage"] = {"input_tokens": 900, "output_tokens": 312, "total_tokens": 1212}
    page = Page(render_run(data))
    assert "memory summaries: 2 calls, 1,212 tokens" in page.text
    assert "Other fields" not in page.text

    data["stop_reason"] = "paused"
    data["pending"] = [{"tool": "get_weather", "tool_input": "北京", "call_id": "c1"}]
    page = Page(render_run(data))
    assert "waiting for approval: get_weather(北京)" in page.text
    assert "Other fields" not in page.text


@pytest.mark.parametrize(
    "data",
    [
        {},
        {"stop_reason": "final", "steps": None, "usage": "n/a"},
        {"steps": [{"step": "x", "stage_ms": [["call_llm"], None, ["a", "b"]], "usage": []}]},
        {"steps": [{"observations": [{"action": None, "latency_ms": float("nan")}]}]},
    ],
    ids=["empty", "wrong-types", "broken-stage-ms", "broken-observation"],
)
def test_partial_or_odd_data_still_renders(data):
    page = Page(render_run(data))
    assert page.find("main")


def test_secrets_in_the_data_are_masked(monkeypatch):
    secret = "sk-report-test-0b9e7d41c2"
    register_secret(secret)
    data = {
        "input": f"use {secret}",
        "output": f"the key is {secret}",
        "stop_reason": "final",
        "steps": [{"step": 1, "raw": secret, "error": {"message": f"?key={secret}"}}],
        "note": {secret: secret},
    }
    html = render_run(data)

    assert secret not in html
    assert "the key is ***" in Page(html).text


def _counting_model():
    calls = itertools.count(1)

    def reply(messages, tools):  # a new item on every call: never a repeat, never an answer
        return json.dumps({"action": "lookup", "action_input": f"item {next(calls)}"})

    return FunctionChatModel(reply)


@tool
def lookup(name: str) -> str:
    """Look a name up."""
    return f"{name}: " + "详细的记录内容。" * 250  # about 2,000 characters a result


def test_a_fifty_loop_report_stays_under_one_megabyte():
    agent = create_agent(_counting_model(), [lookup], max_loops=50)
    result = agent.invoke("逐个查询五十条记录")
    html = result.to_html()

    assert result.loops == 50 and result.stop_reason == "max_loops"
    assert len(Page(html).find("details", class_="loop")) == 50
    assert len(html.encode("utf-8")) < 1_000_000


def test_importing_the_state_does_not_import_the_report():
    code = (
        "import sys, lcel_agent.state;"
        "print(json.dumps(sorted(m for m in sys.modules if m.startswith(('lcel_agent.report', 'jinja2')))))"
    )
    done = subprocess.run(
        [sys.executable, "-c", "import json;" + code], capture_output=True, text=True, check=True
    )
    assert json.loads(done.stdout) == []


def test_a_reply_sent_back_with_a_notice_is_shown_as_such():
    from langchain_core.tools import tool

    from lcel_agent import create_agent
    from lcel_agent.testing import ScriptedChatModel

    @tool
    def weather(city: str) -> str:
        """The weather of a city."""
        return f"{city}市天气：晴，温度25℃"

    llm = ScriptedChatModel(["I will look it up now.", '{"action": "weather", "action_input": "北京"}',
                             '{"action": "final", "action_input": "北京晴"}'])  # fmt: skip
    result = create_agent(llm, [weather]).invoke("查询北京天气")
    assert result.steps[0].notice is not None and result.steps[0].error is None
    page = Page(result.to_html())
    first = page.find("details", class_="loop")[0]
    assert "failed" not in first["class"]
    assert "sent back once" in page.text and "I will look it up now." in page.text

"""A person approves each tool call at a terminal: TerminalApprover and ``--confirm``."""

from __future__ import annotations

import io
import json

from lcel_agent import Action
from lcel_agent.approval import TerminalApprover
from lcel_agent.cli import main


def test_terminal_answers():
    out = io.StringIO()
    approve = TerminalApprover(io.StringIO("y\nno\n\n北京不需要查\n"), out)
    action = Action("get_weather", {"city": "北京"})
    assert [approve(action) for _ in range(4)] == [True, False, False, "北京不需要查"]
    assert approve(action) == "no one was there to approve the call"  # end of input
    assert out.getvalue().startswith('Run get_weather({"city": "北京"})? [y/N/reason] ')


def test_the_question_never_shows_a_secret(monkeypatch):
    monkeypatch.setenv("AMAP_KEY", "amap-secret-123456")
    question = TerminalApprover().question(Action("get_weather", "amap-secret-123456"))
    assert "amap-secret-123456" not in question


def _demo(monkeypatch, capsys, answers: str) -> tuple[int, dict, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    code = main(["demo", "--json", "--confirm", "--noise", "0", "--faults", "0"])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def test_demo_with_confirm_runs_what_is_approved(monkeypatch, capsys):
    code, result, asked = _demo(monkeypatch, capsys, "y\n" * 20)
    assert code == 0 and result["stop_reason"] == "final"
    ran = [o for s in result["steps"] for o in s["observations"]]
    assert all(o["ok"] for o in ran)
    assert asked.count("? [y/N/reason] ") == len(ran) >= 3
    assert "Run get_weather(" in asked and "Run search_baidu(" in asked


def test_demo_with_confirm_refusals_reach_the_model(monkeypatch, capsys):
    code, result, asked = _demo(monkeypatch, capsys, "不要查天气\n" * 20)
    first, second = result["steps"]
    (refused,) = first["observations"]
    assert refused["error_class"] == "refused" and refused["output"] == "ERROR: 不要查天气"
    # Asking again for the refused call is drift: refused at once, not asked twice.
    assert second["observations"][0]["error_class"] == "drift"
    assert asked.count("? [y/N/reason] ") == 1
    assert code != 0 and result["stop_reason"] == "drift" and result["output"] is None

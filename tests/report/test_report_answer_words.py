"""The report names every trigger and repair in words, and says when a language was not read."""

from __future__ import annotations

from lcel_agent.report._answer import REPAIRS, TRIGGERS, describe_answer
from lcel_agent.result import Repair, Trigger


def test_every_trigger_and_repair_has_words():
    assert set(TRIGGERS) == set(Trigger)
    assert set(REPAIRS) == set(Repair)
    assert all(TRIGGERS.values())


def test_a_record_in_each_form_reads_as_a_line():
    composed = {"source": "composed", "trigger": "final", "repair": "omits", "results": 2,
                "calls": 1, "unused": ["get_weather(上海)"], "language": "zh"}  # fmt: skip
    line = describe_answer(composed)
    assert line.startswith("written by the answer stage from 2 results (1 call, text)")
    assert "its answer left a result out" in line and "get_weather(上海)" in line
    stopped = {"source": "results", "trigger": "stopped", "results": 3, "complete": False,
               "language": None}  # fmt: skip
    line = describe_answer(stopped)
    assert "the run was stopped before the model answered" in line
    assert "not one the rules read" in line and line.endswith("(incomplete)")
    own_check = {"source": "composed", "trigger": "final", "repair": "names_a_source",
                 "results": 1, "calls": 1}  # fmt: skip
    assert "check names_a_source" in describe_answer(own_check)

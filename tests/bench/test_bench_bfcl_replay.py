"""The BFCL harness against BFCL's own checker: the ground truth passes, doing nothing fails.

A handful of multi_turn_base entries here; ``python -m benchmarks.bfcl.replay`` replays
all 200 (docs/benchmarks.md, "BFCL v4", records the result).
"""

from __future__ import annotations

import pytest
from bfcl_support import ground_truth_model
from langchain_core.messages import AIMessage

from benchmarks.bfcl.entries import ground_truth, select
from benchmarks.bfcl.harness import run_entry
from benchmarks.bfcl.replay import GroundTruthReplay, replay
from benchmarks.bfcl.rows import ROWS
from lcel_agent.testing import FunctionChatModel

#: Entries with one to five turns, the file system, messaging, trading and travel among
#: their backends, and a positional argument in the ground truth (0: ``sort('...')``).
IDS = [0, 1, 2, 3, 4, 10, 50, 100, 150, 199]

#: How each framework's calls are written by the fake model.
FORMS = {"lcel-json": "json", "lcel-tools": "native", "executor": "react",
         "lc-agent": "native", "lg-react": "native"}  # fmt: skip

try:
    from langchain.agents.middleware import ModelCallLimitMiddleware  # noqa: F401

    HAVE_V1_AGENT = True
except ImportError:
    HAVE_V1_AGENT = False


def framework_params() -> list:
    """Every framework the stack has: LangChain 1.x ``create_agent`` does not exist on the
    article's 0.3 stack, so there it is not a case at all (rather than a skipped one)."""
    return [k for k in FORMS if k != "lc-agent" or HAVE_V1_AGENT]


def test_the_ground_truth_replayed_through_the_harness_is_valid():
    valid, total, failed = replay("multi_turn_base", IDS)
    assert (valid, total, failed) == (len(IDS), len(IDS), [])


def test_miss_funcs_entry_49_is_the_one_the_data_cannot_replay():
    # BFCL's data calls `tail` in turn 2 of miss_func_49, before the turn that offers it:
    # a harness that offers only what BFCL offers cannot run it (NOTES.md).
    valid, total, failed = replay("multi_turn_miss_func", [48, 49, 50])
    assert (valid, total) == (2, 3)
    assert failed == ["multi_turn_miss_func_49: multi_turn:execution_response_mismatch"]


@pytest.mark.parametrize("framework", framework_params())
def test_every_framework_replaying_the_ground_truth_scores_valid(framework):
    truths = ground_truth("multi_turn_base")
    for entry in select("multi_turn_base", parity="all", ids=[0, 2]):
        truth = truths[entry["id"]]
        llm = ground_truth_model(entry, truth, FORMS[framework])
        record = run_entry(entry, truth, ROWS[framework].turn, llm).record
        assert record["valid"], (entry["id"], record["error_type"], record["turns"])
        # One call per model step, as the fake made them: the steps are the ground truth's.
        assert [[c for s in t["steps"] for c in s] for t in record["turns"]] == [
            list(turn) for turn in _normalized(truth, entry)
        ]
        assert all(len(step) == 1 for t in record["turns"] for step in t["steps"])


def _normalized(truth: list[list[str]], entry: dict) -> list[list[str]]:
    """The ground truth as the harness writes calls (keywords, repr values)."""
    from bfcl_support import parse

    from benchmarks.bfcl.backends import call_text

    positional = {f["name"]: list(f["parameters"]["properties"]) for f in entry["function"]}
    return [[call_text(*parse(c, positional)) for c in turn] for turn in truth]


@pytest.mark.parametrize("framework", framework_params())
def test_an_agent_that_calls_nothing_scores_zero(framework):
    truths = ground_truth("multi_turn_base")
    entries = select("multi_turn_base", parity="all", ids=[0, 1, 2])
    answer = {"json": '{"action": "final", "action_input": "I cannot do that."}',
              "react": "Thought: no.\nFinal Answer: I cannot do that.",
              "native": "I cannot do that."}[FORMS[framework]]  # fmt: skip
    llm = FunctionChatModel(lambda messages, tools: AIMessage(content=answer))
    records = [run_entry(e, truths[e["id"]], ROWS[framework].turn, llm).record for e in entries]
    assert [r["valid"] for r in records] == [False, False, False]
    assert {r["error_type"] for r in records} == {"multi_turn:empty_turn_model_response"}
    assert all(r["tool_calls"] == 0 for r in records)


def test_a_missing_call_is_caught_by_the_state_check():
    truths = ground_truth("multi_turn_base")
    (entry,) = select("multi_turn_base", parity="all", ids=[0])
    truth = [list(turn) for turn in truths[entry["id"]]]
    truth[0] = truth[0][:-1]  # the move into temp never happens
    record = run_entry(entry, truths[entry["id"]], GroundTruthReplay(truth), None).record  # type: ignore[arg-type]
    assert not record["valid"]
    assert record["error_type"] == "multi_turn:instance_state_mismatch"

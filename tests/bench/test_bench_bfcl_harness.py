"""The harness's rules, as BFCL's runner has them: held-out functions, the step limit, steps,
single-turn scoring, and what is recorded."""

from __future__ import annotations

import itertools
import json

from langchain_core.messages import AIMessage

from benchmarks.bfcl.entries import ground_truth, select
from benchmarks.bfcl.harness import DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC, run_entry
from benchmarks.bfcl.rows import ROWS
from benchmarks.bfcl.schema import make_tools
from benchmarks.peers import Outcome
from benchmarks.peers.react import react_arguments
from lcel_agent.testing import FunctionChatModel

_ids = itertools.count()


def _native(*calls: tuple[str, dict]) -> AIMessage:
    return AIMessage(
        content="", tool_calls=[{"name": n, "args": a, "id": f"c{next(_ids)}"} for n, a in calls]
    )


class Spy:
    """A framework that makes no call and notes, per turn, the tools and the user's words."""

    def __init__(self) -> None:
        self.turns: list[tuple[set[str], str]] = []

    def __call__(self, llm, tools, history, user, *, max_loops, config) -> Outcome:
        self.turns.append(({t.name for t in tools}, str(user[-1].content)))
        return Outcome("final", [*user, AIMessage(content="ok")])


def test_miss_funcs_held_out_functions_join_at_their_turn():
    (entry,) = select("multi_turn_miss_func", parity="all", ids=[0])
    held = {int(t): [f["name"] for f in fs] for t, fs in entry["missed_function"].items()}
    assert held == {3: ["sort"]}
    spy = Spy()
    run_entry(entry, ground_truth("multi_turn_miss_func")[entry["id"]], spy, None)  # type: ignore[arg-type]
    assert len(spy.turns) == len(entry["question"]) == 5
    for index, (tools, words) in enumerate(spy.turns):
        assert ("sort" in tools) == (index >= 3), index
        if index == 3:  # the held-out turn has no user message of its own in BFCL's data
            assert words == DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC
        else:
            assert words == entry["question"][index][0]["content"]
    offered = {f["name"] for f in entry["function"]}
    assert "sort" not in offered and spy.turns[0][0] == offered


def test_more_than_twenty_steps_with_calls_in_a_turn_force_quits_the_entry():
    (entry,) = select("multi_turn_base", parity="all", ids=[1])
    llm = FunctionChatModel(lambda messages, tools: "Thought: look.\nAction: pwd\nAction Input: {}")
    truth = ground_truth("multi_turn_base")[entry["id"]]
    record = run_entry(entry, truth, ROWS["executor"].turn, llm).record
    assert not record["valid"]
    assert record["error_type"] == "multi_turn:force_terminated"
    assert len(record["turns"]) == 1  # the later turns never ran
    assert len(record["turns"][0]["steps"]) == 21 and record["model_calls"] == 21


def test_a_framework_that_stops_itself_at_the_limit_goes_on_to_the_next_turn():
    # LangGraph's prebuilt agent keeps its last step for an answer: 21 model calls, 20 of
    # them with calls, so BFCL's limit is never passed; the turn ends at LangGraph's limit.
    (entry,) = select("multi_turn_base", parity="all", ids=[1])
    llm = FunctionChatModel(lambda messages, tools: _native(("pwd", {})))
    truth = ground_truth("multi_turn_base")[entry["id"]]
    record = run_entry(entry, truth, ROWS["lg-react"].turn, llm).record
    assert [(t["stop"], len(t["steps"]), t["model_calls"]) for t in record["turns"]] == [
        ("recursion_limit", 20, 21)
    ] * 4
    assert record["error_type"] == "multi_turn:execution_response_mismatch"


def test_calls_are_filed_under_the_model_step_that_made_them():
    (entry,) = select("multi_turn_base", parity="all", ids=[0])
    replies = iter([
        _native(("cd", {"folder": "document"}), ("mkdir", {"dir_name": "temp"})),  # two at once
        _native(("mv", {"source": "final_report.pdf", "destination": "temp"})),
        AIMessage(content="Moved final_report.pdf into document/temp."),
    ])  # fmt: skip
    llm = FunctionChatModel(
        lambda messages, tools: next(replies, AIMessage(content="Nothing to do."))
    )
    record = run_entry(
        entry, ground_truth("multi_turn_base")[entry["id"]], ROWS["lg-react"].turn, llm
    ).record
    first, second = record["turns"][0]["steps"]
    # LangGraph runs one reply's calls concurrently: their order is its own, and the log
    # keeps the order they ran in (the checker replays them in that order).
    assert sorted(first) == ["cd(folder='document')", "mkdir(dir_name='temp')"]
    assert second == ["mv(source='final_report.pdf',destination='temp')"]
    executed = {c["call"]: c for c in record["executed"][0]}
    assert executed["cd(folder='document')"]["result"] == json.dumps(
        {"current_working_directory": "document"}
    )
    assert [c["step"] for c in record["executed"][0]] == [1, 1, 2]
    # Turn 2 made no call where one was needed (turn 1 may already differ: mkdir may run
    # before cd, in the root).
    assert not record["valid"]
    assert record["model"][0]["tool_calls"][1] == {"name": "mkdir", "args": {"dir_name": "temp"}}


def _single(category: str, number: int):
    (entry,) = select(category, parity="all", ids=[number])
    truths = ground_truth(category)
    return entry, truths.get(entry["id"])


def test_single_turn_the_calls_of_the_run_are_what_the_ast_checker_scores():
    entry, truth = _single("simple", 0)  # calculate_triangle_area(base=10, height=5)
    right = FunctionChatModel(
        lambda m, t: (
            AIMessage(content="The area is 25.")
            if any(x.type == "tool" for x in m)
            else _native(("calculate_triangle_area", {"base": 10, "height": 5}))
        )
    )
    assert run_entry(entry, truth, ROWS["lg-react"].turn, right).record["valid"]
    wrong = FunctionChatModel(
        lambda m, t: (
            AIMessage(content="Done.")
            if any(x.type == "tool" for x in m)
            else _native(("calculate_triangle_area", {"base": 5, "height": 10}))
        )
    )
    record = run_entry(entry, truth, ROWS["lg-react"].turn, wrong).record
    assert (record["valid"], record["error_type"]) == (False, "value_error:others")
    silent = FunctionChatModel(lambda m, t: AIMessage(content="The area is 25."))
    record = run_entry(entry, truth, ROWS["lg-react"].turn, silent).record
    assert (record["valid"], record["error_type"]) == (False, "ast_decoder:decoder_failed")


def test_irrelevance_is_right_exactly_when_no_call_is_made():
    entry, truth = _single("irrelevance", 0)
    assert truth is None
    silent = FunctionChatModel(lambda m, t: AIMessage(content="None of my tools can do that."))
    assert run_entry(entry, truth, ROWS["lg-react"].turn, silent).record["valid"]
    name = entry["function"][0]["name"].replace(".", "_")
    eager = FunctionChatModel(
        lambda m, t: (
            AIMessage(content="Done.") if any(x.type == "tool" for x in m) else _native((name, {}))
        )
    )
    record = run_entry(entry, truth, ROWS["lg-react"].turn, eager).record
    assert (record["valid"], record["error_type"]) == (False, "irrelevance_error:decoder_success")


def test_a_framework_that_raises_is_a_result_and_the_entry_goes_on():
    (entry,) = select("multi_turn_base", parity="all", ids=[1])

    def broken(llm, tools, history, user, *, max_loops, config):
        raise RuntimeError("adapter bug")

    record = run_entry(entry, ground_truth("multi_turn_base")[entry["id"]], broken, None).record  # type: ignore[arg-type]
    assert [t["stop"] for t in record["turns"]] == ["crashed: RuntimeError"] * 4
    assert record["error_type"] == "multi_turn:empty_turn_model_response"


def test_react_action_input_is_read_as_a_json_object_of_arguments():
    (entry,) = select("multi_turn_base", parity="all", ids=[0])
    tools = {t.name: t for t in make_tools(entry["function"], lambda name, arguments: "ok")}
    assert react_arguments(tools["mv"], '{"source": "a", "destination": "b"}') == {
        "source": "a", "destination": "b"
    }  # fmt: skip
    # A code model writes Python as often as JSON.
    assert react_arguments(tools["ls"], "{'a': True}") == {"a": True}
    assert react_arguments(tools["cd"], "document") == {"folder": "document"}
    assert react_arguments(tools["cd"], "'document'") == {"folder": "document"}
    assert react_arguments(tools["pwd"], "") == {}
    refused = react_arguments(tools["mv"], "a b")
    assert isinstance(refused, str) and "source, destination" in refused


def test_react_sees_earlier_turns_as_it_wrote_them():
    from bfcl_support import ground_truth_model

    (entry,) = select("multi_turn_base", parity="all", ids=[0])
    truth = ground_truth("multi_turn_base")[entry["id"]]
    llm = ground_truth_model(entry, truth, "react")
    assert run_entry(entry, truth, ROWS["executor"].turn, llm).record["valid"]
    last_prompt = str(llm.calls[-1][-1].content)
    assert 'Action: mkdir\nAction Input: {"dir_name": "temp"}\nObservation: None' in last_prompt
    assert "__arg1" not in last_prompt

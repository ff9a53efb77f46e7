"""The BFCL tables and failure signals, read from records the harness wrote."""

from __future__ import annotations

import itertools

from langchain_core.messages import AIMessage

from benchmarks.bfcl.entries import ground_truth, select
from benchmarks.bfcl.harness import run_entry
from benchmarks.bfcl.report import table, transcript
from benchmarks.bfcl.rows import ROWS
from benchmarks.bfcl.signals import tally
from lcel_agent.testing import FunctionChatModel

_ids = itertools.count()


def _record(framework: str, llm) -> dict:
    (entry,) = select("multi_turn_base", parity="all", ids=[0])
    run = run_entry(entry, ground_truth("multi_turn_base")[entry["id"]], ROWS[framework].turn, llm)
    return {"framework": framework, "label": ROWS[framework].label, "server": "llama-server",
            "category": "multi_turn_base", **run.record}  # fmt: skip


def _careless():
    """Moves a file that is not in the current directory, then says it is done; then nothing."""

    def reply(messages, tools):
        if any(m.type == "tool" for m in messages[-2:]):
            return AIMessage(content="Moved it.")
        if sum(m.type == "human" for m in messages) > 1:
            return AIMessage(content="Sure.")
        call = {"name": "mv", "args": {"source": "final_report.pdf", "destination": "temp"}}
        return AIMessage(content="", tool_calls=[{**call, "id": f"c{next(_ids)}"}])

    return FunctionChatModel(reply)


def test_signals_name_what_the_agent_did_on_the_way():
    record = _record("lg-react", _careless())
    assert not record["valid"]
    row = tally([record])["lg-react@llama-server"]
    assert (row["entries"], row["turns"]) == (1, 4)
    assert row["signals"]["backend_error"] == 1
    assert row["signals"]["error_then_final"] == 1
    assert row["signals"]["no_call"] == 3  # turns 2-4 needed calls and got none
    (example,) = row["examples"]["backend_error"]
    assert example.startswith("multi_turn_base_0 turn 1: mv(source='final_report.pdf'")
    assert "No such file or directory" in example


def test_the_table_compares_frameworks_on_the_entries_they_all_ran():
    careless = _record("lg-react", _careless())
    silent = _record("lcel-tools", FunctionChatModel(lambda m, t: AIMessage(content="No.")))
    other = {**silent, "id": "multi_turn_base_2"}  # only one framework ran this entry
    text = table([careless, silent, other])
    lines = [line for line in text.splitlines() if "multi_turn_base" in line]
    assert len(lines) == 2 and all("0/1 = 0.0 %" in line for line in lines)
    assert "LangGraph create_react_agent" in text and "lcel_agent (tool_calling)" in text
    shown = transcript(careless)
    assert "ground truth: cd(folder='document')" in shown
    assert "ran (step 1): mv(source='final_report.pdf',destination='temp')" in shown
    # Turn 1 already leaves the file system unlike the ground truth's (no temp directory).
    assert shown.rstrip().endswith(
        "BFCL: multi_turn:instance_state_mismatch Model instance for GorillaFileSystem does "
        "not match the state with ground truth instance."
    )

"""The results file: every finished entry kept, an interrupted run going on where it stopped."""

from __future__ import annotations

import argparse
import json

from benchmarks.bfcl.rows import ROWS
from benchmarks.bfcl.run import parse_rows, pending, plan
from benchmarks.bfcl.store import ResultsFile, key


def _record(framework: str, entry_id: str, category: str = "multi_turn_base") -> dict:
    return {"framework": framework, "server": ROWS[framework].server, "category": category,
            "id": entry_id, "valid": False, "turns": []}  # fmt: skip


def _args(**given) -> argparse.Namespace:
    return argparse.Namespace(
        **{"ids": None, "parity": "even", "n": 3, "n_multi": None, "quick": False, **given}
    )


def test_records_survive_a_reopen_and_a_torn_last_line_is_skipped(tmp_path):
    path = tmp_path / "results.jsonl"
    store = ResultsFile(path)
    store.append(_record("lcel-json", "multi_turn_base_0"))
    store.append(_record("executor", "multi_turn_base_0"))
    with path.open("a", encoding="utf-8") as f:  # a kill in the middle of a write
        f.write('{"framework": "lcel-json", "server": "llama-server", "id": "multi_tu')
    reopened = ResultsFile(path)
    assert len(reopened) == 2
    server = ROWS["lcel-json"].server
    assert reopened.has(key("lcel-json", server, "multi_turn_base", "multi_turn_base_0"))
    assert not reopened.has(key("lcel-json", server, "multi_turn_base", "multi_turn_base_2"))
    # The next record starts on a line of its own: the torn one does not swallow it.
    reopened.append(_record("lcel-json", "multi_turn_base_2"))
    assert [r["id"] for r in ResultsFile(path).records()] == [
        "multi_turn_base_0", "multi_turn_base_0", "multi_turn_base_2",
    ]  # fmt: skip
    assert all(json.loads(line) for line in path.read_text().splitlines()[-1:])


def test_a_resumed_run_plans_only_what_the_file_does_not_have(tmp_path):
    rows = parse_rows("lcel-json,executor,lc-agent")
    store = ResultsFile(tmp_path / "results.jsonl")
    args = _args(n=3)
    todo, skipped = pending(plan(rows, ["multi_turn_base"], args), store)
    assert skipped == 0
    assert sum(len(v) for v in todo.values()) == 9  # 3 even entries x 3 frameworks
    # Entries 0 and 2 finished for lcel-json, entry 0 for the executor: then a kill.
    for framework, entry_id in [("lcel-json", 0), ("lcel-json", 2), ("executor", 0)]:
        store.append(_record(framework, f"multi_turn_base_{entry_id}"))
    todo, skipped = pending(plan(rows, ["multi_turn_base"], args), ResultsFile(store.path))
    left = {(row.key, entry["id"]) for runs in todo.values() for _, entry, row in runs}
    assert skipped == 3
    assert left == {
        ("lcel-json", "multi_turn_base_4"), ("executor", "multi_turn_base_2"),
        ("executor", "multi_turn_base_4"), ("lc-agent", "multi_turn_base_0"),
        ("lc-agent", "multi_turn_base_2"), ("lc-agent", "multi_turn_base_4"),
    }  # fmt: skip


def test_the_plan_takes_even_ids_and_groups_runs_by_server():
    rows = parse_rows("lcel-json@llama-cpp-python,lc-agent,lc-agent@llama-cpp-python")
    planned = list(plan(rows, ["multi_turn_base", "simple"], _args(n=2, n_multi=1)))
    assert [s for s, *_ in planned] == sorted(
        (s for s, *_ in planned), key=["llama-cpp-python", "llama-server"].index
    )
    ids = {(c, e["id"]) for _, c, e, _ in planned}
    assert ids == {("multi_turn_base", "multi_turn_base_0"), ("simple", "simple_python_0"),
                   ("simple", "simple_python_2")}  # fmt: skip
    on_cpp = {row.key for s, _, _, row in planned if s == "llama-cpp-python"}
    assert on_cpp == {"lcel-json", "lc-agent"}


def test_the_quick_plan_is_one_short_even_entry_per_category():
    from benchmarks.bfcl.entries import DEFAULT_CATEGORIES

    planned = list(plan(parse_rows("lcel-json"), list(DEFAULT_CATEGORIES), _args(quick=True)))
    ids = [e["id"] for _, _, e, _ in planned]
    assert ids == ["multi_turn_base_50", "multi_turn_miss_param_50", "simple_python_0",
                   "multiple_0", "parallel_0", "parallel_multiple_0", "irrelevance_0"]  # fmt: skip
    assert [len(e["question"]) for _, _, e, _ in planned[:2]] == [1, 2]

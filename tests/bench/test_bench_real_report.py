"""The real-model report's table: success, and the share of facts a framework's answers hold."""

from __future__ import annotations

from typing import Any

from benchmarks.real.report import markdown, summarise


def _run(
    seed: int, facts: dict[str, bool], stop: str = "final", gathered: bool = True
) -> dict[str, Any]:
    call = {"prompt_tokens": 100, "completion_tokens": 10, "rendered_tokens": 100,
            "prefix_share": None, "previous_kept": None, "server_reused": 0}  # fmt: skip
    return {
        "model": "1.5b", "task": "article", "framework": "lcel-json", "seed": seed,
        "success": all(facts.values()), "facts": facts, "calls": 1, "prompt_tokens": 100,
        "completion_tokens": 10, "wall_s": 1.0, "stop": stop, "per_call": [call],
        "first_weather_error": False, "load_before": 0.0, "gathered": gathered,
        "temperature": 0.2,
    }  # fmt: skip


def test_facts_found_tells_a_near_miss_from_no_answer():
    near = _run(0, {"北京.weather": True, "上海.weather": True, "search": False, "x": True})
    nothing = _run(1, dict.fromkeys(("北京.weather", "上海.weather", "search", "x"), False))
    (row,) = summarise([near, nothing])
    assert row["success"] == 0.0 and row["facts"] == 0.375  # (3/4 + 0) / 2
    line = next(x for x in markdown([row]).splitlines() if x.startswith("| lcel_agent"))
    # gathered, facts found, success
    assert line.split(" | ")[2:5] == ["100%", "38%", "**0%**"]


def test_gathered_tells_facts_the_answer_lost_from_facts_never_found():
    lost = _run(0, {"search": False}, gathered=True)
    never = _run(1, {"search": False}, gathered=False)
    (row,) = summarise([lost, never])
    assert row["gathered"] == 0.5 and row["success"] == 0.0


def test_runs_at_two_temperatures_are_two_rows_with_their_temperature_in_the_heading():
    cold, warm = _run(0, {"x": True}), {**_run(0, {"x": False}), "temperature": 0.7}
    rows = summarise([cold, warm])
    assert [(r["temperature"], r["success"]) for r in rows] == [(0.2, 1.0), (0.7, 0.0)]
    table = markdown(rows)
    assert "(temperature 0.2, max_loops 10)" in table and "(temperature 0.7, max_loops 10)" in table


def test_a_run_without_a_fact_check_counts_as_none_found():
    (row,) = summarise([_run(0, {}, stop="max_errors")])
    assert row["facts"] == 0.0

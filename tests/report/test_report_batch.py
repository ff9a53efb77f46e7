"""A batch's results as one page, and ``lcel-agent report``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from report_support import Page, css_fetches

from lcel_agent.report import read_results, render_batch
from lcel_agent.report._batch import batch_view


def _records(result, n=4):
    """``n`` batch lines: the mixed run, and copies that stopped otherwise, plus one that failed."""
    base = result.to_dict()
    lines = []
    for i in range(n):
        data = json.loads(json.dumps(base))
        if i % 2:
            data["stop_reason"], data["output"] = "max_errors", None
            data["error"] = {"step": 2, "stage": "dispatch_tools", "error_class": "tool_failure",
                             "message": "ERROR: down"}  # fmt: skip
        data["elapsed_s"] = 0.5 * (i + 1)
        data["usage"]["total_tokens"] = 1000 * (i + 1)
        lines.append({"id": f"task-{i}", "input": f"问题 {i}", "result": data})
    return lines


def test_read_results_keeps_every_line_it_cannot_read(write_jsonl, mixed_result):
    good = _records(mixed_result, 2)
    path = write_jsonl([good[0], "", "{not json", "[1, 2]", good[1], "   "])

    records, problems = read_results(path)

    assert [r["id"] for r in records] == ["task-0", "task-1"]
    assert [n for n, _ in problems] == [3, 4]
    assert "not JSON" in problems[0][1] and "list" in problems[1][1]


def test_a_line_that_is_not_json_says_its_whole_reason(write_jsonl):
    path = write_jsonl(['{"id": "a\tb"}'])  # a raw tab inside a string
    _, problems = read_results(path)
    assert problems == [(1, "not JSON (Invalid control character at column 10)")]


def test_read_results_takes_one_json_result_too(tmp_path, mixed_result):
    path = tmp_path / "run.json"
    path.write_text(json.dumps(mixed_result.to_dict(), ensure_ascii=False, indent=2))

    records, problems = read_results(path)

    assert problems == [] and records[0]["stop_reason"] == "final"


def test_figures_and_distributions(mixed_result):
    lines = [*_records(mixed_result, 4), {"id": "lost", "input": "q", "error": "worker died"}]
    view = batch_view(lines)

    assert view.total == 5 and view.succeeded == 2
    assert [(s, n) for s, n, _ in view.stops] == [("final", 2), ("max_errors", 2), ("no result", 1)]
    figures = {f[0]: f[1:] for f in view.figures}
    assert figures["tokens"] == ("1,000", "2,500", "3,700", "4,000")
    assert figures["seconds"] == ("0.50", "1.25", "1.85", "2.00")
    for chart in view.charts:  # every run is counted in exactly one bin
        counted = sum(int(tip.split()[0]) for *_, tip in chart.bars)
        assert counted == 4
    lost = view.rows[-1]
    assert lost.run is None and lost.problem == "worker died"


def test_each_run_is_one_click_from_the_table(mixed_result):
    lines = _records(mixed_result, 3)
    html = render_batch(lines, [(7, "not JSON")], title="results.jsonl")
    page = Page(html)

    links = [a["href"] for a in page.find("a", class_="run-link")]
    assert links == ["#run-1", "#run-2", "#run-3"]
    sections = [m["id"] for m in page.find("main", class_="run-page")]
    assert sections == ["run-1", "run-2", "run-3"]
    assert len(page.find("details", class_="loop")) == 3 * mixed_result.loops
    ids = [attrs["id"] for _, attrs in page.elements if "id" in attrs]
    assert len(ids) == len(set(ids))  # loops of different runs do not share ids
    assert "line 7: not JSON" in page.text
    assert page.external_urls() == []
    assert css_fetches(html) == []


def _cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lcel_agent.cli", "report", *args],
        capture_output=True, text=True, encoding="utf-8", cwd=cwd, timeout=60, check=False,
    )  # fmt: skip


def test_report_command_writes_the_page(write_jsonl, mixed_result, tmp_path):
    path = write_jsonl([*_records(mixed_result, 3), "oops"])

    done = _cli(str(path), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    out = path.with_suffix(".html")
    page = Page(out.read_text(encoding="utf-8"))
    assert len(page.find("main", class_="run-page")) == 3
    assert "results.jsonl:4: not JSON" in done.stderr
    assert f"3 runs, 2 answered → {out}" in done.stderr
    assert done.stdout == ""


def test_report_command_renders_a_single_run(tmp_path, mixed_result):
    path = tmp_path / "one.json"
    path.write_text(json.dumps(mixed_result.to_dict(), ensure_ascii=False))

    done = _cli(str(path), "--out", str(tmp_path / "page.html"), cwd=tmp_path)

    assert done.returncode == 0, done.stderr
    page = Page((tmp_path / "page.html").read_text(encoding="utf-8"))
    assert len(page.find("details", class_="loop")) == mixed_result.loops
    assert not page.find("main", class_="run-page")


@pytest.mark.parametrize(
    ("setup", "message"),
    [
        (lambda d: d / "missing.jsonl", "no such file"),
        (lambda d: _write(d / "empty.jsonl", "\n\n"), "holds no results"),
        (lambda d: _write(d / "bin.jsonl", b"\xff\xfe\x00"), "cannot read"),
    ],
    ids=["missing", "empty", "not-utf8"],
)
def test_report_command_usage_errors(tmp_path, setup, message):
    done = _cli(str(setup(tmp_path)), cwd=tmp_path)

    assert done.returncode == 2
    assert message in done.stderr
    assert "Traceback" not in done.stderr


def _write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path

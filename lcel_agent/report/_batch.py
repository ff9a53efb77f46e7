"""A batch's results as one report: reading the JSON Lines, the figures, the distributions. Pure.

The batch runner writes one line per task, ``{"id", "input", "result":
AgentResult.to_dict()}``. :func:`read_results` reads that file (or one
``lcel-agent run --json`` result, or a JSON list of either); a line that is not
JSON is kept as a problem to show, never skipped silently.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._charts import Chart, histogram
from ._data import _dict, _int, _num, _text, scrub
from ._view import RunView, run_view

__all__ = ["BatchRow", "BatchView", "batch_view", "read_results"]


def read_results(path: str | Path) -> tuple[list[dict[str, Any]], list[tuple[int, str]]]:
    """The records of a results file, and ``(line number, problem)`` for lines it could not read.

    A file whose whole text is one JSON object or list is read as that (a single
    ``--json`` result becomes one record); otherwise each non-blank line is one record.
    Raises ``OSError`` when the file cannot be read, ``ValueError`` when it is not UTF-8.
    """
    text = Path(path).read_bytes().decode("utf-8")
    records: list[dict[str, Any]] = []
    problems: list[tuple[int, str]] = []
    try:
        whole = json.loads(text)
    except ValueError:
        whole = None
    if isinstance(whole, dict):
        return [whole], []
    if isinstance(whole, list):
        for index, item in enumerate(whole, 1):
            if isinstance(item, dict):
                records.append(item)
            else:
                problems.append((index, f"item {index} is a {type(item).__name__}, not an object"))
        return records, problems
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = json.loads(line)
        except json.JSONDecodeError as exc:
            reason = exc.msg.removesuffix(" at")  # "Invalid control character at"
            problems.append((number, f"not JSON ({reason} at column {exc.colno})"))
            continue
        if isinstance(item, dict):
            records.append(item)
        else:
            problems.append((number, f"a JSON {type(item).__name__}, not an object"))
    return records, problems


@dataclass(frozen=True, slots=True)
class BatchRow:
    """One task of the batch: its summary row, and its own report when it has a result."""

    anchor: str
    id: str
    task: str
    stop_reason: str
    ok: bool
    loops: int
    tokens: int
    elapsed_s: float
    problem: str
    run: RunView | None

    @property
    def line(self) -> int:
        """The record's place in the file (finishing order, for a batch runner's file)."""
        return int(self.anchor.removeprefix("run-"))

    @property
    def sort_key(self) -> tuple[tuple[int, int | str], ...]:
        """The id in natural order: ``t2`` before ``t10``."""
        return tuple(
            (0, int(part)) if part.isdigit() else (1, part)
            for part in re.split(r"(\d+)", self.id)
            if part
        )


@dataclass(frozen=True, slots=True)
class BatchView:
    """Everything a batch report shows."""

    title: str
    rows: tuple[BatchRow, ...]
    total: int
    succeeded: int
    stops: tuple[tuple[str, int, float], ...]  # (stop reason, count, share of the batch)
    figures: tuple[tuple[str, str, str, str, str], ...]  # (what, min, median, p90, max)
    charts: tuple[Chart, ...]
    problems: tuple[tuple[int, str], ...]

    @property
    def table(self) -> tuple[BatchRow, ...]:
        """The rows as the runs table first shows them: by id, in natural order."""
        return tuple(sorted(self.rows, key=lambda row: row.sort_key))


def _record(item: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The result dict of a batch line (or the line itself when it is a bare result)."""
    if isinstance(item.get("result"), Mapping):
        return _dict(item["result"])
    if "stop_reason" in item and "steps" in item:
        return item
    return None


def _row(index: int, item: Mapping[str, Any]) -> BatchRow:
    item = scrub(dict(item))
    result = _record(item)
    ident = _text(item.get("id")) if item.get("id") is not None else str(index + 1)
    if result is None:
        problem = _text(item.get("error")) or "no result in this line"
        return BatchRow(
            f"run-{index + 1}", ident, _text(item.get("input")), "no result", False, 0, 0, 0.0,
            problem, None,
        )  # fmt: skip
    view = run_view(result)
    return BatchRow(
        anchor=f"run-{index + 1}",
        id=ident,
        task=_text(item.get("input")) or view.task,
        stop_reason=view.stop_reason,
        ok=view.ok,
        loops=view.loops,
        tokens=_int(_dict(result.get("usage")).get("total_tokens"))
        or view.input_tokens + view.output_tokens,
        elapsed_s=_num(result.get("elapsed_s")),
        problem="",
        run=view,
    )


def _quantile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return 0.0
    position = (len(ordered) - 1) * q
    low, high = math.floor(position), math.ceil(position)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def batch_view(
    records: Sequence[Mapping[str, Any]],
    problems: Sequence[tuple[int, str]] = (),
    title: str = "batch",
) -> BatchView:
    """The report of a batch, from its records (see :func:`read_results`)."""
    rows = tuple(_row(i, r) for i, r in enumerate(records))
    done = [r for r in rows if r.run is not None]
    stops = Counter(r.stop_reason for r in rows)
    total = len(rows)
    figures = []
    for what, values, fmt in (
        ("loops", [float(r.loops) for r in done], "{:.0f}"),
        ("tokens", [float(r.tokens) for r in done], "{:,.0f}"),
        ("seconds", [r.elapsed_s for r in done], "{:.2f}"),
    ):
        if values:
            figures.append(
                (what, *(fmt.format(_quantile(values, q)) for q in (0.0, 0.5, 0.9, 1.0)))
            )
    charts: tuple[Chart, ...] = ()
    if done:
        charts = (
            histogram(
                "Tokens per run", [float(r.tokens) for r in done], "tokens", "tok-in", whole=True
            ),
            histogram("Wall time per run", [r.elapsed_s for r in done], "seconds", "dur"),
        )
    return BatchView(
        title=title,
        rows=rows,
        total=total,
        succeeded=sum(r.ok for r in rows),
        stops=tuple(
            (stop, count, count / total if total else 0.0) for stop, count in stops.most_common()
        ),
        figures=tuple((w, lo, med, p90, hi) for w, lo, med, p90, hi in figures),
        charts=charts,
        problems=tuple(problems),
    )

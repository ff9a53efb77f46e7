"""Tables from a BFCL results file: accuracy and cost per framework and category, and errors.

    python -m benchmarks.bfcl.report benchmarks/results/bfcl/run/results.jsonl
    python -m benchmarks.bfcl.report benchmarks/results/bfcl/single/*/results.jsonl   # parts together
    python -m benchmarks.bfcl.report RESULTS --errors 5      # BFCL's top error types, an example each
    python -m benchmarks.bfcl.report RESULTS --show multi_turn_base_4 --framework lcel-json

Each category is compared on the entries every framework in the file ran (the same
entries side by side); ``--all`` takes every entry each framework ran instead. Figures
are per entry: model calls, prompt tokens (as the server counted them) and wall time;
"stops" counts how the framework's turns ended. Accuracy carries its 95 % interval (Wilson's
score interval: on 25 entries one entry is 4 points, and the interval says how far apart two
rows must be before the difference means something).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections import Counter, defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

Record = dict[str, Any]


def load(*paths: Path) -> list[Record]:
    """The records of one or more results files (a run's parts), in order."""
    from benchmarks.bfcl.store import ResultsFile

    return [record for path in paths for record in ResultsFile(path).records()]


def wilson(successes: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95 % Wilson score interval of a proportion, as fractions (``(0, 0)`` for n = 0)."""
    if n == 0:
        return (0.0, 0.0)
    p = successes / n
    centre = p + z * z / (2 * n)
    spread = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    low, high = (centre - spread) / (1 + z * z / n), (centre + spread) / (1 + z * z / n)
    return (max(0.0, low), min(1.0, high))


def _rows(records: Iterable[Record]) -> dict[tuple[str, str], dict[str, list[Record]]]:
    """(framework, server) -> category -> records (the last record of an entry wins)."""
    latest: dict[tuple[str, str, str, str], Record] = {}
    for r in records:
        latest[(r["framework"], r["server"], r["category"], r["id"])] = r
    out: dict[tuple[str, str], dict[str, list[Record]]] = defaultdict(lambda: defaultdict(list))
    for (framework, server, category, _), r in latest.items():
        out[(framework, server)][category].append(r)
    return out


def common(rows: dict[tuple[str, str], dict[str, list[Record]]]) -> dict[str, set[str]]:
    """category -> the entry ids every row that ran the category has."""
    ids: dict[str, set[str]] = {}
    for by_category in rows.values():
        for category, records in by_category.items():
            have = {r["id"] for r in records}
            ids[category] = ids[category] & have if category in ids else have
    return ids


def _stops(records: list[Record]) -> str:
    counts = Counter(t["stop"] for r in records for t in r["turns"])
    return ", ".join(f"{stop} {n}" for stop, n in counts.most_common(4))


def _label(records: list[Record]) -> str:
    return str(records[0].get("label") or records[0]["framework"])


def table(records: list[Record], *, same_entries: bool = True) -> str:
    """The side-by-side table (markdown)."""
    rows = _rows(records)
    keep = common(rows) if same_entries else None
    lines = [
        "| framework | server | category | accuracy | model calls | prompt tokens | wall s | stops (turns) |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    categories = sorted({c for by in rows.values() for c in by}, key=_category_order)
    for category in categories:
        for (_, server), by_category in rows.items():
            chosen = [
                r
                for r in by_category.get(category, [])
                if keep is None or r["id"] in keep[category]
            ]
            if not chosen:
                continue
            n = len(chosen)
            valid = sum(bool(r["valid"]) for r in chosen)
            calls = sum(r["model_calls"] for r in chosen) / n
            prompt = sum(r["prompt_tokens"] for r in chosen) / n
            wall = sum(r["wall_s"] for r in chosen) / n
            low, high = wilson(valid, n)
            lines.append(
                f"| {_label(chosen)} | {server} | {category} | {valid}/{n} = {100 * valid / n:.1f} % "
                f"[{100 * low:.0f}–{100 * high:.0f}] "
                f"| {calls:.1f} | {prompt:,.0f} | {wall:.0f} | {_stops(chosen)} |"
            )
    return "\n".join(lines)


def _category_order(category: str) -> tuple[int, str]:
    from benchmarks.bfcl.entries import CATEGORIES

    order = list(CATEGORIES)
    return (order.index(category) if category in order else len(order), category)


def _example(record: Record) -> str:
    """One failed entry in a line: the id, BFCL's message, the first calls it made."""
    made = [c["call"] for turn in record.get("executed", []) for c in turn][:3]
    return f"{record['id']}: {record.get('error') or ''} — calls: {'; '.join(made) or 'none'}"


def errors(records: list[Record], top: int = 5) -> str:
    """BFCL's most common error types per framework and server, with one example each."""
    lines: list[str] = []
    for (_, server), by_category in _rows(records).items():
        failed = [r for rs in by_category.values() for r in rs if not r["valid"]]
        if not failed:
            continue
        lines.append(f"\n{_label(failed)} ({server}): {len(failed)} failed")
        counts = Counter(r["error_type"] for r in failed)
        for error_type, n in counts.most_common(top):
            example = next(r for r in failed if r["error_type"] == error_type)
            lines.append(f"- {error_type} ×{n} (e.g. {_example(example)[:300]})")
    return "\n".join(lines)


def transcript(record: Record) -> str:
    """One entry's run, turn by turn: what the user asked, what the model wrote, what ran,
    and the ground truth beside it; then BFCL's verdict."""
    from benchmarks.bfcl.entries import ground_truth, select
    from benchmarks.bfcl.entries import number as id_number

    (entry,) = select(record["category"], parity="all", ids=[id_number(record["id"])])
    truth = ground_truth(record["category"]).get(record["id"])
    lines = [f"{record['id']} · {record.get('label') or record['framework']} · {record['server']}"]
    model = iter(record.get("model", []))
    for index, turn in enumerate(record["turns"]):
        asked = (
            " ".join(m["content"] for m in entry["question"][index]) or "(held-out functions added)"
        )
        lines.append(f"\n## turn {index + 1}: {asked}")
        if isinstance(truth, list) and index < len(truth) and isinstance(truth[index], list):
            lines.append(f"   ground truth: {'; '.join(map(str, truth[index])) or '(no call)'}")
        for _ in range(turn["model_calls"]):
            call = next(model, None)
            if call is None:
                break
            said = call.get("error") or call.get("reply") or ""
            native = f" tool_calls={call['tool_calls']}" if call.get("tool_calls") else ""
            lines.append(f"   model {call['index']} ({call.get('elapsed_s')} s): {said!r}{native}")
        for made in record["executed"][index] if index < len(record["executed"]) else []:
            lines.append(f"   ran (step {made['step']}): {made['call']} -> {made['result'][:200]}")
        lines.append(
            f"   stop: {turn['stop']}{' — ' + turn['detail'] if turn.get('detail') else ''}"
        )
    lines.append(
        f"\nBFCL: {'valid' if record['valid'] else record['error_type']} {record.get('error') or ''}"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("results", type=Path, nargs="+", help="one or more results files")
    parser.add_argument("--all", action="store_true", help="every entry each framework ran")
    parser.add_argument("--errors", type=int, default=0, help="the N most common error types")
    parser.add_argument("--json", action="store_true", help="the records' summary as JSON")
    parser.add_argument("--show", default=None, help="an entry id: its run, turn by turn")
    parser.add_argument("--framework", default=None, help="with --show: whose run")
    args = parser.parse_args(argv)
    records = load(*args.results)
    if args.show:
        for record in records:
            if record["id"] == args.show and args.framework in (None, record["framework"]):
                print(transcript(record), end="\n\n")
        return 0
    if args.json:
        summary = {
            f"{f}@{s}": {c: len(rs) for c, rs in by.items()}
            for (f, s), by in _rows(records).items()
        }
        print(json.dumps(summary, indent=1))
        return 0
    print(table(records, same_entries=not args.all))
    if args.errors:
        print(errors(records, args.errors))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Tables and plots of the real-model benchmark, from the run records ``run`` wrote.

    python -m benchmarks.real.report benchmarks/results/real                 # summary.md, plots/
    python -m benchmarks.real.report benchmarks/results/real --plots docs/img/benchmarks/real

One row per model, task, temperature and framework: gathered (every required fact in some
successful tool result), the share of the facts found (the mean over runs of the required
facts the answer holds), success (every fact in the answer), model calls,
prompt and completion tokens as the server counted them, wall time, stop reasons, and
prefix reuse. The plots use ``benchmarks/_plots.py`` (matplotlib, the "bench" extra).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from benchmarks.real.rows import ROWS
from benchmarks.real.tasks import TASKS

TASK_TITLES = {
    "article": "the article's task",
    "eight": "eight cities then a search",
    "lines": "four cities, one line each",
    "error": "pinyin city names (the tool's ERROR must be read)",
}


def load(out: Path) -> list[dict[str, Any]]:
    """Every run record under ``out/runs``."""
    return [
        json.loads(p.read_text(encoding="utf-8"))
        for p in sorted(out.glob("runs/*/*/*/seed-*.json"))
    ]


def _mean(values: list[float]) -> float:
    return statistics.fmean(values) if values else 0.0


def summarise(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per (model, task, framework), in model, task and row order."""
    groups: dict[tuple[str, str, str, float], list[dict[str, Any]]] = {}
    for r in records:
        where = (r["model"], r["task"], r["framework"], r.get("temperature", 0.7))
        groups.setdefault(where, []).append(r)
    order = {k: i for i, k in enumerate(ROWS)}
    tasks = {k: i for i, k in enumerate(TASKS)}
    rows = []
    for (model, task, key, temperature), runs in sorted(
        groups.items(),
        key=lambda g: (
            g[0][0] != "1.5b",
            g[0][0],
            tasks.get(g[0][1], 99),
            g[0][3],
            order.get(g[0][2], 99),
        ),
    ):
        calls = [c for r in runs for c in r["per_call"]]
        later = [c for r in runs for c in r["per_call"][1:]]
        shares = [c["prefix_share"] for c in later if c["prefix_share"] is not None]
        kept = [c["previous_kept"] for c in later if c.get("previous_kept") is not None]
        prompt_total = sum(c["prompt_tokens"] or 0 for c in calls)
        rendered = [c for c in calls if c["rendered_tokens"] is not None and c["prompt_tokens"]]
        longest = max((len(r["per_call"]) for r in runs), default=0)
        per_call = [
            _mean([r["per_call"][i]["prompt_tokens"] or 0 for r in runs if len(r["per_call"]) > i])
            for i in range(longest)
        ]
        rows.append({
            "model": model, "task": task, "key": key, "temperature": temperature,
            "framework": ROWS[key].label if key in ROWS else key,
            "runs": len(runs),
            "seeds": sorted(r["seed"] for r in runs),
            "success": _mean([float(r["success"]) for r in runs]),
            # Runs recorded before the column existed have no verdict: None, shown as "—".
            "gathered": _mean([float(r["gathered"]) for r in runs]) if all("gathered" in r for r in runs) else None,
            "facts": _mean([_facts_found(r) for r in runs]),
            "llm_calls": _mean([r["calls"] for r in runs]),
            "prompt_tokens": _mean([r["prompt_tokens"] for r in runs]),
            "completion_tokens": _mean([r["completion_tokens"] for r in runs]),
            "wall_s": _mean([r["wall_s"] for r in runs]),
            "wall_s_median": statistics.median([r["wall_s"] for r in runs]),
            "stops": dict(Counter(r["stop"] for r in runs)),
            "prefix_share": _mean(shares) if shares else None,
            "previous_kept": _mean(kept) if kept else None,
            "server_reuse": sum(c["server_reused"] for c in calls) / prompt_total if prompt_total else 0.0,
            "render_checked": sum(c["rendered_tokens"] == c["prompt_tokens"] for c in rendered) / len(rendered) if rendered else 0.0,
            "first_input_rejected": _mean([float(r["first_weather_error"]) for r in runs]),
            "load": _mean([r["load_before"] for r in runs]),
            "per_call_prompt_tokens": per_call,
        })  # fmt: skip
    return rows


def _facts_found(run: dict[str, Any]) -> float:
    """The share of the task's required facts in the run's answer (0 without one).

    Success needs all of them; this tells a run that dropped one temperature from a run
    that answered nothing, which success alone ties at 0.
    """
    facts = run.get("facts") or {}
    return sum(bool(v) for v in facts.values()) / len(facts) if facts else 0.0


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"


def markdown(rows: list[dict[str, Any]]) -> str:
    """A table per model and task."""
    out: list[str] = []
    head = (
        "| framework | runs | gathered | facts found | success | model calls | prompt tok | completion tok"
        " | wall s (mean / median)"
        " | prefix repeated | previous kept | server reused | stop reasons |"
    )
    seen: set[tuple[str, str, float]] = set()
    for row in rows:
        where = (row["model"], row["task"], row["temperature"])
        if where not in seen:
            seen.add(where)
            title = TASK_TITLES.get(row["task"], row["task"])
            loops = TASKS[row["task"]].max_loops if row["task"] in TASKS else "?"
            heading = f"**{row['model']}, {title}** (temperature {row['temperature']:g}, max_loops {loops})"
            out += ["", heading, "", head,
                    "|" + "---|" * (head.count("|") - 1)]  # fmt: skip
        stops = ", ".join(
            f"{k} {v}" for k, v in sorted(row["stops"].items(), key=lambda kv: -kv[1])
        )
        out.append(
            f"| {row['framework']} | {row['runs']} | {_share(row['gathered'])} | {row['facts']:.0%}"
            f" | **{row['success']:.0%}**"
            f" | {row['llm_calls']:.1f}"
            f" | {row['prompt_tokens']:,.0f} | {row['completion_tokens']:,.0f}"
            f" | {row['wall_s']:.0f} / {row['wall_s_median']:.0f} | {_share(row['prefix_share'])}"
            f" | {_share(row['previous_kept'])}"
            f" | {row['server_reuse']:.0%} | {stops} |"
        )
    return "\n".join(out).lstrip("\n") + "\n"


def plots(rows: list[dict[str, Any]], folder: Path) -> list[Path]:
    """Success, prompt tokens, prefix reuse and per-call prompt tokens, as SVG."""
    from benchmarks import _plots

    results: dict[str, list[dict[str, Any]]] = {}
    models = sorted({r["model"] for r in rows}, key=lambda m: (m != "1.5b", m))
    tasks = list(TASKS)
    for row in rows:
        # Sections are drawn in name order: the 1.5B model first, then the tasks' order.
        rank = (
            f"{models.index(row['model'])}{tasks.index(row['task']) if row['task'] in tasks else 9}"
        )
        temp = f"_t{row['temperature']:g}".replace(".", "_")
        section = f"real{rank}_{row['model'].replace('.', '_')}_{row['task']}{temp}"
        title = TASK_TITLES.get(row["task"], row["task"])
        _plots.TITLES[section] = f"{row['model']}: {title} (temperature {row['temperature']:g})"
        results.setdefault(section, []).append(row)
    folder.mkdir(parents=True, exist_ok=True)
    # A row whose runs made one call each has no share: left out of that panel, not drawn 0.
    with_share = {
        section: [
            {k: v for k, v in r.items() if k != "prefix_share" or v is not None} for r in part
        ]
        for section, part in results.items()
    }
    made = [
        _plots._bars(results, "success", "success: the tools' facts in the answer (%)", folder / "success.svg", True),
        _plots._bars(results, "prompt_tokens", "prompt tokens per run (mean, as the server counts)", folder / "prompt_tokens.svg", False),
        _plots._bars(with_share, "prefix_share", "share of a prompt repeating the previous one from its start (%)", folder / "prefix_share.svg", True),
        _plots._bars(results, "wall_s", "wall seconds per run (mean; the machine was shared)", folder / "wall_s.svg", False),
    ]  # fmt: skip
    return [p for p in made if p is not None] + _plots._per_call(results, folder)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path, help="the folder run wrote (its runs/ inside)")
    parser.add_argument("--plots", type=Path, default=None, help="plot folder (default: OUT/plots)")
    args = parser.parse_args(argv)
    rows = summarise(load(args.out))
    if not rows:
        print(f"no run records under {args.out}/runs", file=sys.stderr)
        return 1
    (args.out / "summary.json").write_text(
        json.dumps(rows, ensure_ascii=False, indent=1), encoding="utf-8"
    )
    table = markdown(rows)
    (args.out / "summary.md").write_text(table, encoding="utf-8")
    print(table)
    try:
        for path in plots(rows, args.plots or args.out / "plots"):
            print(f"wrote {path}")
    except ImportError as exc:  # matplotlib is in the "bench" extra
        print(f"no plots: {exc}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

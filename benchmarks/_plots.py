"""SVG plots of a benchmark run, from the JSON that run_all.py writes (matplotlib, "bench" extra).

    python benchmarks/_plots.py                                   # results/latest.json -> results/plots/
    python benchmarks/_plots.py results/latest.json --out docs/img/benchmarks   # the docs' copies

run_all.py calls :func:`write_plots` after each run. Every task section of the
results (``task``, ``long_task``, and any other list of framework rows) gets its
bars; a plot whose data the results do not hold is left out with a note, never
drawn empty. The SVGs are reproducible: no date, a fixed id salt, text as text.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: Sections of the results that are task tables (one row per framework), in display order.
KNOWN_SECTIONS = ("task", "task_noise_b", "long_task", "long_task_noise_b", "stress_task")
TITLES = {
    "task": "the article's task, profile A",
    "task_noise_b": "the article's task, profile B",
    "long_task": "eight cities + search, profile A",
    "long_task_noise_b": "eight cities + search, profile B",
    "stress_task": "stress: 22 cities + 3 searches",
}


def task_sections(results: dict[str, Any]) -> list[str]:
    """Names of the sections that hold framework rows, known ones first."""

    def is_table(value: Any) -> bool:
        return (
            isinstance(value, list)
            and bool(value)
            and all(isinstance(r, dict) and "framework" in r for r in value)
        )

    known = [s for s in KNOWN_SECTIONS if is_table(results.get(s))]
    others = sorted(k for k, v in results.items() if k not in KNOWN_SECTIONS and is_table(v))
    return known + others


def _rows(results: dict[str, Any], section: str) -> list[dict[str, Any]]:
    return [r for r in results[section] if "unavailable" not in r]


def _pyplot() -> Any:
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams.update(
        {"svg.hashsalt": "lcel_agent", "svg.fonttype": "none", "font.size": 9}
    )
    import matplotlib.pyplot as plt

    return plt


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, format="svg", metadata={"Date": None})
    fig.clear()
    return path


def _bars(results: dict[str, Any], key: str, label: str, path: Path, percent: bool) -> Path | None:
    """One horizontal bar panel per task section: ``key`` per framework."""
    sections = [s for s in task_sections(results) if any(key in r for r in _rows(results, s))]
    if not sections:
        return None
    plt = _pyplot()
    height = sum(len(_rows(results, s)) for s in sections) * 0.28 + 0.9 * len(sections)
    fig, axes = plt.subplots(len(sections), 1, figsize=(7.5, height), squeeze=False)
    for ax, section in zip(axes[:, 0], sections, strict=True):
        rows = [r for r in _rows(results, section) if key in r]
        names = [r["framework"] for r in rows]
        values = [r[key] * (100 if percent else 1) for r in rows]
        colours = ["#3b5bdb" if n.startswith("lcel_agent") else "#adb5bd" for n in names]
        ax.barh(names, values, color=colours)
        ax.invert_yaxis()
        counts = sorted({r.get("runs", 0) for r in rows})
        runs = (
            f"{counts[0]} runs each" if len(counts) == 1 else f"{counts[0]}–{counts[-1]} runs a row"
        )
        ax.set_title(f"{TITLES.get(section, section)} ({runs})", loc="left")
        ax.set_xlabel(label)
        if percent:
            ax.set_xlim(0, 105)
        for y, value in enumerate(values):
            ax.text(value, y, f" {value:,.0f}{'%' if percent else ''}", va="center", fontsize=8)
        ax.margins(x=0.12)
    return _save(fig, path)


def _per_call(results: dict[str, Any], out: Path) -> list[Path]:
    """Mean prompt tokens of call 1, 2, ... per framework: the window against growing scratchpads."""
    plt = _pyplot()
    paths = []
    for section in task_sections(results):
        rows = [r for r in _rows(results, section) if r.get("per_call_prompt_tokens")]
        if not rows:
            continue
        fig, ax = plt.subplots(figsize=(7.5, 5.2))
        for row in rows:
            series = row["per_call_prompt_tokens"]
            ours = row["framework"].startswith("lcel_agent")
            ax.plot(
                range(1, len(series) + 1), series, marker="o", markersize=3,
                linewidth=2 if ours else 1.2, linestyle="-" if ours else "--",
                label=row["framework"],
            )  # fmt: skip
        ax.set_title(f"Prompt tokens per call: {TITLES.get(section, section)}", loc="left")
        ax.set_xlabel("model call")
        ax.set_ylabel("mean prompt tokens")
        # Below the axes: inside, the legend hides the curves it names.
        ax.legend(fontsize=7, ncol=2, loc="upper center", bbox_to_anchor=(0.5, -0.14))
        fig.subplots_adjust(bottom=0.33)
        paths.append(_save(fig, out / f"per_call_prompt_tokens_{section}.svg"))
    return paths


def _memory(results: dict[str, Any], path: Path) -> Path | None:
    """Seconds per add (with its trim) against the window's length, log-log."""
    data = results.get("memory_scaling_data")
    rows = data.get("scaling") if isinstance(data, dict) else None
    if not rows:
        return None
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7.5, 3.6))
    windows = [r["window"] for r in rows]
    for key, label, style in (
        ("ours_estimate_s", "SlidingWindowMemory, estimate", "-"),
        ("ours_tiktoken_s", "SlidingWindowMemory, tiktoken", "-"),
        ("article_s", "the article's memory (recount everything)", "--"),
    ):
        ax.plot(windows, [r[key] * 1e6 for r in rows], style, marker="o", markersize=3, label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("window length (messages)")
    ax.set_ylabel("µs per message added (trim included)")
    ax.set_title("Memory cost per message against window length", loc="left")
    ax.legend(fontsize=8)
    return _save(fig, path)


def write_plots(results: dict[str, Any], out: Path) -> tuple[list[Path], list[str]]:
    """Write every plot the results can feed into ``out``; return the files and notes."""
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    notes: list[str] = []
    for made, missing in (
        (_bars(results, "success", "success (%)", out / "success.svg", True), "no success figures"),
        (
            _bars(results, "prompt_tokens", "prompt tokens per run (mean)", out / "prompt_tokens.svg", False),
            "no prompt token figures",
        ),
        (_memory(results, out / "memory_scaling.svg"), "no memory_scaling_data (memory_scaling.py --json)"),
    ):  # fmt: skip
        if made is None:
            notes.append(missing)
        else:
            written.append(made)
    per_call = _per_call(results, out)
    if not per_call:
        notes.append("no per_call_prompt_tokens in any task row")
    written += per_call
    return written, notes


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "results", nargs="?", type=Path, default=ROOT / "benchmarks" / "results" / "latest.json"
    )
    parser.add_argument("--out", type=Path, default=None, help="folder (default: results/plots)")
    args = parser.parse_args(argv)
    results = json.loads(args.results.read_text(encoding="utf-8"))
    written, notes = write_plots(results, args.out or args.results.parent / "plots")
    for path in written:
        print(f"wrote {path}")
    for note in notes:
        print(f"skipped: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Run BFCL v4 through every framework on one local model, side by side; resumable.

    python -m benchmarks.bfcl.run --n 30                    # make bench-bfcl
    python -m benchmarks.bfcl.run --quick                   # make bench-bfcl-quick
    python -m benchmarks.bfcl.run --categories multi_turn_base --frameworks lcel-json,executor \\
        --ids 0,2,4 --out benchmarks/results/bfcl/dev
    python -m benchmarks.bfcl.run --frameworks lc-agent@llama-cpp-python   # a row on the other server

For each server a row needs (one at a time, on a free loopback port), category by
category, entry by entry, every framework on that server runs the entry once: the same
model (Qwen2.5-Coder 1.5B), temperature 0.001, completion cap and entries for all. Each
finished entry is one line of ``OUT/results.jsonl``: run the same command again after an
interruption and it goes on where it stopped. Progress goes to the terminal, turn by
turn; lcel_agent's runs also leave their HTML reports in ``OUT/html/`` (one page per
turn: ``AgentResult.to_html()``). The table is printed at the end (``report``).

Entries with even ids are for development (the default); ``--parity odd`` takes the
held-out ones for a final check.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from benchmarks.bfcl import report
from benchmarks.bfcl.entries import (
    CATEGORIES,
    DEFAULT_CATEGORIES,
    QUICK_IDS,
    ground_truth,
    is_multi_turn,
    select,
)
from benchmarks.bfcl.harness import EntryRun, run_entry
from benchmarks.bfcl.rows import ROWS, Row
from benchmarks.bfcl.servers import MAX_TOKENS, SEED, SERVERS, TEMPERATURE, chat_model, start_server
from benchmarks.bfcl.store import ResultsFile, key
from benchmarks.real.models import MODELS, ROOT, models_dir
from benchmarks.real.run import versions as package_versions

PACKAGES = ("lcel-agent", "langchain-core", "langchain-openai", "openai", "langchain",
            "langchain-classic", "langgraph", "bfcl-eval")  # fmt: skip
MODEL = "1.5b"


def versions() -> dict[str, str]:
    """The packages' versions, the commit and lcel_agent's own tree."""
    found = package_versions(PACKAGES)
    done = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        check=False,
    )  # fmt: skip
    found["lcel-agent commit"] = done.stdout.strip() or "unknown"
    # The library's own tree: the harness's commits change the commit, never this.
    tree = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD:lcel_agent"], capture_output=True,
        text=True, check=False,
    )  # fmt: skip
    found["lcel_agent tree"] = tree.stdout.strip() or "unknown"
    return found


def parse_rows(text: str) -> list[tuple[Row, str]]:
    """``lcel-json,lc-agent@llama-cpp-python`` -> rows with the server each runs on."""
    rows = []
    for item in (k.strip() for k in text.split(",") if k.strip()):
        name, _, server = item.partition("@")
        if name not in ROWS:
            raise SystemExit(f"unknown framework {name!r} (known: {', '.join(ROWS)})")
        server = server or ROWS[name].server
        if server not in SERVERS:
            raise SystemExit(f"unknown server {server!r} (known: {', '.join(SERVERS)})")
        rows.append((ROWS[name], server))
    return rows


def plan(
    rows: list[tuple[Row, str]], categories: list[str], args: argparse.Namespace
) -> Iterator[tuple[str, str, dict[str, Any], Row]]:
    """(server, category, entry, row), server by server, then entry-major within a category.

    Entry-major order gives every row about as many entries as the others when a run is
    cut short.
    """
    given = [int(i) for i in args.ids.split(",")] if args.ids else None
    for server in SERVERS:
        on_server = [row for row, s in rows if s == server]
        if not on_server:
            continue
        for category in categories:
            n = args.n_multi if is_multi_turn(category) and args.n_multi is not None else args.n
            ids = QUICK_IDS[category] if args.quick else given
            for entry in select(category, parity=args.parity, ids=ids, n=n):
                for row in on_server:
                    yield server, category, entry, row


Todo = dict[str, list[tuple[str, dict[str, Any], Row]]]


def pending(
    planned: Iterator[tuple[str, str, dict[str, Any], Row]], store: ResultsFile
) -> tuple[Todo, int]:
    """What is left to run, server by server, and how many planned runs the file already has."""
    todo: Todo = {}
    skipped = 0
    for server, category, entry, row in planned:
        if store.has(key(row.key, server, category, entry["id"])):
            skipped += 1
            continue
        todo.setdefault(server, []).append((category, entry, row))
    return todo, skipped


def _progress(server: str, entry_id: str, row: Row, total_turns: int):
    def on_turn(index: int, turn: dict[str, Any]) -> None:
        calls = sum(len(s) for s in turn["steps"])
        print(
            f"  [{server}] {entry_id} {row.key:<10} turn {index + 1}/{total_turns}: "
            f"{turn['stop']:<14} model calls={turn['model_calls']:<2} tool calls={calls:<2} "
            f"{turn['wall_s']:.0f}s",
            flush=True,
        )

    return on_turn


def _write_html(out: Path, row: Row, entry_id: str, run: EntryRun) -> None:
    for index, result in enumerate(run.results):
        if result is not None:
            path = out / "html" / row.key / entry_id / f"turn-{index + 1}.html"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(result.to_html(), encoding="utf-8")


def run_server(server: str, todo: list[tuple[str, dict[str, Any], Row]], args: argparse.Namespace,
               store: ResultsFile, done_before: int, total: int) -> int:  # fmt: skip
    model_file = (args.models_dir or models_dir()) / MODELS[MODEL].filename
    venv = args.llama_venv if server == "llama-cpp-python" else args.llama_server_venv
    log = args.out / f"server-{server}.log"
    meta = {"model_file": model_file.name, "temperature": TEMPERATURE, "max_tokens": MAX_TOKENS,
            "seed": SEED, "threads": args.threads, "versions": versions()}  # fmt: skip
    count = done_before
    with start_server(server, model_file, log, venv=venv, threads=args.threads) as live:
        print(f"[{server}] on {live.base_url}", flush=True)
        llm = chat_model(live.base_url)
        for category, entry, row in todo:
            truth = ground_truth(category).get(entry["id"])
            turns = len(entry["question"])
            load = os.getloadavg()[0]
            run = run_entry(entry, truth, row.turn, llm,
                            on_turn=_progress(server, entry["id"], row, turns))  # fmt: skip
            died = not live.alive()
            record = {"framework": row.key, "label": row.label, "server": server,
                      "category": category, **run.record, "server_died": died,
                      "load_before": round(load, 2), "load_after": round(os.getloadavg()[0], 2),
                      **meta}  # fmt: skip
            store.append(record)
            if died:
                # What the framework sent killed the server (llama-cpp-python 0.3.36 dies on
                # a grammar it cannot parse): that is the entry's result; the next one gets
                # a fresh server.
                print(f"[{server}] the server died during {entry['id']} ({row.key}); "
                      f"restarting it (log: {log})", flush=True)  # fmt: skip
                live.stop()
                live.start()
                llm = chat_model(live.base_url)
            if not args.no_html:
                _write_html(args.out, row, entry["id"], run)
            count += 1
            verdict = "ok  " if record["valid"] else "FAIL"
            print(
                f"[{server}] {entry['id']:<26} {row.key:<10} {verdict} "
                f"{record['error_type'] or '':<42} model calls={record['model_calls']:<3} "
                f"prompt={record['prompt_tokens']:<7} wall={record['wall_s']:.0f}s "
                f"({count}/{total})",
                flush=True,
            )
    return count


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument(
        "--categories",
        default=",".join(DEFAULT_CATEGORIES),
        help=f"comma-separated: {','.join(CATEGORIES)}",
    )
    parser.add_argument(
        "--frameworks",
        default=",".join(ROWS),
        help="comma-separated KEY or KEY@SERVER; keys: " + ",".join(ROWS),
    )
    parser.add_argument("--n", type=int, default=30, help="entries per category")
    parser.add_argument(
        "--n-multi", type=int, default=None, help="entries per multi-turn category (default: --n)"
    )
    parser.add_argument("--ids", default=None, help="comma-separated entry numbers")
    parser.add_argument("--parity", choices=("even", "odd", "all"), default="even")
    parser.add_argument(
        "--quick", action="store_true", help="one short even entry per category (entries.QUICK_IDS)"
    )
    parser.add_argument(
        "--out", type=Path, default=ROOT / "benchmarks" / "results" / "bfcl" / "run"
    )
    parser.add_argument(
        "--models-dir", type=Path, default=None, help="default: $LCEL_MODELS_DIR or .models/"
    )
    parser.add_argument("--llama-venv", type=Path, default=ROOT / ".venv-llama")
    parser.add_argument("--llama-server-venv", type=Path, default=ROOT / ".venv-llama-server")
    parser.add_argument("--threads", type=int, default=2, help="the server's threads")
    parser.add_argument("--no-html", action="store_true", help="skip lcel_agent's HTML reports")
    args = parser.parse_args(argv)  # fmt: skip
    categories = [c.strip() for c in args.categories.split(",") if c.strip()]
    unknown = [c for c in categories if c not in CATEGORIES]
    if unknown:
        raise SystemExit(
            f"unknown categories: {', '.join(unknown)} (known: {', '.join(CATEGORIES)})"
        )
    rows = parse_rows(args.frameworks)
    args.out.mkdir(parents=True, exist_ok=True)
    store = ResultsFile(args.out / "results.jsonl")
    # SIGTERM (a killed make, a CI timeout) unwinds like Ctrl-C: the server is stopped.
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    todo, skipped = pending(plan(rows, categories, args), store)
    total = skipped + sum(len(v) for v in todo.values())
    print(f"{total - skipped} entry runs to do ({skipped} already in {store.path})", flush=True)
    start, count = time.perf_counter(), skipped
    try:
        for server, runs in todo.items():
            count = run_server(server, runs, args, store, count, total)
    except KeyboardInterrupt:
        print("interrupted: the server is stopped; the same command goes on from here",
              file=sys.stderr)  # fmt: skip
        return 130
    print(
        f"{count - skipped} entry runs in {(time.perf_counter() - start) / 60:.1f} min", flush=True
    )
    print(report.table(list(store.records())))
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Memory window cost vs. window length, and the token estimate's error and cost.

    python benchmarks/memory_scaling.py           # all tables (about a minute)
    python benchmarks/memory_scaling.py --quick   # windows up to 10,000 messages
    python benchmarks/memory_scaling.py --fit     # refit the estimate's weights
    python benchmarks/memory_scaling.py --json out.json   # also table 1 as data (for the plots)

Table 1 is the cost of one add (including its trim) in the steady state, where
every add evicts, for windows of 10 … 100,000 messages: SlidingWindowMemory
(incremental token count, whole-turn eviction) against the article's memory,
which recounts the whole window (length x 1.5 if any Chinese, else x 0.5) after
every add and every pop. Table 2 is the error of each estimate against the real
tokenizers (o200k_base = gpt-4o-mini's, and cl100k_base) on the held-out and
calibration texts of tests/memory/memory_corpus.py; table 3 their cost per call.
"""

from __future__ import annotations

import argparse
import importlib.util
import itertools
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from lcel_agent.memory import SlidingWindowMemory
from lcel_agent.memory.counters import (
    TiktokenCounter,
    char_classes,
    estimate_tokens,
    make_estimator,
)

ROOT = Path(__file__).resolve().parent.parent


def load_corpus() -> Any:
    spec = importlib.util.spec_from_file_location(
        "memory_corpus", ROOT / "tests" / "memory" / "memory_corpus.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# --- the article's memory, as published (the baseline) ---------------------------------


class ArticleMemory:
    """Recount every message after every change; pop the oldest message, not turn."""

    def __init__(self, max_tokens: float) -> None:
        self.messages: list[BaseMessage] = []
        self.max_tokens = max_tokens

    @staticmethod
    def _total(messages: list[BaseMessage]) -> float:
        return sum(
            len(str(m.content))
            * (1.5 if any("\u4e00" <= c <= "\u9fff" for c in str(m.content)) else 0.5)
            for m in messages
        )

    def add(self, message: BaseMessage) -> None:
        self.messages.append(message)
        total = self._total(self.messages)
        while total > self.max_tokens and len(self.messages) > 2:
            self.messages.pop(0)
            total = self._total(self.messages)


def step_messages() -> list[BaseMessage]:
    corpus = load_corpus()
    actions = corpus.CALIBRATION["json"]
    results = corpus.CALIBRATION["tool"]
    messages: list[BaseMessage] = []
    for action, result in zip(itertools.cycle(actions), results, strict=False):
        messages += [AIMessage(action), HumanMessage(result)]
    return messages


def per_message(add: Callable[[BaseMessage], None], stream: list[BaseMessage], n: int) -> float:
    start = time.perf_counter()
    for i in range(n):
        add(stream[i % len(stream)])
    return (time.perf_counter() - start) / n


def scaling(lengths: list[int]) -> list[dict[str, float]]:
    stream = step_messages()
    exact = TiktokenCounter("o200k_base")
    rows: list[dict[str, float]] = []
    print("\n1. add + trim, seconds per message, steady state (every add evicts)")
    print(
        f"{'window (messages)':>18} {'ours, estimate':>16} {'ours, tiktoken':>16} {'article':>14}"
    )
    for length in lengths:
        row = []
        for counter in (estimate_tokens, exact):
            # Size the budget so the window holds `length` messages, then fill it.
            probe = SlidingWindowMemory(10**12, counter)
            probe.add_system("Reply with one JSON action.")
            probe.add_user("八个城市的天气如何？")
            for i in range(length):
                probe.add(stream[i % len(stream)])
            memory = SlidingWindowMemory(probe.token_count, counter)
            memory.extend(probe.messages)
            row.append(per_message(memory.add, stream, 20_000 if length < 10_000 else 5_000))
        article = ArticleMemory(0)
        article.messages = [SystemMessage("Reply."), HumanMessage("八个城市的天气如何？")] + [
            stream[i % len(stream)] for i in range(length)
        ]
        article.max_tokens = ArticleMemory._total(article.messages)
        row.append(per_message(article.add, stream, max(3, min(2_000, 200_000 // length))))
        print(f"{length:>18,} " + " ".join(f"{x * 1e6:>13.1f} µs" for x in row))
        keys = ("ours_estimate_s", "ours_tiktoken_s", "article_s")
        rows.append({"window": length, **dict(zip(keys, row, strict=True))})
    return rows


# --- the estimate ---------------------------------------------------------------------


def article_rule(text: str) -> float:
    return len(text) * (1.5 if any("\u4e00" <= c <= "\u9fff" for c in text) else 0.5)


def errors() -> None:
    corpus = load_corpus()
    exact = {name: TiktokenCounter(name) for name in ("o200k_base", "cl100k_base")}
    rules: dict[str, Callable[[str], float]] = {
        "estimate (o200k weights)": make_estimator("o200k_base"),
        "estimate (cl100k weights)": make_estimator("cl100k_base"),
        "article (x1.5 / x0.5)": article_rule,
        "chars / 4": lambda t: len(t) / 4,
    }
    print("\n2. estimate error vs. the real tokenizer, total tokens per category (signed %)")
    for split in ("HELD_OUT", "CALIBRATION"):
        texts_by_category: dict[str, list[str]] = getattr(corpus, split)
        for enc_name, counter in exact.items():
            print(f"\n{split.lower()} vs {enc_name}")
            cats = sorted(texts_by_category)
            print(f"{'':>26}" + "".join(f"{c:>9}" for c in cats) + f"{'worst text':>12}")
            for label, rule in rules.items():
                cells, worst = [], 0.0
                for cat in cats:
                    texts = texts_by_category[cat]
                    true = sum(counter(t) for t in texts)
                    cells.append(sum(rule(t) for t in texts) / true - 1)
                    worst = max([worst] + [abs(rule(t) / counter(t) - 1) for t in texts])
                print(f"{label:>26}" + "".join(f"{c:>+9.1%}" for c in cells) + f"{worst:>12.0%}")


def costs() -> None:
    corpus = load_corpus()
    exact = TiktokenCounter("o200k_base")
    short = corpus.HELD_OUT["mixed"][0]
    long = "\n".join(t for texts in corpus.CALIBRATION.values() for t in texts) * 4
    print("\n3. cost per call")
    print(f"{'text':>22} {'estimate_tokens':>16} {'tiktoken o200k':>16} {'article rule':>14}")
    for label, text in ((f"{len(short)} chars", short), (f"{len(long):,} chars", long)):
        n = 20_000 if len(text) < 1000 else 300
        row = []
        for fn in (estimate_tokens, exact, article_rule):
            start = time.perf_counter()
            for _ in range(n):
                fn(text)
            row.append((time.perf_counter() - start) / n)
        print(f"{label:>22} " + " ".join(f"{x * 1e6:>13.1f} µs" for x in row))


# --- fitting (run once, by hand; the result is pasted into lcel_agent/memory/_estimate.py) -------


def solve(matrix: list[list[float]], vector: list[float]) -> list[float]:
    """Gaussian elimination with partial pivoting (the normal equations are 6x6)."""
    n = len(vector)
    a = [[*row, v] for row, v in zip(matrix, vector, strict=True)]
    for col in range(n):
        pivot = max(range(col, n), key=lambda r: abs(a[r][col]))
        a[col], a[pivot] = a[pivot], a[col]
        for r in range(n):
            if r != col and a[col][col]:
                f = a[r][col] / a[col][col]
                a[r] = [x - f * y for x, y in zip(a[r], a[col], strict=True)]
    return [a[i][n] / a[i][i] if a[i][i] else 0.0 for i in range(n)]


def fit() -> None:
    corpus = load_corpus()
    for enc_name in ("o200k_base", "cl100k_base"):
        counter = TiktokenCounter(enc_name)
        # Minimise the relative error: divide each text's row by its true count.
        rows = []
        for texts in corpus.CALIBRATION.values():
            for text in texts:
                true = counter(text)
                rows.append([x / true for x in char_classes(text)])
        k = len(rows[0])
        normal = [[sum(r[i] * r[j] for r in rows) for j in range(k)] for i in range(k)]
        rhs = [sum(r[i] for r in rows) for i in range(k)]
        weights = solve(normal, rhs)
        print(f'"{enc_name}": ({", ".join(f"{w:.4f}" for w in weights)}),  # {len(rows)} texts')


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--quick", action="store_true", help="windows up to 10,000 messages")
    parser.add_argument("--fit", action="store_true", help="print refitted estimate weights")
    parser.add_argument("--json", type=Path, default=None, help="write table 1 as JSON here")
    args = parser.parse_args(argv)
    if args.fit:
        fit()
        return 0
    print(f"python {sys.version.split()[0]}")
    rows = scaling([10, 100, 1_000, 10_000] if args.quick else [10, 100, 1_000, 10_000, 100_000])
    if args.json is not None:
        args.json.write_text(json.dumps({"scaling": rows}, indent=1), encoding="utf-8")
    errors()
    costs()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

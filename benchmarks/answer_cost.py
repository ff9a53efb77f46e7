"""What deciding about the answer costs: the answer stage's judge on many large results.

Issue 34 asks that deciding whether the model's own answer stands be linear in the size of
the results: 30 results of 4 kB in under 50 ms on one core, nothing CPU-heavy on the event
loop. This times :func:`lcel_agent.stages.answer.judge` (the echo check and every omission
rule) on shapes that were slow before (round 4's ``unused()`` took 12 s on 10 sibling JSON
results of 1.3 kB, ``copies()`` 3-25 s on 30 results of 4 kB)::

    python benchmarks/answer_cost.py            # a table of median milliseconds
    python benchmarks/answer_cost.py --json     # the same as JSON

Each shape is timed ``--repeat`` times (default 7) after one warm-up, in CPU time of this
process (the work of one core: a busy machine slows the wall clock, not this); the median
is reported with the total size of the results.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from lcel_agent.rules.gathered import Result  # noqa: E402
from lcel_agent.stages.answer import copies, omitted  # noqa: E402

BUDGET_MS = 50.0


def json_siblings(n: int, size: int, seed: int = 0) -> list[Result]:
    """``n`` JSON records of one shape, about ``size`` characters each."""
    rng = random.Random(seed)
    results = []
    for i in range(n):
        record = {"id": f"item-{i}", "owner": f"user{i}", "stars": rng.randint(10, 9999),
                  "tags": [f"tag{rng.randint(0, 99)}" for _ in range(8)]}  # fmt: skip
        record["notes"] = " ".join(f"word{rng.randint(0, 9999)}" for _ in range(size // 9))
        results.append(Result("get_repo", f"item-{i}", json.dumps(record)[:size]))
    return results


def prose_results(n: int, size: int, seed: int = 1) -> list[Result]:
    """``n`` pages of prose of about ``size`` characters (a search then fetches)."""
    rng = random.Random(seed)
    words = [f"term{i}" for i in range(3000)]
    return [
        Result("fetch", f"https://example.com/{i}", " ".join(rng.choice(words) for _ in range(size // 8))[:size])
        for i in range(n)
    ]  # fmt: skip


def chinese_lines(n: int, seed: int = 2) -> list[Result]:
    """``n`` weather records as Amap's, one per city (short, one template)."""
    rng = random.Random(seed)
    cities = [f"城{i}" for i in range(n)]
    return [
        Result("get_weather", c, f"{c}市（{c}，adcode {100000 + i}）实时天气：晴，温度{rng.randint(3, 39)}℃，湿度{rng.randint(10, 99)}%")
        for i, c in enumerate(cities)
    ]  # fmt: skip


def _answer(results: list[Result]) -> str:
    # An answer that speaks of every result by its subject and quotes a little of each.
    return "\n".join(f"{r.subject}: {r.text[40:90]}" for r in results)


def time_it(fn: Callable[[], object], repeat: int) -> float:
    """Median CPU milliseconds of ``fn`` (process time: one core's work, whatever else runs)."""
    fn()
    samples = []
    for _ in range(repeat):
        started = time.process_time()
        fn()
        samples.append((time.process_time() - started) * 1000)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    shapes = {
        "30 JSON siblings x 4 kB": json_siblings(30, 4000),
        "20 JSON siblings x 1.3 kB": json_siblings(20, 1300),
        "30 prose pages x 4 kB": prose_results(30, 4000),
        "200 weather records": chinese_lines(200),
    }
    rows = []
    for name, results in shapes.items():
        answer = _answer(results)
        texts = [r.text for r in results]
        question = "Tell me about " + ", ".join(r.subject for r in results)

        def judge(results: list[Result] = results, answer: str = answer, texts: list[str] = texts,
                  question: str = question) -> object:  # fmt: skip
            return copies(answer, texts), omitted(answer, results, question)

        ms = time_it(judge, args.repeat)
        rows.append(
            {"shape": name, "kB": round(sum(len(t) for t in texts) / 1000, 1), "ms": round(ms, 1)}
        )
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(f"| shape | results kB | median ms (budget {BUDGET_MS:g}) |\n|---|---|---|")
        for row in rows:
            print(f"| {row['shape']} | {row['kB']} | {row['ms']} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

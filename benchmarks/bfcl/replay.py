"""BFCL's ground truth replayed through the harness: it must score every entry valid.

    python -m benchmarks.bfcl.replay                          # multi_turn_base, all 200
    python -m benchmarks.bfcl.replay --category multi_turn_miss_func --ids 0,49

:class:`GroundTruthReplay` is a framework that makes, turn by turn, exactly the calls
of the ground truth, through the harness's tools (schema mapping, live backends, the
call log, the step limit, miss_func's held-out functions) and BFCL's checker. A harness
that loses, reorders or rewrites a call, or runs it on the wrong backend, scores less
than BFCL's own replay. Known exceptions in BFCL's data (NOTES.md): miss_func_49 calls
``tail`` before it is offered, so a harness that offers only what BFCL offers cannot
replay it.
"""

from __future__ import annotations

import argparse
import ast
import sys
import time
from collections.abc import Sequence
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from benchmarks.bfcl.entries import ground_truth, select
from benchmarks.bfcl.harness import run_entry
from benchmarks.peers import Outcome


def parse_call(text: str, tools: dict[str, BaseTool]) -> tuple[str, dict[str, Any]]:
    """``"mv(source='a', destination='b')"`` -> ``("mv", {"source": "a", ...})``.

    Positional arguments (``sort('final_report.pdf')`` in BFCL's data) take the names of
    the tool's parameters in the order its function doc lists them.
    """
    node = ast.parse(text.strip(), mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a call: {text!r}")
    name = node.func.id
    names = list(tools[name].args) if name in tools else []
    arguments = {names[i]: ast.literal_eval(a) for i, a in enumerate(node.args)}
    arguments |= {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
    return name, arguments


class GroundTruthReplay:
    """A "framework" that makes each turn's ground-truth calls, one model step per turn."""

    def __init__(self, truth: list[list[str]]) -> None:
        self.truth = truth
        self.turn_index = 0

    def __call__(
        self, llm: BaseChatModel, tools: Sequence[BaseTool], history: list[BaseMessage],
        user: list[BaseMessage], *, max_loops: int, config: RunnableConfig,
    ) -> Outcome:  # fmt: skip
        by_name = {t.name: t for t in tools}
        calls = self.truth[self.turn_index] if self.turn_index < len(self.truth) else []
        self.turn_index += 1
        messages: list[BaseMessage] = list(user)
        for text in calls:
            name, arguments = parse_call(text, by_name)
            if name not in by_name:
                messages.append(AIMessage(content=f"(not offered: {name})"))
                continue
            by_name[name].invoke(arguments)
        messages.append(AIMessage(content="Done."))
        return Outcome("final", messages)


def replay(category: str, ids: list[int] | None = None) -> tuple[int, int, list[str]]:
    """(valid, total, the ids that failed, with BFCL's error type) for a category."""
    truths = ground_truth(category)
    entries = select(category, parity="all", ids=ids)
    failed: list[str] = []
    for entry in entries:
        run = run_entry(entry, truths[entry["id"]], GroundTruthReplay(truths[entry["id"]]), None)  # type: ignore[arg-type]  # no model
        if not run.record["valid"]:
            failed.append(f"{entry['id']}: {run.record['error_type']}")
    return len(entries) - len(failed), len(entries), failed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--category", default="multi_turn_base")
    parser.add_argument("--ids", default=None, help="comma-separated entry numbers (default: all)")
    args = parser.parse_args(argv)
    ids = [int(i) for i in args.ids.split(",")] if args.ids else None
    start = time.perf_counter()
    valid, total, failed = replay(args.category, ids)
    print(
        f"{args.category}: ground truth replayed through the harness: {valid}/{total} valid "
        f"({time.perf_counter() - start:.1f} s)"
    )
    for line in failed:
        print(f"  not valid: {line}")
    return 0 if not failed else 1


if __name__ == "__main__":
    sys.exit(main())

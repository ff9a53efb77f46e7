"""Driving one run for ``run`` and ``demo``: the live trace or ``--json``, the report, the status.

:func:`finish` streams the agent's run, shows each loop as it ends (or prints the
result as JSON only), writes ``--report`` and returns the exit status of the stop
reason. On Ctrl-C (or SIGTERM, SIGHUP) the report still shows the loops that finished.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from langchain_core.runnables import RunnableConfig

from .._redact import redact
from ..state import AgentResult, StepRecord
from ._signals import said, settle
from ._status import EXIT_CODES

__all__ = ["Shown", "count", "finish", "refuse", "say", "show"]


def say(text: str) -> None:
    """One line on standard error, ``lcel-agent: ...``, redacted."""
    print(f"lcel-agent: {redact(text)}", file=sys.stderr, flush=True)


def count(n: int, word: str) -> str:
    """``1 loop``, ``3 loops``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def refuse(command: str, text: str) -> None:
    """What a command refuses, as argparse says a usage error: ``lcel-agent run: error:
    ...``, one line on standard error, redacted (the caller exits 2)."""
    print(f"lcel-agent {command}: error: {redact(text)}", file=sys.stderr, flush=True)


def _write_report(result: AgentResult, path: Path | None) -> list[str]:
    """Write the HTML report, if asked for; the lines that say where it went."""
    if path is None:
        return []
    path.write_text(result.to_html(), encoding="utf-8")
    return [f"report: {path}"]


def _interrupted_report(
    task: str, steps: Sequence[StepRecord], path: Path | None, why: str
) -> None:
    """On Ctrl-C (or SIGTERM, SIGHUP): the report of the loops that did finish, if one was
    asked for."""
    if path is None:
        return
    from ..report import render_run
    from ..state import StopReason, Usage

    partial = AgentResult(
        input=task,
        output=None,
        stop_reason=StopReason.MAX_LOOPS,  # replaced below: there is no stop reason for ^C
        loops=len(steps),
        steps=tuple(steps),
        usage=sum((step.usage for step in steps), Usage()),
    ).to_dict()
    partial["stop_reason"] = "interrupted"
    partial["error"] = {
        "step": len(steps),
        "stage": "loop",
        "error_class": "interrupted",
        "message": f"{why} after {len(steps)} finished loop(s)",
    }
    path.write_text(render_run(partial), encoding="utf-8")
    say(f"report of the {len(steps)} loop(s) that finished: {path}")


@dataclass(frozen=True)
class Shown:
    """What a checkpointed run adds to the output: JSON fields, lines after the result."""

    fields: Mapping[str, Any] = field(default_factory=dict)
    """Added to ``--json`` before the result's own (``thread_id``)."""
    notes: Callable[[AgentResult], Sequence[str]] = lambda result: ()
    """Lines after the result (on standard error with ``--json``): what to do next."""
    first_step: int = 1
    """The number of the first loop this process runs (a resumed run's is later)."""


def finish(
    stream: Callable[[RunnableConfig], Iterator[Any]],
    args: argparse.Namespace,
    task: str,
    facts: Sequence[str],
    extra: Callable[[], Sequence[str]] = lambda: (),
    *,
    llm_timeout: float | None = None,
    llm_retries: int | None = None,
    shown: Shown = Shown(),
) -> int:
    """Drive the run (live trace or JSON), write the report, return the exit status.

    On Ctrl-C, SIGTERM or SIGHUP the report (``--report``) still shows the loops that
    finished.
    """
    steps: list[StepRecord] = []
    try:
        return _drive(stream, args, task, facts, extra, steps, llm_timeout, llm_retries, shown)
    except KeyboardInterrupt as stopped:  # Ctrl-C, SIGTERM, SIGHUP
        why = said(stopped)
        _interrupted_report(task, steps, args.report,
                            "interrupted (Ctrl-C)" if why == "interrupted" else why)  # fmt: skip
        raise


def show(result: AgentResult, args: argparse.Namespace, facts: Sequence[str], shown: Shown) -> int:
    """Print a result without running anything (a finished thread's); its exit status."""
    return _drive(lambda config: iter([result]), args, result.input, facts, lambda: (), [],
                  None, None, shown)  # fmt: skip


def _result_of(
    events: Iterator[Any],
    steps: list[StepRecord],
    on_step: Callable[[StepRecord], None] = lambda step: None,
) -> AgentResult:
    """Read the run's stream: each loop's record kept in ``steps`` (and shown by
    ``on_step``) as it comes, the result at the end; signals are settled once it is in."""
    result: AgentResult | None = None
    for event in events:
        if isinstance(event, StepRecord):
            steps.append(event)
            on_step(event)
        elif isinstance(event, AgentResult):
            result = event
            settle()
    if result is None:
        raise RuntimeError("the agent's stream ended without a result")
    return result


def _drive(
    stream: Callable[[RunnableConfig], Iterator[Any]],
    args: argparse.Namespace,
    task: str,
    facts: Sequence[str],
    extra: Callable[[], Sequence[str]],
    steps: list[StepRecord],
    llm_timeout: float | None,
    llm_retries: int | None,
    shown: Shown,
) -> int:
    if args.json:
        result = _result_of(stream(RunnableConfig()), steps)
        data = {**shown.fields, **result.to_dict()}
        print(redact(json.dumps(data, ensure_ascii=False, indent=2)), flush=True)
        for line in [*_write_report(result, args.report), *shown.notes(result)]:
            say(line)
        return EXIT_CODES[result.stop_reason]

    from ._display import make_display

    display = make_display(
        llm_timeout=llm_timeout, llm_retries=llm_retries, first_step=shown.first_step
    )
    display.header(task, facts)
    with display.live() as watch:
        result = _result_of(stream(RunnableConfig(callbacks=[watch])), steps, display.step)
    notes = [redact(line) for line in shown.notes(result)]
    display.result(result, [*extra(), *_write_report(result, args.report), *notes])
    return EXIT_CODES[result.stop_reason]

"""One BFCL entry through one framework: turns in order, calls on live backends, BFCL's verdict.

    run = run_entry(entry, truth, ROWS["lcel-json"].turn, llm)
    run.record["valid"], run.record["error_type"], run.record["turns"][0]["steps"]
    run.results                          # lcel_agent's AgentResult per turn (for to_html)

Per turn, as BFCL's own runner does (``base_handler.inference_multi_turn_FC``):

* miss_func: the functions held out until this turn join the tools, and the turn's
  (empty) user message is BFCL's ``DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC``;
* the framework gets the conversation so far and this turn's user messages, and every
  call it makes runs at once on the entry's backends, filed under its model step;
* BFCL allows ``MAXIMUM_STEP_LIMIT`` (20) steps with calls per turn: each framework may
  make one model call more than that (to answer), and a turn with more than 20 steps of
  calls force-quits the entry, which BFCL scores as ``multi_turn:force_terminated``.

A single-turn entry is one such turn, with tools that run nothing (``NoBackend``).
A framework that raises is a result, not a crash of the harness.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, convert_to_messages

from benchmarks.bfcl._bfcl import bfcl_ready
from benchmarks.bfcl.backends import LiveBackends, NoBackend, Recorder
from benchmarks.bfcl.entries import is_multi_turn
from benchmarks.bfcl.recording import CallLog, Meter
from benchmarks.bfcl.schema import make_tools
from benchmarks.bfcl.scoring import Verdict, score_multi_turn, score_single_turn
from benchmarks.peers import Outcome
from lcel_agent import AgentResult

bfcl_ready()

from bfcl_eval.constants.default_prompts import (  # noqa: E402
    DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC,
    MAXIMUM_STEP_LIMIT,
)

#: Called after each turn with (turn index, that turn's record): the runner's progress lines.
OnTurn = Callable[[int, dict[str, Any]], None]

#: One user turn on one framework, ``(llm, tools, history, user, *, max_loops, config) ->
#: Outcome``: a row's ``turn`` (``peers.turn`` with its peer), or the ground-truth replay.
Turn = Callable[..., Outcome]


@dataclass
class EntryRun:
    """One entry's run: the record the results file keeps, and lcel_agent's results."""

    record: dict[str, Any]
    results: list[AgentResult | None] = field(default_factory=list)


def _turn_record(
    outcome: Outcome, log: CallLog, meter: Meter, turn: int, first_call: int, wall: float
) -> dict[str, Any]:
    calls = meter.calls[first_call:]
    return {
        "stop": outcome.stop,
        "detail": outcome.detail,
        "wall_s": round(wall, 2),
        "model_calls": len(calls),
        "prompt_tokens": sum(c.prompt_tokens or 0 for c in calls),
        "steps": log.steps(turn),
        "answer": _answer(outcome.messages),
    }


def _answer(messages: list[BaseMessage]) -> str | None:
    """The turn's last words to the user (None when it ended on a tool call or nothing)."""
    last = messages[-1] if messages else None
    if last is None or last.type != "ai" or getattr(last, "tool_calls", None):
        return None
    content = last.content
    return (content if isinstance(content, str) else str(content))[:600]


def _run_turn(
    turn: Turn, llm: BaseChatModel, tools: list[Any], history: list[BaseMessage],
    user: list[BaseMessage], meter: Meter, max_loops: int,
) -> Outcome:  # fmt: skip
    try:
        return turn(llm, tools, history, user, max_loops=max_loops, config={"callbacks": [meter]})
    except Exception as exc:  # an adapter or framework bug: recorded, and the entry goes on
        return Outcome(f"crashed: {type(exc).__name__}", list(user), detail=str(exc)[:500])


def run_entry(
    entry: dict[str, Any], truth: Any, turn: Turn, llm: BaseChatModel, *,
    step_limit: int = MAXIMUM_STEP_LIMIT, on_turn: OnTurn | None = None,
) -> EntryRun:  # fmt: skip
    """Run one entry (multi-turn or single-turn) and score it with BFCL's checker.

    ``truth`` is the entry's ground truth (``entries.ground_truth(category)[id]``; None for
    irrelevance). The record holds the verdict, per turn the stop, the steps of calls and
    the figures, every executed call with its result, and every model call's reply.
    """
    meter = Meter()
    log = CallLog(meter)
    start = time.perf_counter()
    turns: list[dict[str, Any]] = []
    results: list[AgentResult | None] = []
    multi = is_multi_turn(entry["id"].rsplit("_", 1)[0])
    backend: LiveBackends | NoBackend = LiveBackends(entry) if multi else NoBackend()
    functions = list(entry["function"])
    held: dict[str, list[dict[str, Any]]] = entry.get("missed_function") or {}
    forced = False
    history: list[BaseMessage] = []
    with backend:
        recorder = Recorder(backend, log)
        for index, asked in enumerate(entry["question"]):
            if str(index) in held:
                functions += held[str(index)]
                asked = [
                    {"role": "user", "content": DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC}
                ]
            user = convert_to_messages(asked)
            tools = make_tools(functions, recorder.call)
            log.start_turn()
            first_call, began = len(meter.calls), time.perf_counter()
            outcome = _run_turn(turn, llm, tools, history, user, meter, step_limit + 1)
            history += outcome.messages
            results.append(outcome.result)
            turns.append(
                _turn_record(outcome, log, meter, index, first_call, time.perf_counter() - began)
            )
            if on_turn is not None:
                on_turn(index, turns[-1])
            if len(log.steps(index)) > step_limit:
                forced = True
                break
        if isinstance(backend, LiveBackends):
            verdict = score_multi_turn(
                log.decoded(), truth, entry, backend.model_name, forced=forced
            )
        else:
            verdict = score_single_turn(backend.calls, truth, entry, entry["id"].rsplit("_", 1)[0])
    return EntryRun(
        _record(entry, verdict, turns, log, meter, time.perf_counter() - start), results
    )


def _record(
    entry: dict[str, Any], verdict: Verdict, turns: list[dict[str, Any]], log: CallLog,
    meter: Meter, wall: float,
) -> dict[str, Any]:  # fmt: skip
    return {
        "id": entry["id"],
        **verdict.to_dict(),
        "turns_total": len(entry["question"]),
        "model_calls": len(meter.calls),
        "prompt_tokens": sum(c.prompt_tokens or 0 for c in meter.calls),
        "completion_tokens": sum(c.completion_tokens or 0 for c in meter.calls),
        "model_errors": sum(c.error is not None for c in meter.calls),
        "tool_calls": sum(len(t) for t in log.turns),
        "wall_s": round(wall, 2),
        "turns": turns,
        "executed": log.to_dict(),
        "model": [c.to_dict() for c in meter.calls],
    }

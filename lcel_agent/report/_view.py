"""What a run report shows, computed from ``AgentResult.to_dict()``-shaped data. Pure.

The template only places what this module measured: every number, every bar's
position and width, every colour class. The input is a plain dict (a live
result's ``to_dict()``, or a line of a batch runner's JSON Lines), so the report
reads results written by older or newer versions: a missing field shows as
empty, a field it does not know is listed under "other fields", never dropped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ._answer import describe_answer
from ._charts import CHART_H, CHART_W, Chart
from ._data import _dict, _int, _list, _num, _text, css_name, pretty, scrub

__all__ = ["Bar", "Chart", "LoopView", "ObservationView", "RunView", "run_view"]

#: Fields of ``AgentResult.to_dict()`` the report places itself; others go to "other fields".
RESULT_KEYS = frozenset(
    {"input", "output", "stop_reason", "loops", "steps", "usage", "error", "forced",
     "elapsed_s", "messages", "compaction_usage", "compaction_calls", "pending", "answer"}
)  # fmt: skip
#: Fields of a step record the report places itself.
STEP_KEYS = frozenset(
    {"step", "raw", "actions", "observations", "error", "usage", "llm_ms", "tools_ms", "forced",
     "stage_ms", "window_tokens", "window_budget", "kind", "notice"}
)  # fmt: skip

#: Width of a timeline track in SVG user units (the track scales to the page).
TRACK_WIDTH = 1000.0
#: The narrowest bar drawn, so a stage of a few microseconds still shows.
MIN_BAR = 3.0
STAGE_HEIGHT = 14.0
TOOL_HEIGHT = 9.0
TOOL_GAP = 3.0

#: Stages of the default chain, in order; any other name gets the neutral colour.
KNOWN_STAGES = (
    "assemble_prompt", "call_llm", "clean_json", "parse_action", "dispatch_tools",
    "classify_error", "trim_memory", "answer",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Bar:
    """One rectangle of a timeline track."""

    label: str
    ms: float
    x: float
    width: float
    y: float
    height: float
    css: str
    kind: str  # "stage" or "tool"


@dataclass(frozen=True, slots=True)
class ObservationView:
    """One tool call of a loop."""

    call: str
    tool: str
    tool_input: str
    ok: bool
    error_class: str
    latency_ms: float
    attempts: int
    output: str


@dataclass(frozen=True, slots=True)
class LoopView:
    """One loop: its timeline row and what opens on click."""

    step: int
    ok: bool
    forced: bool
    error_class: str
    error_stage: str
    error_message: str
    error_notice: str
    notice: str
    """What a reply in words was sent back with (no error: a plan, or words before a call)."""
    total_ms: float
    timed: bool
    stages: tuple[tuple[str, float], ...]
    bars: tuple[Bar, ...]
    track_height: float
    input_tokens: int
    output_tokens: int
    window_tokens: int
    window_budget: int
    raw: str
    actions: str
    observations: tuple[ObservationView, ...]
    other: str
    kind: str = "act"
    """``act``, or ``answer`` for a call of the answer stage."""

    @property
    def window_share(self) -> float:
        """The window's fill at this call, 0..1 (0 when the budget is unknown)."""
        return self.window_tokens / self.window_budget if self.window_budget else 0.0


@dataclass(frozen=True, slots=True)
class RunView:
    """Everything a run report shows."""

    task: str
    output: str | None
    stop_reason: str
    ok: bool
    forced: bool
    loops: int
    input_tokens: int
    output_tokens: int
    elapsed_s: float
    error_class: str
    error_text: str
    error_notice: str
    rows: tuple[LoopView, ...]
    scale_ms: float
    error_classes: tuple[str, ...]
    charts: tuple[Chart, ...]
    messages: tuple[tuple[str, str], ...]
    other: str
    timed_by_stage: bool = field(default=False)
    compaction_calls: int = 0
    """Model calls the memory's compactor made (summaries), not counted in ``loops``."""
    compaction_tokens: int = 0
    """Tokens those calls spent (part of the run's usage)."""
    pending: tuple[str, ...] = ()
    """A paused run's calls waiting for a decision, as ``tool(input)``."""
    answer: str = ""
    """Who wrote the answer (see :func:`~lcel_agent.report._answer.describe_answer`)."""


def _segments(step: Mapping[str, Any]) -> tuple[list[tuple[str, float]], bool]:
    """``(stage, ms)`` in chain order, and whether they are per-stage timings.

    Without ``stage_ms`` (results from before the loop timed its stages) the model
    call and the dispatch are the only durations known.
    """
    timed = [
        (str(pair[0]), max(0.0, _num(pair[1])))
        for pair in _list(step.get("stage_ms"))
        if isinstance(pair, (list, tuple)) and len(pair) == 2
    ]
    if timed:
        return timed, True
    if step.get("kind") == "answer":  # a call of the answer stage: its model call only
        return [("answer", max(0.0, _num(step.get("llm_ms"))))], False
    return [
        ("call_llm", max(0.0, _num(step.get("llm_ms")))),
        ("dispatch_tools", max(0.0, _num(step.get("tools_ms")))),
    ], False


def _call(action: Mapping[str, Any]) -> tuple[str, str]:
    tool = _text(action.get("tool")) or "?"
    value = action.get("tool_input")
    return tool, value if isinstance(value, str) else _text(value)


def _observation(data: Mapping[str, Any]) -> ObservationView:
    tool, tool_input = _call(_dict(data.get("action")))
    ok = bool(data.get("ok"))
    return ObservationView(
        call=f"{tool}({tool_input})",
        tool=_text(data.get("tool")) or tool,
        tool_input=tool_input,
        ok=ok,
        error_class="" if ok else (_text(data.get("error_class")) or "error"),
        latency_ms=max(0.0, _num(data.get("latency_ms"))),
        attempts=_int(data.get("attempts")) or 1,
        output=_text(data.get("output")),
    )


def _loop(step: Mapping[str, Any], index: int, scale_ms: float) -> LoopView:
    segments, timed = _segments(step)
    error = _dict(step.get("error"))
    error_class = _text(error.get("error_class")) if error else ""
    error_stage = _text(error.get("stage")) if error else ""
    observations = tuple(_observation(_dict(o)) for o in _list(step.get("observations")))
    per_ms = TRACK_WIDTH / scale_ms if scale_ms > 0 else 0.0
    bars: list[Bar] = []
    start = 0.0
    dispatch_at = 0.0
    for name, ms in segments:
        css = f"stage-{css_name(name)}" if name in KNOWN_STAGES else "stage-other"
        if error_class and name == error_stage:
            css += f" err err-{css_name(error_class)}"
        bars.append(
            Bar(
                name, ms, start * per_ms, max(MIN_BAR, ms * per_ms), 0.0, STAGE_HEIGHT, css, "stage"
            )
        )
        if name == "dispatch_tools":
            dispatch_at = start
        start += ms
    # Tool calls start with the dispatch; calls of one reply run side by side, one lane each.
    for lane, obs in enumerate(observations):
        css = "tool-ok" if obs.ok else f"tool-err err err-{css_name(obs.error_class)}"
        y = STAGE_HEIGHT + TOOL_GAP + lane * (TOOL_HEIGHT + TOOL_GAP)
        bars.append(
            Bar(
                obs.call,
                obs.latency_ms,
                dispatch_at * per_ms,
                max(MIN_BAR, obs.latency_ms * per_ms),
                y,
                TOOL_HEIGHT,
                css,
                "tool",
            )
        )
    usage = _dict(step.get("usage"))
    other = {k: v for k, v in step.items() if k not in STEP_KEYS}
    return LoopView(
        step=_int(step.get("step")) or index + 1,
        ok=not error,
        forced=bool(step.get("forced")),
        error_class=error_class,
        error_stage=error_stage,
        error_message=_text(error.get("message")) if error else "",
        error_notice=_text(error.get("notice")) if error else "",
        notice=_text(step.get("notice")),
        total_ms=start,
        timed=timed,
        stages=tuple(segments),
        bars=tuple(bars),
        track_height=STAGE_HEIGHT + len(observations) * (TOOL_HEIGHT + TOOL_GAP) + 1.0,
        input_tokens=_int(usage.get("input_tokens")),
        output_tokens=_int(usage.get("output_tokens")),
        window_tokens=_int(step.get("window_tokens")),
        window_budget=_int(step.get("window_budget")),
        raw=_text(step.get("raw")),
        actions=pretty([_dict(a) for a in _list(step.get("actions"))]),
        observations=observations,
        other=pretty(other) if other else "",
        kind=_text(step.get("kind")) or "act",
    )


def _loop_range(rows: Sequence[LoopView]) -> tuple[str, str]:
    return (f"loop {rows[0].step}", f"loop {rows[-1].step}") if rows else ("", "")


def _token_chart(rows: Sequence[LoopView]) -> Chart:
    top = max([r.input_tokens + r.output_tokens for r in rows] + [1])
    slot = CHART_W / max(1, len(rows))
    bars = []
    for i, r in enumerate(rows):
        h_in = r.input_tokens / top * CHART_H
        h_out = r.output_tokens / top * CHART_H
        x, w = i * slot + slot * 0.15, slot * 0.7
        tip = f"loop {r.step}: {r.input_tokens} in, {r.output_tokens} out"
        bars.append((x, CHART_H - h_in, w, h_in, "tok-in", tip))
        bars.append((x, CHART_H - h_in - h_out, w, h_out, "tok-out", tip))
    return Chart(
        "Tokens per call (prompt, then completion on top)",
        tuple(bars),
        max_label=f"{top:,}",
        legend=(("tok-in", "prompt"), ("tok-out", "completion")),
        x_range=_loop_range(rows),
    )


def _window_chart(rows: Sequence[LoopView]) -> Chart | None:
    if not any(r.window_budget for r in rows):
        return None
    top = max([max(r.window_tokens, r.window_budget) for r in rows] + [1])
    slot = CHART_W / max(1, len(rows))
    bars, budgets = [], []
    for i, r in enumerate(rows):
        h = r.window_tokens / top * CHART_H
        over = r.window_budget and r.window_tokens > r.window_budget
        tip = f"loop {r.step}: window {r.window_tokens} of {r.window_budget} tokens"
        bars.append(
            (i * slot + slot * 0.15, CHART_H - h, slot * 0.7, h, "win-over" if over else "win", tip)
        )
        budgets.append(r.window_budget)
    lines = tuple((CHART_H - b / top * CHART_H, f"budget {b:,}") for b in sorted(set(budgets)) if b)
    return Chart(
        "The memory window at each call, against its budget",
        tuple(bars),
        lines=lines,
        max_label=f"{top:,}",
        legend=(("win", "window tokens"), ("win-over", "over budget (pinned messages)")),
        x_range=_loop_range(rows),
    )


def run_view(data: Mapping[str, Any]) -> RunView:
    """The report of one run, from ``AgentResult.to_dict()``-shaped data (redacted here)."""
    data = scrub(dict(data))
    steps = [_dict(s) for s in _list(data.get("steps"))]
    totals = [sum(ms for _, ms in _segments(s)[0]) for s in steps]
    scale_ms = max([*totals, 0.0])
    rows = tuple(_loop(s, i, scale_ms) for i, s in enumerate(steps))
    usage = _dict(data.get("usage"))
    compaction = _dict(data.get("compaction_usage"))
    error = _dict(data.get("error"))
    stop = _text(data.get("stop_reason")) or "unknown"
    error_text = ""
    if error:
        error_text = (
            f"step {_int(error.get('step'))} ({_text(error.get('stage'))}): "
            f"{_text(error.get('error_class'))}: {_text(error.get('message'))}"
        )
    charts = [c for c in (_token_chart(rows), _window_chart(rows)) if c is not None and rows]
    classes = sorted(
        {r.error_class for r in rows if r.error_class}
        | {o.error_class for r in rows for o in r.observations if o.error_class}
        | ({_text(error.get("error_class"))} if error else set())
    )
    output = data.get("output")
    other = {k: v for k, v in data.items() if k not in RESULT_KEYS}
    return RunView(
        task=_text(data.get("input")),
        output=None if output is None else _text(output),
        stop_reason=stop,
        ok=stop == "final",
        forced=bool(data.get("forced")),
        loops=_int(data.get("loops")) or len(rows),
        input_tokens=_int(usage.get("input_tokens")),
        output_tokens=_int(usage.get("output_tokens")),
        elapsed_s=_num(data.get("elapsed_s")),
        error_class=_text(error.get("error_class")) if error else "",
        error_text=error_text,
        error_notice=_text(error.get("notice")) if error else "",
        rows=rows,
        scale_ms=scale_ms,
        error_classes=tuple(c for c in classes if c),
        charts=tuple(charts),
        messages=tuple(
            (_text(_dict(m).get("type")) or "?", _text(_dict(m).get("content")))
            for m in _list(data.get("messages"))
        ),
        other=pretty(other) if other else "",
        timed_by_stage=any(r.timed for r in rows),
        compaction_calls=_int(data.get("compaction_calls")),
        compaction_tokens=_int(compaction.get("input_tokens"))
        + _int(compaction.get("output_tokens")),
        pending=tuple(
            f"{_text(_dict(a).get('tool'))}({_text(_dict(a).get('tool_input'))})"
            for a in _list(data.get("pending"))
        ),
        answer=describe_answer(data.get("answer")),
    )

"""The fault gauntlet: model behaviours x model API faults x tool faults, in process.

Every cell runs through ``invoke`` and ``ainvoke``, under ``time_budget=TIME_BUDGET``.
Whatever happens, the run must return an ``AgentResult`` (no exception escapes),
make at most ``max_loops`` loops, stop for a reason that fits the cell, name the
failing step and error class when the stop is not ``final``, and end within
``TIME_BUDGET + SLACK`` seconds of wall time.

The API fault hits the second model call once (a transient fault is retried and
survived, a fatal one stops the run at loop 2, a model that hangs or a wait longer
than the budget stops it with ``budget``); the tool fault hits every call of the
one tool. The cells of a column that waits out the budget run concurrently, so
the suite does not wait for them one by one. The sizes are module constants so
docs/reliability.md can quote them; each test records its slowest cell
(``record_property``: collect them with ``-o junit_family=legacy --junitxml=FILE``).
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.tools import BaseTool, tool
from rel_support import act

from lcel_agent import AgentResult, ErrorClass, StopReason, create_agent
from lcel_agent.testing.fake import APIStatusFault, FunctionChatModel

MAX_LOOPS = 4
MAX_ERRORS = 2
#: The run's ``time_budget``: far above what a cell takes unless it waits out the budget.
TIME_BUDGET = 2.0
#: How far past ``TIME_BUDGET`` a cell may end (the issue's bound; the measured worst is
#: recorded per test and quoted in docs/reliability.md).
SLACK = 1.5

# --- model behaviours: k (answered calls so far) -> reply --------------------------------

Behaviour = Callable[[int], str | AIMessage]
_VALID = [act("probe", "北京"), act("final", "北京晴，温度25℃")]


def _script(replies: list[str]) -> Behaviour:
    return lambda k: replies[min(k, len(replies) - 1)]


BEHAVIOURS: dict[str, Behaviour] = {
    "valid": _script(_VALID),
    "fenced": _script([f"```json\n{r}\n```" for r in _VALID]),
    "prose": _script([f"好的，我来查一下。\n{r}\n以上就是我的动作。" for r in _VALID]),
    "cut_json": lambda k: act("probe", "北京")[:-4],
    # Cut off by the provider: the text even parses as the answer, but it is not whole.
    "truncated": lambda k: AIMessage(
        content=act("final", "北京晴"), response_metadata={"finish_reason": "length"}
    ),
    "empty": lambda k: "",
    "wrong_tool": lambda k: act("get_wether", "北京"),
    "wrong_types": lambda k: act("probe", {"city": [1, 2]}),
    "repeating": lambda k: act("probe", "北京"),
    "oscillating": lambda k: act("probe", "北京" if k % 2 == 0 else "上海"),
    "never_final": lambda k: act("probe", f"城市{k}"),
}
#: Behaviours that answer with ``final`` on their second call.
FINISHING = {"valid", "fenced", "prose"}

# --- model API faults (raised once, on the second model call) -----------------------------

API_FAULTS: dict[str, Callable[[], BaseException] | None] = {
    "none": None,
    "429": lambda: APIStatusFault(429, "rate limited", retry_after=0),
    "500": lambda: APIStatusFault(500, "internal error"),
    "503": lambda: APIStatusFault(503, "unavailable"),
    "timeout": lambda: TimeoutError("read timed out"),
    "dropped": lambda: ConnectionResetError(104, "Connection reset by peer"),
    "corrupt": lambda: json.JSONDecodeError("Expecting ',' delimiter", '{"id": "x", "ch', 14),
    "401": lambda: APIStatusFault(401, "invalid_api_key"),
    "context": lambda: APIStatusFault(
        400, "context_length_exceeded: maximum context length is 8192 tokens"
    ),
    "retry_after_75": lambda: APIStatusFault(429, "rate limited", retry_after=75),
    "retry_after_30": lambda: APIStatusFault(429, "rate limited", retry_after=30),
    "hang": None,  # the call never returns (see _model)
}
#: API faults that stop the run at the second loop with ``llm_error``, and their class.
FATAL = {"401": ErrorClass.LLM_FATAL, "retry_after_75": ErrorClass.LLM_TRANSIENT}
#: API faults that outlast the time budget: the run stops with ``budget``.
OUT_OF_TIME = {"retry_after_30", "hang"}
#: API faults whose cells wait out the budget, so they run concurrently.
WAITING = {"hang"}

# --- tool faults ----------------------------------------------------------------------------

TOOL_FAULTS = ["none", "raises", "error_string", "hangs", "megabytes", "non_string"]
CELLS = len(BEHAVIOURS) * len(API_FAULTS) * len(TOOL_FAULTS)


class _Opaque:
    def __str__(self) -> str:
        return "<opaque reading: 25℃>"


def _probe(fault: str, release: threading.Event) -> BaseTool:
    @tool
    def probe(city: str) -> Any:
        """查询城市实时天气，城市名称必须是中文，例如'北京'"""
        if fault == "raises":
            raise RuntimeError("sensor offline")
        if fault == "error_string":
            return "ERROR: 高德API返回错误 - 城市不存在"
        if fault == "hangs":
            release.wait(5)  # abandoned at tool_timeout; released at teardown
            return "too late"
        if fault == "megabytes":
            return f"{city}:" + "晴" * 400_000
        if fault == "non_string":
            return {"city": city, "reading": _Opaque(), "ok": True} if city != "上海" else 42
        return f"{city}市天气：晴，温度25℃"

    return probe


def _model(behaviour: Behaviour, api: str, release: threading.Event) -> FunctionChatModel:
    attempts, answered, fault = [0], [0], API_FAULTS[api]

    def reply(messages: list[BaseMessage], tools: list[dict[str, Any]]) -> Any:
        attempts[0] += 1
        if attempts[0] == 2 and api == "hang":
            release.wait(30)  # abandoned at the budget; released at teardown
            return TimeoutError("released")
        if fault is not None and attempts[0] == 2:
            return fault()
        answered[0] += 1
        return behaviour(answered[0] - 1)

    return FunctionChatModel(reply)


@pytest.fixture
def release() -> Iterator[threading.Event]:
    event = threading.Event()
    yield event
    event.set()


def _problems(
    cell: str, result: Any, model: FunctionChatModel, api: str, elapsed: float
) -> list[str]:
    """Everything wrong with one cell's result (empty when the cell passed)."""
    if not isinstance(result, AgentResult):
        return [f"{cell}: returned {type(result).__name__}, not AgentResult"]
    behaviour = cell.split("/")[0]
    bad: list[str] = []
    if elapsed > TIME_BUDGET + SLACK:
        bad.append(f"{cell}: took {elapsed:.2f} s with time_budget={TIME_BUDGET:g} s")
    if result.loops > MAX_LOOPS or len(result.steps) > MAX_LOOPS:
        bad.append(f"{cell}: {result.loops} loops > max_loops")
    if len(model.calls) > result.loops + (0 if api == "none" else 1):
        bad.append(f"{cell}: {len(model.calls)} model calls for {result.loops} loops")
    if api in FATAL:
        fits = {StopReason.LLM_ERROR}
    elif api in OUT_OF_TIME:
        fits = {StopReason.BUDGET}
    elif behaviour in FINISHING:
        fits = {StopReason.FINAL}
    elif behaviour == "never_final":
        fits = {StopReason.MAX_LOOPS, StopReason.MAX_ERRORS}
    elif behaviour in ("repeating", "oscillating"):
        fits = {StopReason.DRIFT, StopReason.MAX_ERRORS}
    else:
        fits = {StopReason.MAX_ERRORS, StopReason.DRIFT}
    nudged_last = bool(result.steps) and result.steps[-1].error_class is ErrorClass.DRIFT
    if behaviour in ("repeating", "oscillating") and nudged_last:
        fits.add(StopReason.MAX_LOOPS)  # the nudge came on the last allowed loop
    if result.stop_reason not in fits:
        bad.append(f"{cell}: stop {result.stop_reason.value}, expected one of {sorted(fits)}")
    if result.stop_reason is StopReason.FINAL:
        if result.output != "北京晴，温度25℃" or result.error is not None:
            bad.append(f"{cell}: final with output {result.output!r}, error {result.error}")
        return bad
    error = result.error
    if error is None:
        return [*bad, f"{cell}: non-final stop without an error"]
    # A stop with results in hand delivers them, marked incomplete (issue 41), and only them.
    delivered = result.answer is not None and result.answer.source == "results"
    if result.output is not None and not (delivered and result.answer.complete is False):
        return [*bad, f"{cell}: non-final stop with output {result.output!r}, error {error}"]
    if delivered and not result.output.startswith("probe("):
        bad.append(f"{cell}: delivered {result.output[:200]!r}, not the results in plain lines")
    if not (1 <= error.step <= result.loops and error.stage and error.message):
        bad.append(f"{cell}: error does not name its step/stage: {error!r}")
    if not isinstance(error.error_class, ErrorClass):
        bad.append(f"{cell}: error class {error.error_class!r}")
    if result.stop_reason is StopReason.LLM_ERROR and (
        error.stage != "call_llm" or error.error_class is not FATAL.get(api)
    ):
        bad.append(f"{cell}: llm_error names {error.stage}/{error.error_class}")
    if result.stop_reason is StopReason.BUDGET and (
        error.stage != "call_llm" or error.error_class is not ErrorClass.LIMIT
    ):
        bad.append(f"{cell}: budget stop names {error.stage}/{error.error_class}")
    if result.stop_reason is StopReason.MAX_LOOPS and error.error_class is not ErrorClass.LIMIT:
        bad.append(f"{cell}: max_loops stop with class {error.error_class}")
    return bad


def _agent(model: FunctionChatModel, probe: BaseTool) -> Any:
    return create_agent(
        model,
        [probe],
        max_loops=MAX_LOOPS,
        max_errors=MAX_ERRORS,
        tool_timeout=0.05,
        llm_retries=3,
        llm_backoff=(0.0, 0.0),
        time_budget=TIME_BUDGET,
    )


Outcome = tuple[Any, float]  # (the result or the exception raised, seconds)


def _cell_sync(name: str, api: str, tool_fault: str, release: threading.Event) -> Outcome:
    model = _model(BEHAVIOURS[name], api, release)
    started = time.monotonic()
    try:
        result: Any = _agent(model, _probe(tool_fault, release)).invoke("查询北京天气")
    except Exception as exc:  # the point of the gauntlet: nothing may escape
        result = exc
    return (result, model), time.monotonic() - started


async def _cell_async(name: str, api: str, tool_fault: str, release: threading.Event) -> Outcome:
    model = _model(BEHAVIOURS[name], api, release)
    started = time.monotonic()
    try:
        result: Any = await _agent(model, _probe(tool_fault, release)).ainvoke("查询北京天气")
    except Exception as exc:
        result = exc
    return (result, model), time.monotonic() - started


def _judge(
    api: str, tool_fault: str, outcomes: list[Outcome], record_property: Callable[..., None]
) -> list[str]:
    problems: list[str] = []
    worst = max(zip((o[1] for o in outcomes), BEHAVIOURS, strict=True))
    record_property("worst_cell_s", round(worst[0], 3))
    record_property("worst_cell", f"{worst[1]}/{api}/{tool_fault}")
    for name, ((result, model), elapsed) in zip(BEHAVIOURS, outcomes, strict=True):
        cell = f"{name}/{api}/{tool_fault}"
        if isinstance(result, Exception):
            problems.append(f"{cell}: raised {type(result).__name__}: {result}")
            continue
        problems += _problems(cell, result, model, api, elapsed)
    return problems


@pytest.mark.parametrize("tool_fault", TOOL_FAULTS)
@pytest.mark.parametrize("api", list(API_FAULTS))
def test_gauntlet_sync(
    api: str, tool_fault: str, release: threading.Event, record_property: Any
) -> None:
    def cell(name: str) -> Outcome:
        return _cell_sync(name, api, tool_fault, release)

    if api in WAITING:
        with ThreadPoolExecutor(len(BEHAVIOURS)) as pool:
            outcomes = list(pool.map(cell, BEHAVIOURS))
    else:
        outcomes = [cell(name) for name in BEHAVIOURS]
    assert _judge(api, tool_fault, outcomes, record_property) == []


@pytest.mark.parametrize("tool_fault", TOOL_FAULTS)
@pytest.mark.parametrize("api", list(API_FAULTS))
async def test_gauntlet_async(
    api: str, tool_fault: str, release: threading.Event, record_property: Any
) -> None:
    if api in WAITING:
        cells = [_cell_async(name, api, tool_fault, release) for name in BEHAVIOURS]
        outcomes = list(await asyncio.gather(*cells))
        # The abandoned calls hold threads of this loop's executor: free them before the
        # loop shuts down (it waits for them), not at the fixture's teardown after it.
        release.set()
    else:
        outcomes = [await _cell_async(name, api, tool_fault, release) for name in BEHAVIOURS]
    assert _judge(api, tool_fault, outcomes, record_property) == []


def test_the_matrix_has_the_documented_size() -> None:
    assert (len(BEHAVIOURS), len(API_FAULTS), len(TOOL_FAULTS), CELLS) == (11, 12, 6, 792)

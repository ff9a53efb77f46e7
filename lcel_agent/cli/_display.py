"""The live trace of ``lcel-agent run`` and ``lcel-agent demo``.

:func:`make_display` returns a rich display when the ``cli`` extra (rich) is
installed, else a plain-text one with the same content. Either is used the
same way::

    display = make_display()
    display.header("查询北京天气", ["model gpt-4o-mini", "protocol json"])
    with display.live() as watch:                 # a status line while the run works
        for event in agent.stream(task, {"callbacks": [watch]}):
            if isinstance(event, StepRecord):
                display.step(event)
    display.result(event)

Every text shown passes through :func:`~lcel_agent._redact.redact`, and text that
came from the model or a tool is never read as rich markup.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, TextIO
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

from .._redact import redact
from ..state import Action, AgentResult, Observation, StepRecord, StopReason

__all__ = [
    "Display",
    "PlainDisplay",
    "RichDisplay",
    "StatusWatch",
    "call_text",
    "display_width",
    "make_display",
    "one_line",
    "pad",
    "step_rows",
]

_INPUT_CHARS = 40
_RESULT_CHARS = 200


def one_line(text: str, limit: int) -> str:
    flat = " ".join(redact(text).split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def display_width(text: str) -> int:
    """The terminal columns ``text`` takes (CJK characters take two)."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def pad(text: str, width: int) -> str:
    """``text`` cut or padded to ``width`` terminal columns (CJK characters take two)."""
    if display_width(text) > width:
        while text and display_width(text) > width - 1:
            text = text[:-1]
        text += "…"
    return text + " " * (width - display_width(text))


def call_text(action: Action) -> str:
    value = action.tool_input
    if isinstance(value, dict) and len(value) == 1:
        (value,) = value.values()
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        shown = ", ".join(
            f"{k}={json.dumps(v, ensure_ascii=False, default=str)}" for k, v in value.items()
        )
    else:
        shown = (
            value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
        )
    return f"{action.tool}({one_line(shown, _INPUT_CHARS)})"


def _outcome(observation: Observation) -> tuple[str, str]:
    """``(status, text)``: ``ok`` or the error class, and the observation's first words."""
    status = "ok" if observation.ok else (observation.error_class or "error")
    return str(status), one_line(observation.output, _RESULT_CHARS)


def step_rows(record: StepRecord) -> list[tuple[str, str, str]]:
    """One ``(call, status, text)`` row per action of a loop (one row when it had none)."""
    if any(a.is_final for a in record.actions) and record.error is None:
        return [("final", "answer", "")]
    if record.kind == "answer":  # the answer stage wrote (part of) the answer
        status = record.error.error_class.value if record.error is not None else "written"
        return [("answer", status, one_line(record.raw, _RESULT_CHARS))]
    rows = [(call_text(o.action), *_outcome(o)) for o in record.observations]
    if rows:
        return rows
    call = ", ".join(call_text(a) for a in record.actions) or "—"
    if record.error is not None:
        return [(call, record.error.error_class.value, one_line(record.error.message, 120))]
    return [(call, "not run", "")]


def _tokens(record: StepRecord) -> str:
    return f"{record.usage.input_tokens}→{record.usage.output_tokens}"


def _ms(record: StepRecord) -> str:
    return f"{record.llm_ms:.0f}+{record.tools_ms:.0f}"


def _summary(result: AgentResult) -> str:
    usage = result.usage
    forced = " (forced answer)" if result.forced else ""
    # Requests whose replies an interruption lost: the provider saw them (docs/cli.md).
    lost = usage.interrupted
    lost_text = f" · {lost} interrupted request{'s' if lost > 1 else ''}" if lost else ""
    estimated = " (estimated in part)" if lost else ""
    return (
        f"loops {result.loops}{lost_text} · tokens {usage.input_tokens} in / "
        f"{usage.output_tokens} out{estimated} · {result.elapsed_s:.2f} s · "
        f"stop: {result.stop_reason.value}{forced}"
    )


class StatusWatch(BaseCallbackHandler):
    """A callback handler that turns the run's callbacks into a short status text.

    ``on_status`` receives texts such as ``"step 2 · waiting for the model"``;
    pass the handler in the run's ``callbacks``. Given the loop's ``timeout`` and
    ``retries``, a retry says what became of the attempt before it::

        step 2 · attempt 1 timed out after 60 s · the model is thinking (attempt 2 of 3)…
    """

    def __init__(
        self,
        on_status: Any,
        *,
        timeout: float | None = None,
        retries: int | None = None,
        step: int = 1,
    ) -> None:
        self.on_status = on_status
        self.timeout = timeout
        self.retries = retries
        self.step = step
        self._attempts: list[UUID] = []
        # What ended each attempt: None while it runs, else the error's type name or "".
        self._ended: dict[UUID, str | None] = {}

    def _say(self, text: str) -> None:
        self.on_status(f"step {self.step} · {text}")

    def next_step(self, step: int) -> None:
        """Called by the display when loop ``step - 1`` has ended."""
        self.step = step
        self._attempts.clear()
        self._ended.clear()
        self._say("assembling the prompt")

    def _previous(self) -> str:
        """What became of the attempt before the one starting now."""
        if not self._attempts:
            return ""
        number = len(self._attempts)
        ended = self._ended.get(self._attempts[-1])
        # No answer and no error yet: the loop's own time limit abandoned the call. The
        # client's timeout (set to the same limit) may have fired first: the same story.
        if ended is None or "Timeout" in ended:
            after = f" after {self.timeout:g} s" if self.timeout else ""
            return f"attempt {number} timed out{after} · "
        return f"attempt {number} failed ({ended}) · "

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[Any]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        before = self._previous()
        self._attempts.append(run_id)
        self._ended[run_id] = None
        number = len(self._attempts)
        of = f" of {self.retries}" if self.retries else ""
        again = f" (attempt {number}{of})" if number > 1 else ""
        self._say(f"{before}the model is thinking{again}…")

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id in self._ended:
            self._ended[run_id] = ""

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        if run_id not in self._ended:
            return
        self._ended[run_id] = type(error).__name__
        # A late error of an attempt already abandoned must not overwrite the current status.
        if self._attempts and run_id == self._attempts[-1]:
            self._say(f"model API error ({type(error).__name__}), retrying if transient…")

    def on_tool_start(
        self, serialized: dict[str, Any], input_str: str, *, run_id: UUID, **kwargs: Any
    ) -> None:
        name = (serialized or {}).get("name") or kwargs.get("name") or "a tool"
        self._say(f"running {name}({one_line(str(input_str), _INPUT_CHARS)})…")


class Display(Protocol):
    """What the commands need from a display."""

    def header(self, task: str, facts: Sequence[str]) -> None: ...

    def live(self) -> Any: ...

    def step(self, record: StepRecord) -> None: ...

    def result(self, result: AgentResult, extra: Sequence[str] = ()) -> None: ...


class PlainDisplay:
    """Plain lines on ``out``; the status line goes to ``err`` only when it is a terminal."""

    def __init__(self, out: TextIO | None = None, err: TextIO | None = None, **watch: Any) -> None:
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self._watch: StatusWatch | None = None
        self._watch_options = watch

    def _print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def header(self, task: str, facts: Sequence[str]) -> None:
        self._print(f"task: {one_line(task, 300)}")
        self._print(" · ".join(facts))
        self._print(f"{'#':>3}  {'action':<30}  {'result':<13} {'tokens':>9} {'ms':>9}")

    def _status(self, text: str) -> None:
        if self.err.isatty():
            self.err.write("\r\033[K" + text[:100])
            self.err.flush()

    @contextmanager
    def live(self) -> Iterator[StatusWatch]:
        self._watch = StatusWatch(self._status, **self._watch_options)
        try:
            yield self._watch
        finally:
            self._status("")
            self._watch = None

    def step(self, record: StepRecord) -> None:
        self._status("")
        for index, (call, status, text) in enumerate(step_rows(record)):
            first = index == 0
            self._print(
                f"{record.step if first else '':>3}  {pad(call, 30)}  {pad(status, 13)}"
                f" {_tokens(record) if first else '':>9} {_ms(record) if first else '':>9}"
                + (f"  {one_line(text, 100)}" if text else "")
            )
        if self._watch is not None:
            self._watch.next_step(record.step + 1)

    def result(self, result: AgentResult, extra: Sequence[str] = ()) -> None:
        self._print()
        if result.output is not None:
            self._print("answer:")
            self._print(redact(result.output))
        if result.error is not None and result.stop_reason is not StopReason.FINAL:
            self._print(f"stopped: {result.stop_reason.value}: {redact(str(result.error))}")
        self._print()
        self._print(_summary(result))
        for line in extra:
            self._print(line)


class RichDisplay:
    """The same trace with rich: aligned rows, a spinner, a panel for the answer."""

    def __init__(self, **watch: Any) -> None:
        from rich.console import Console

        self.console = Console(highlight=False, emoji=False)
        self._watch: StatusWatch | None = None
        self._header_shown = False
        self._watch_options = watch

    def header(self, task: str, facts: Sequence[str]) -> None:
        from rich.text import Text

        self.console.print(Text.assemble(("task ", "bold"), one_line(task, 300)))
        self.console.print(Text(" · ".join(facts), style="dim"))

    @contextmanager
    def live(self) -> Iterator[StatusWatch]:
        with self.console.status("starting…", spinner="dots") as status:
            self._watch = StatusWatch(lambda text: status.update(text), **self._watch_options)
            try:
                yield self._watch
            finally:
                self._watch = None

    def _table(self) -> Any:
        from rich.table import Table

        table = Table(box=None, show_header=not self._header_shown, expand=True, pad_edge=False)
        table.add_column("#", width=3, justify="right")
        table.add_column("action", ratio=2, min_width=16, no_wrap=True, overflow="ellipsis")
        table.add_column("result", ratio=3, min_width=16, no_wrap=True, overflow="ellipsis")
        table.add_column("tokens", width=9, justify="right", no_wrap=True)
        table.add_column("ms", width=10, justify="right", no_wrap=True)
        self._header_shown = True
        return table

    def step(self, record: StepRecord) -> None:
        from rich.text import Text

        table = self._table()
        for index, (call, status, text) in enumerate(step_rows(record)):
            first = index == 0
            style = "green" if status in ("ok", "answer") else "red"
            table.add_row(
                str(record.step) if first else "",
                Text(call, style="cyan"),
                Text.assemble((status, style), ("  " + text) if text else ""),
                _tokens(record) if first else "",
                _ms(record) if first else "",
            )
        self.console.print(table)
        if self._watch is not None:
            self._watch.next_step(record.step + 1)

    def result(self, result: AgentResult, extra: Sequence[str] = ()) -> None:
        from rich.panel import Panel
        from rich.text import Text

        if result.output is not None:
            title = "answer (forced)" if result.forced else "answer"
            self.console.print(
                Panel(Text(redact(result.output)), title=title, border_style="green")
            )
        if result.error is not None and result.stop_reason is not StopReason.FINAL:
            message = f"stopped: {result.stop_reason.value}: {redact(str(result.error))}"
            self.console.print(Text(message, style="bold red"))
        ok = result.stop_reason is StopReason.FINAL
        self.console.print(Text(_summary(result), style="bold green" if ok else "bold yellow"))
        for line in extra:
            # Never wrapped at the terminal's width: these lines hold commands to paste.
            self.console.print(Text(redact(line), style="dim"), soft_wrap=True)


def make_display(
    *, llm_timeout: float | None = None, llm_retries: int | None = None, first_step: int = 1
) -> Display:
    """A :class:`RichDisplay` when rich is installed, else a :class:`PlainDisplay`.

    ``llm_timeout`` and ``llm_retries`` let the status line say why an attempt was retried;
    ``first_step`` is the first loop's number (a resumed run goes on from its own).
    """
    try:
        import rich  # noqa: F401
    except ImportError:
        return PlainDisplay(timeout=llm_timeout, retries=llm_retries, step=first_step)
    return RichDisplay(timeout=llm_timeout, retries=llm_retries, step=first_step)

"""Answer mode, for any run driver: text while the model writes, the rest at the end.

The loop hands over a ``drive(tap)`` function that runs the whole run with the
tap attached to ``call_llm`` and yields its events, the result last.
:func:`answer_stream` runs it on a thread (:func:`~lcel_agent.loop.streaming.pump`),
yields the answer text as the tap hands it over, then whatever of the answer
the model did not stream (an answer that was not a plain string, a model that
cannot stream, a ``return_direct`` result): the text joined is the answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Generator, Iterator
from typing import Any

from ...conversation.outputs import answer_text
from ...state import AgentResult
from .pump import apump, pump
from .tap import AnswerTap

__all__ = ["aanswer_stream", "answer_stream", "rest_of_answer"]


def rest_of_answer(result: AgentResult, streamed: list[str]) -> str:
    """What of the answer the stream has not shown yet (all of it, when nothing streamed)."""
    if result.output is None:
        return ""
    text = answer_text(result.output)
    shown = "".join(streamed).strip()
    return text[len(shown) :] if text.startswith(shown) else ""


def _pieces(result: AgentResult, streamed: list[str], held: list[str]) -> list[str]:
    """The rest of the answer: the held pieces of the model's own answer when it stood (in
    the pieces it was written in), else what of the answer has not been shown."""
    output = result.output
    if not streamed and held and output is not None and "".join(held) == answer_text(output):
        return held
    rest = rest_of_answer(result, streamed)
    return [rest] if rest else []


def _last(events: Iterator[Any]) -> AgentResult:
    *_, result = events
    assert isinstance(result, AgentResult)
    return result


def answer_stream(
    drive: Callable[[AnswerTap | None], Iterator[Any]], *, native: bool, whole: bool
) -> Generator[str, None, AgentResult]:
    """Yield the answer's text; return the run's result.

    Args:
        drive: runs the run with a tap (or None) and yields its events, the result last.
        native: the tool-calling protocol (else the JSON protocol).
        whole: emit the answer only at the end (a structured answer is checked first).
    """
    streamed: list[str] = []
    held: list[str] = []
    if whole:
        result = _last(drive(None))
    else:
        tap = AnswerTap(lambda _: None, native=native)

        def produce(emit: Callable[[str], None]) -> AgentResult:
            tap.sink = emit
            return _last(drive(tap))

        result = yield from pump(produce, on_close=lambda: setattr(tap, "closed", True))
        streamed, held = tap.loop_text, tap.held
    yield from _pieces(result, streamed, held)
    return result


async def aanswer_stream(
    drive: Callable[[AnswerTap | None], AsyncIterator[Any]],
    out: list[AgentResult],
    *,
    native: bool,
    whole: bool,
) -> AsyncIterator[str]:
    """Async twin of :func:`answer_stream`; the result goes into ``out``."""

    async def last(tap: AnswerTap | None) -> AgentResult:
        last_event: Any = None
        async for event in drive(tap):
            last_event = event
        assert isinstance(last_event, AgentResult)
        return last_event

    streamed: list[str] = []
    held: list[str] = []
    if whole:
        out.append(await last(None))
    else:
        tap = AnswerTap(lambda _: None, native=native)

        async def produce(emit: Callable[[str], None]) -> AgentResult:
            tap.sink = emit
            return await last(tap)

        async for text in apump(produce, out):
            yield text
        streamed, held = tap.loop_text, tap.held
    for piece in _pieces(out[0], streamed, held):
        yield piece

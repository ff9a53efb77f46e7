"""Answer mode, for any run driver: text while the model writes, the rest at the end.

The loop hands over a ``drive(listener)`` function that runs the whole run with the
:class:`~.listener.AnswerListener` attached to ``call_llm`` and ``answer`` and yields its
events, the result last. :func:`answer_stream` runs it on a thread
(:func:`~lcel_agent.loop.streaming.pump`), yields the answer text as the listener hands
it over, then whatever of the answer the model did not stream (an answer that was not
a plain string, a model that cannot stream, a ``return_direct`` result): the text joined
is the answer.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Generator, Iterator
from typing import Any

from ..._shared.protocol import ProtocolName
from ...conversation.outputs import answer_text
from ...state import AgentResult
from .listener import AnswerListener
from .pump import apump, pump

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
    drive: Callable[[AnswerListener | None], Iterator[Any]],
    *,
    protocol: ProtocolName,
    whole: bool,
) -> Generator[str, None, AgentResult]:
    """Yield the answer's text; return the run's result.

    Args:
        drive: runs the run with a listener (or None) and yields its events, the result last.
        protocol: the agent's protocol (how the acting model's replies read).
        whole: emit the answer only at the end (a structured answer is checked first).
    """
    streamed: list[str] = []
    held: list[str] = []
    if whole:
        result = _last(drive(None))
    else:
        listener = AnswerListener(lambda _: None, protocol=protocol)

        def produce(emit: Callable[[str], None]) -> AgentResult:
            listener.sink = emit
            return _last(drive(listener))

        result = yield from pump(produce, on_close=lambda: setattr(listener, "closed", True))
        streamed, held = listener.loop_text, listener.held
    yield from _pieces(result, streamed, held)
    return result


async def aanswer_stream(
    drive: Callable[[AnswerListener | None], AsyncIterator[Any]],
    out: list[AgentResult],
    *,
    protocol: ProtocolName,
    whole: bool,
) -> AsyncIterator[str]:
    """Async twin of :func:`answer_stream`; the result goes into ``out``."""

    async def last(listener: AnswerListener | None) -> AgentResult:
        last_event: Any = None
        async for event in drive(listener):
            last_event = event
        assert isinstance(last_event, AgentResult)
        return last_event

    streamed: list[str] = []
    held: list[str] = []
    if whole:
        out.append(await last(None))
    else:
        listener = AnswerListener(lambda _: None, protocol=protocol)

        async def produce(emit: Callable[[str], None]) -> AgentResult:
            listener.sink = emit
            return await last(listener)

        async for text in apump(produce, out):
            yield text
        streamed, held = listener.loop_text, listener.held
    for piece in _pieces(out[0], streamed, held):
        yield piece

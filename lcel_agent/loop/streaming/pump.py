"""Run a producer while its consumer reads what it emits, sync (a thread) or async (a task).

The loop runs its stages; the answer text comes out of a callback in the middle
of ``call_llm``. To hand it to the caller *while* the model is still writing,
the run works on a thread (sync) or a task (async) and the caller's generator
reads a queue. The producer's return value or exception comes back at the end::

    result = yield from pump(lambda emit: work(emit))
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Generator
from typing import Any, TypeVar

__all__ = ["apump", "pump"]

R = TypeVar("R")

_END = object()


class _Outcome:
    __slots__ = ("error", "value")

    def __init__(self) -> None:
        self.value: Any = None
        self.error: BaseException | None = None


def pump(
    produce: Callable[[Callable[[str], None]], R], *, on_close: Callable[[], None]
) -> Generator[str, None, R]:
    """Yield what ``produce(emit)`` emits while it runs on a thread; return its value.

    ``on_close`` is called when the consumer stops early, so the producer can
    stop at its next turn (a thread cannot be interrupted).
    """
    items: queue.SimpleQueue[Any] = queue.SimpleQueue()
    outcome = _Outcome()

    def work() -> None:
        try:
            outcome.value = produce(items.put)
        except BaseException as exc:
            outcome.error = exc
        finally:
            items.put(_END)

    context = contextvars.copy_context()  # callbacks and tracing context travel along
    thread = threading.Thread(target=context.run, args=(work,), name="lcel-agent-run", daemon=True)
    thread.start()
    finished = False
    try:
        while (item := items.get()) is not _END:
            yield item
        finished = True
    finally:
        if not finished:
            on_close()
    thread.join()
    if outcome.error is not None:
        raise outcome.error
    value: R = outcome.value
    return value


async def apump(
    produce: Callable[[Callable[[str], None]], Awaitable[R]], out: list[R]
) -> AsyncIterator[str]:
    """Yield what ``produce(emit)`` emits while it runs as a task; its value goes into ``out``.

    ``emit`` may be called from any thread. Closing the iterator cancels the task.
    """
    loop = asyncio.get_running_loop()
    items: asyncio.Queue[Any] = asyncio.Queue()

    def emit(text: str) -> None:
        loop.call_soon_threadsafe(items.put_nowait, text)

    async def work() -> R:
        try:
            return await produce(emit)
        finally:
            # Through the same door as the text, so nothing emitted comes after the end.
            loop.call_soon_threadsafe(items.put_nowait, _END)

    task = asyncio.ensure_future(work())
    try:
        while (item := await items.get()) is not _END:
            yield item
        out.append(await task)
    finally:
        if not task.done():
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

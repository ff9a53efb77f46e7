"""A callback handler that turns the model's streamed tokens into answer text.

Chat models stream under ``invoke`` when a handler of langchain-core's
streaming kind (the ``tap_output_iter``/``tap_output_aiter`` pair that
``astream_events`` uses) is attached to their run. The loop attaches an
:class:`AnswerListener` to the ``call_llm`` and ``answer`` stages only (so a tool that
calls a model of its own streams nothing here) and gives it a ``sink`` for the
text. Each model run (a retry is a new run) gets a fresh reader: :class:`JsonAnswerReader`
for the JSON protocol, :class:`TextAnswerReader` for the tool-calling protocol and
for the answer stage's text requests.

Once tools have succeeded, the acting model's answer may still be replaced by the
answer stage's: the loop then *holds* it (``begin_loop(hold=True)``): its text is read
as it comes but kept in :attr:`AnswerListener.held`, and sent, in the pieces it came in,
once the answer stage has let it stand (a stream must not show an answer it then
replaces). The answer stage's own replies stream as they are written, words only
(:mod:`.words`): a text reply's words, and a reply held to its lines schema line by
line, each line as the stage delivers it; its replies are joined by newlines, as the
answer is.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any, Protocol, TypeVar
from uuid import UUID

from langchain_core.callbacks import BaseCallbackHandler

# Private, and a Protocol in langchain-core 1.x but an ABC in 0.3: inheriting it is
# what makes chat models stream under invoke on both (astream_events does the same).
from langchain_core.tracers._streaming import _StreamingCallbackHandler

from ..._shared.protocol import ProtocolName
from .json_answer import JsonAnswerReader
from .words import FieldsReader, WordsReader

__all__ = ["AnswerListener", "AnswerReader", "TextAnswerReader"]

T = TypeVar("T")


class AnswerReader(Protocol):
    """Reads one model reply, fragment by fragment."""

    def feed(self, fragment: str) -> str:
        """The answer text ``fragment`` adds."""
        ...


class TextAnswerReader:
    """Tool-calling protocol: the reply's text, until the reply turns out to call a tool."""

    __slots__ = ("calls",)

    def __init__(self) -> None:
        self.calls = False

    def feed(self, fragment: str) -> str:
        return "" if self.calls else fragment


def _text(token: Any) -> str:
    if isinstance(token, str):
        return token
    if isinstance(token, list):  # content blocks
        return "".join(
            p if isinstance(p, str) else str(p.get("text", ""))
            for p in token
            if isinstance(p, (str, dict))
        )
    return ""


class AnswerListener(BaseCallbackHandler, _StreamingCallbackHandler):  # type: ignore[misc,type-arg]
    """Collects the answer text of the model's streamed replies and hands it to ``sink``.

    Args:
        sink: called with each piece of answer text, in order.
        protocol: the agent's protocol: it decides how the acting model's replies read.
    """

    run_inline = True  # in async runs too: called in order, on the event loop

    def __init__(self, sink: Callable[[str], None], *, protocol: ProtocolName) -> None:
        self.sink = sink
        """Where the answer text goes (the loop sets it when the run starts)."""
        self._protocol = protocol
        self._readers: dict[UUID, AnswerReader] = {}
        self.loop_text: list[str] = []
        """The answer text emitted during the current loop."""
        self.closed = False
        """Set when the consumer stopped listening; the loop stops at its next turn."""
        self._hold = False
        self._writing = False
        self._line: Callable[[str, str], str | None] | None = None
        self.held: list[str] = []
        """The acting model's answer text of this loop, kept while it may be replaced."""
        self._began: set[UUID] = set()  # model runs that have sent text

    def begin_loop(self, *, hold: bool = False) -> None:
        """Forget the previous loop's text (the answer is the last loop's).

        ``hold``: the acting model's answer may yet be replaced: keep it in :attr:`held`.
        """
        self.loop_text = []
        self.held = []
        self._hold = hold

    def writing(self, line: Callable[[str, str], str | None] | None = None) -> AnswerListener:
        """The listener as the answer stage's models see it: words only (see the module doc).

        ``line(key, value)`` formats a field of a schema-held reply as the stage delivers
        it; without it such replies are sent whole at the end.
        """
        twin = AnswerListener(self._send_written, protocol=self._protocol)
        twin.loop_text = self.loop_text  # the same list: one record of what the loop sent
        twin._writing = True
        twin._line = line
        return twin

    def _send_written(self, text: str) -> None:
        self.sink(text)

    def on_chat_model_start(
        self, serialized: dict[str, Any], messages: list[list[Any]], *, run_id: UUID, **kwargs: Any
    ) -> None:
        if self._writing:
            params = kwargs.get("invocation_params") or {}
            if "response_format" in (params.get("extra_body") or {}) or "format" in params:
                if self._line is not None:  # a reply held to the lines schema: line by line
                    self._readers[run_id] = FieldsReader(self._line)
                return
            self._readers[run_id] = WordsReader()
            return
        json = self._protocol == "json"
        self._readers[run_id] = JsonAnswerReader() if json else TextAnswerReader()

    def on_llm_new_token(
        self, token: Any, *, chunk: Any = None, run_id: UUID, **kwargs: Any
    ) -> None:
        reader = self._readers.get(run_id)
        if reader is None:
            return
        message = getattr(chunk, "message", None)
        if isinstance(reader, TextAnswerReader) and getattr(message, "tool_call_chunks", None):
            reader.calls = True
        text = reader.feed(_text(token))
        if not text:
            return
        if self._hold:  # read, but kept until the answer stage lets it stand
            self.held.append(text)
            return
        if self._writing and self.loop_text and not self._started(run_id):
            text = "\n" + text  # the stage's replies are joined by newlines, as its answer is
        self._began.add(run_id)
        self.loop_text.append(text)
        self.sink(text)

    def _started(self, run_id: UUID) -> bool:
        return run_id in self._began

    def on_llm_end(self, response: Any, *, run_id: UUID, **kwargs: Any) -> None:
        self._readers.pop(run_id, None)

    def on_llm_error(self, error: BaseException, *, run_id: UUID, **kwargs: Any) -> None:
        self._readers.pop(run_id, None)

    # The streaming-handler protocol of langchain-core: its presence makes models stream.
    def tap_output_iter(self, run_id: UUID, output: Iterator[T]) -> Iterator[T]:
        return output

    def tap_output_aiter(self, run_id: UUID, output: AsyncIterator[T]) -> AsyncIterator[T]:
        return output

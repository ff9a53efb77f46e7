"""A model-written summary of the turns that leave the window.

::

    from lcel_agent.memory import SlidingWindowMemory, SummaryCompactor
    memory = SlidingWindowMemory(800, compactor=SummaryCompactor(llm, max_tokens=200))

Each compaction is one call of ``llm`` (any chat model or Runnable around one):
the summary so far and the new turns' facts in, a new summary out, cut to
``max_tokens`` and to the window's room. The calls and their tokens are kept on
the digest (``digest.calls``, ``digest.input_tokens``, ``digest.output_tokens``);
the agent adds them to the run's usage, so ``token_budget`` counts them. A
failed call is never fatal: the facts are kept as digest lines instead (the
:class:`~lcel_agent.memory.compaction.DigestCompactor` way) and the next
compaction tries again.

Compared with the default digest it costs a model call per compaction and may
paraphrase (or drop) a fact; it wins when results are long prose whose point
the head of the text does not carry.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_core.runnables import Runnable

from lcel_agent._shared.messages import message_text
from lcel_agent._shared.timeout import acall_with_timeout, call_with_timeout

from .compaction import Digest, DigestCompactor, Turn
from .counters import TokenCounter
from .shrink import head_text

__all__ = ["SUMMARY_PROMPT", "SummaryCompactor"]

SUMMARY_PROMPT = (
    "You keep the notes of an agent working on a task. Merge the new steps into the notes. "
    "Keep every fact the task may need: names, numbers, dates, links, which calls failed. "
    "Drop chatter and repetition. Write plain short lines, no preamble."
)
"""The instruction the summarising model gets (a system message)."""

_HEADER = "Summary of earlier steps:"


class SummaryCompactor:
    """Compaction by a model-written summary (see the module docstring).

    Args:
        llm: the chat model that writes the summary (a small, cheap one is enough).
        max_tokens: the longest summary kept.
        keep_turns: turns the window keeps word for word whatever the room (older ones
            are summarised); None (the default) summarises only when the window is full.
        prompt: the summarising instruction.
        timeout: seconds one summary call may take; past it the facts are kept as
            lines instead (the run's ``time_budget`` is checked between loops, so
            this bounds how far a slow summariser can carry a run past it).
    """

    def __init__(
        self,
        llm: Runnable[Any, Any],
        *,
        max_tokens: int = 200,
        keep_turns: int | None = None,
        prompt: str = SUMMARY_PROMPT,
        timeout: float | None = 30.0,
    ) -> None:
        if not isinstance(llm, Runnable):
            raise TypeError(f"llm must be a chat model or a Runnable, not {type(llm).__name__}")
        if max_tokens < 16:
            raise ValueError(f"max_tokens must be >= 16, got {max_tokens}")
        if timeout is not None and not timeout > 0:
            raise ValueError(f"timeout must be > 0 seconds or None, got {timeout}")
        self.llm = llm
        self.max_tokens = max_tokens
        self.keep_turns = keep_turns
        self.prompt = prompt
        self.timeout = timeout
        # Lines are how new turns are shown to the summariser, and the fallback on failure.
        self._lines = DigestCompactor(keep_turns=keep_turns, line_tokens=120, header=_HEADER)

    def __repr__(self) -> str:
        return f"SummaryCompactor(max_tokens={self.max_tokens}, keep_turns={self.keep_turns})"

    def _request(
        self, digest: Digest, turns: Sequence[Turn], counter: TokenCounter
    ) -> list[BaseMessage]:
        new = self._lines.compact(Digest(header=_HEADER), turns, 10**9, counter)
        notes = digest.text or "(none yet)"
        return [
            SystemMessage(content=self.prompt),
            HumanMessage(content=f"Notes so far:\n{notes}\n\nNew steps:\n{new.text or '(none)'}"),
        ]

    def _done(self, digest: Digest, reply: Any, budget: int, counter: TokenCounter) -> Digest:
        message = reply if isinstance(reply, BaseMessage) else AIMessage(content=str(reply))
        usage = getattr(message, "usage_metadata", None) or {}
        text = head_text(message_text(message).strip(), min(self.max_tokens, budget), counter)
        summary = Digest(
            text=text,
            calls=digest.calls + 1,
            input_tokens=digest.input_tokens + int(usage.get("input_tokens", 0)),
            output_tokens=digest.output_tokens + int(usage.get("output_tokens", 0)),
            header=_HEADER,
        )
        return self.fit(summary, budget, counter)

    def _fallback(
        self, digest: Digest, turns: Sequence[Turn], budget: int, counter: TokenCounter
    ) -> Digest:
        # Keep the facts as lines after the summary so far; the next compaction retries.
        kept = replace(digest, calls=digest.calls + 1)
        lines = self._lines.compact(Digest(header=_HEADER), turns, budget, counter).text
        merged = "\n".join(t for t in (digest.text, lines) if t)
        return self.fit(replace(kept, text=merged, header=_HEADER), budget, counter)

    def lossless(self, turn: Turn, counter: TokenCounter) -> bool:
        return False  # a summary may always paraphrase

    def compact(
        self, digest: Digest, turns: Sequence[Turn], budget: int, counter: TokenCounter
    ) -> Digest:
        if not turns:
            return digest
        request = self._request(digest, turns, counter)
        try:
            reply = call_with_timeout(lambda: self.llm.invoke(request), self.timeout, "summary")
        except Exception:  # a summary is an optimisation: the run must not die of it
            return self._fallback(digest, turns, budget, counter)
        return self._done(digest, reply, budget, counter)

    async def acompact(
        self, digest: Digest, turns: Sequence[Turn], budget: int, counter: TokenCounter
    ) -> Digest:
        if not turns:
            return digest
        request = self._request(digest, turns, counter)
        try:
            reply = await acall_with_timeout(
                lambda: self.llm.ainvoke(request), self.timeout, "summary"
            )
        except Exception:
            return self._fallback(digest, turns, budget, counter)
        return self._done(digest, reply, budget, counter)

    def fit(self, digest: Digest, budget: int, counter: TokenCounter) -> Digest:
        if counter(digest.block) <= budget:
            return digest
        room = max(budget - counter(digest.header) - 1, 0)
        return replace(digest, text=head_text(digest.text, room, counter) if room else "")

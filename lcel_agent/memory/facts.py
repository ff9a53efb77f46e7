"""What compaction works on: the facts a turn established, turns, and the digest.

:class:`Fact` (a tool call and its result), :class:`Turn` (a turn's messages and facts, as a
compactor is handed it) and :class:`Digest` (what the compacted turns left behind). They are
public from :mod:`lcel_agent.memory.compaction` and :mod:`lcel_agent.memory`; this module
holds them so that the compactors' module holds only the compactors.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from langchain_core.messages import BaseMessage

__all__ = ["ANSWER_CALL", "HEADER", "Digest", "Fact", "Turn"]

#: The ``call`` of the fact a final answer establishes: ``Fact(ANSWER_CALL, answer)``.
ANSWER_CALL = "final answer"

HEADER = "Done so far:"
"""The line the default digest starts with."""


@dataclass(frozen=True, slots=True)
class Fact:
    """What one step established: a tool call and its result (or the answer)."""

    call: str
    """How the step reads: ``get_weather(北京)``."""
    result: str
    """The result the model saw (for a failure: the error text)."""
    ok: bool = True
    """False for a call that failed."""
    subject: str = ""
    """The call's input as text; a line omits the call when the result contains it."""
    key: str = ""
    """Identity of the call (default ``call``): a newer fact with the same key replaces an older one."""

    @property
    def identity(self) -> str:
        """What makes two facts the same fact: ``key``, else ``call``."""
        return self.key or self.call


@dataclass(frozen=True, slots=True)
class Turn:
    """A turn handed to a compactor: its messages and what it established."""

    messages: tuple[BaseMessage, ...]
    facts: tuple[Fact, ...] = ()
    """What the turn established, when the agent knows (empty for turns added as plain messages)."""
    failed: bool = False
    """True for a loop that failed (a garbled reply, an unknown tool, a failed call ...)."""


@dataclass(frozen=True, slots=True)
class Digest:
    """The compacted past: a block of text, and how it came to be."""

    text: str = ""
    """The body shown to the model (without the header); empty when nothing was compacted."""
    facts: tuple[Fact, ...] = ()
    """The entries the text was rendered from (:class:`DigestCompactor`)."""
    dropped: int = 0
    """Entries dropped to keep the digest within its budget."""
    calls: int = 0
    """Model calls spent on compaction so far (:class:`SummaryCompactor`)."""
    input_tokens: int = 0
    """Prompt tokens of those calls."""
    output_tokens: int = 0
    """Completion tokens of those calls."""
    header: str = field(default=HEADER, compare=False)
    """The line shown before the text."""
    fresh: tuple[str, ...] = ()
    """The facts (by identity) of the newest turn folded, when the compactor keeps them whole
    (``DigestCompactor(newest_whole=True)``): what the next call may need, in view."""
    focus: str = field(default="", compare=False)
    """The question being worked on, set by the window each time it hands the digest to its
    compactor (never stored): a newest result too large for the window is cut keeping the
    lines that name its words."""

    @property
    def block(self) -> str:
        """What the window appends to the question: header and text, or "" when empty."""
        return f"{self.header}\n{self.text}" if self.text else ""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe snapshot (for a stored window: a durable run's checkpoint)."""
        return {
            "text": self.text,
            "header": self.header,
            "facts": [[f.call, f.result, f.ok, f.subject, f.key] for f in self.facts],
            "dropped": self.dropped,
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "fresh": list(self.fresh),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Digest:
        """Rebuild a digest from :meth:`to_dict`."""
        facts = tuple(
            Fact(str(c), str(r), bool(ok), str(s), str(k))
            for c, r, ok, s, k in data.get("facts") or []
        )
        return cls(
            text=str(data.get("text", "")),
            facts=facts,
            dropped=int(data.get("dropped", 0)),
            calls=int(data.get("calls", 0)),
            input_tokens=int(data.get("input_tokens", 0)),
            output_tokens=int(data.get("output_tokens", 0)),
            header=str(data.get("header") or HEADER),
            fresh=tuple(str(f) for f in data.get("fresh") or ()),
        )

"""The agent's memory: a token-bounded window that forgets text, not facts.

* :class:`SlidingWindowMemory` (:mod:`.window`): pinned system prompt and
  question, whole turns, a budget it never exceeds;
* compaction (:mod:`.compaction`, :mod:`.summary`): what turns leave behind when
  they leave the window, by default a digest of the facts they established;
* token counters (:mod:`.counters`);
* :mod:`.shrink`: shortening a text while keeping it readable;
* :mod:`.persist` (the window as JSON, for checkpoints) and :mod:`.trim` (the rules
  on a plain message list).

::

    from lcel_agent.memory import SlidingWindowMemory, DigestCompactor, SummaryCompactor
    SlidingWindowMemory(max_tokens=800)                              # digest of facts (default)
    SlidingWindowMemory(800, compactor=DigestCompactor(keep_turns=2)) # two turns word for word
    SlidingWindowMemory(800, compactor=SummaryCompactor(llm))         # a model writes a summary
    SlidingWindowMemory(800, compactor=None)                          # plain sliding window
"""

from .compaction import HEADER, Compactor, Digest, DigestCompactor, Fact, Turn
from .shrink import head_text, shrink_text, truncate_text
from .summary import SummaryCompactor
from .trim import trim_memory_runnable, trim_messages
from .window import AGENT_COMPACTOR, AGENT_TOOL_COMPACTOR, DEFAULT_COMPACTOR, SlidingWindowMemory

__all__ = [
    "AGENT_COMPACTOR",
    "AGENT_TOOL_COMPACTOR",
    "DEFAULT_COMPACTOR",
    "HEADER",
    "Compactor",
    "Digest",
    "DigestCompactor",
    "Fact",
    "SlidingWindowMemory",
    "SummaryCompactor",
    "Turn",
    "head_text",
    "shrink_text",
    "trim_memory_runnable",
    "trim_messages",
    "truncate_text",
]

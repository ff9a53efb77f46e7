"""A token-bounded window of chat messages that forgets text, not facts.

::

    from lcel_agent.memory import SlidingWindowMemory

    memory = SlidingWindowMemory(max_tokens=800)          # or counter="tiktoken"
    memory.add_system("Reply with one JSON action.")      # pinned
    memory.add_user("北京和上海今天天气如何？")              # pinned: the question
    memory.add_assistant('{"action": "get_weather", "action_input": "北京"}')  # starts a turn
    memory.add_observation("北京市天气：晴，温度25℃")          # joins that turn
    memory.messages, memory.token_count                    # what to send, what it costs

Rules (:func:`trim_messages` applies the same ones to a plain list, without compaction):

* The system prompt and the user's question are pinned and never leave. In a
  conversation that goes on (a thread's next run, or the messages of an input), the
  next question (``add_user``) is pinned in place of the previous one, which becomes
  ordinary history, older than the new question.
* Everything else is grouped into *turns*: an assistant message and what
  follows it (observations, tool results) until the next assistant message. A
  turn leaves whole, oldest first, so an action never loses its observation and,
  after the pinned ``[system, user]``, roles keep alternating user/assistant
  (some OpenAI-compatible providers reject two in a row).
* With a *compactor* (the default :class:`~lcel_agent.memory.compaction.DigestCompactor`),
  turns that leave are folded into a bounded digest shown with the question
  (``question + "\\n\\n" + digest``), so what they established stays in view:
  turns older than the compactor's ``keep_turns``; a failed turn (added with
  ``failed=True``) as soon as a later turn succeeds, because a garbled reply
  and its correction are worth nothing once resolved; and the oldest turns
  whenever the budget demands it. ``compactor=None`` is a plain sliding window.
* ``token_count`` is kept up to date incrementally: each message is counted
  once when added. The window never exceeds ``max_tokens`` unless the pinned
  messages alone do: the digest is kept within what the pinned messages and
  the newest turn leave (the newest turn keeps at least an eighth of the
  window); if the newest turn still does not fit, its largest messages are
  shortened: a tool result is cut by :func:`~lcel_agent.memory.cut.cut_result` (its
  ends and the lines naming the question's words, a marker in each gap saying how many
  lines and characters are left out), the model's own words keep head and tail around a
  visible ``…[truncated N chars]…`` marker; then the digest; then the turn leaves.

A window is not thread-safe; give each run its own (see :meth:`fresh`). The rules
themselves live in :mod:`lcel_agent.memory._rules`.
"""

from __future__ import annotations

import contextlib
import itertools
import logging
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage

from lcel_agent.errors import ConfigurationError

from . import persist
from ._rules import WindowRules, _Entry
from .compaction import Compactor, Digest, DigestCompactor, Fact
from .counters import TokenCounter, resolve_counter

__all__ = ["AGENT_COMPACTOR", "AGENT_TOOL_COMPACTOR", "DEFAULT_COMPACTOR", "SlidingWindowMemory"]

logger = logging.getLogger("lcel_agent.memory")

#: The default compactor: one digest line per fact, turns kept word for word while there is room.
DEFAULT_COMPACTOR: Compactor = DigestCompactor()

#: The compactor of an agent's own window (``create_agent(memory=None)``) when its answer
#: stage keeps every result for the answer: the window then needs what the model acts on.
#: Every turn folds into its lines at once (a failed turn stays until it is resolved); the
#: newest turn's lines keep their results whole while the window has room and every older
#: line keeps its result beside them (a listing, a page of search hits, an id just created:
#: the next call may need any of it), the lines hold at most 250 tokens of results, the
#: newest counted first, and older calls keep their ledger line. A newest result larger
#: than the window is cut to the room the older lines leave it (at least half), keeping its
#: ends and the lines that name the question's words (:mod:`lcel_agent.memory.cut`). (Kept
#: as a turn, the newest results were copied back by a 1.5B model instead of answering:
#: docs/benchmarks.md, "Round 5".)
AGENT_COMPACTOR: Compactor = DigestCompactor(keep_turns=0, max_tokens=250, newest_whole=True)

#: The same for the tool-calling protocol, but the newest turn always stays a turn: a model
#: that called a tool expects its result as the tool message after its call (folded into the
#: question, a model reads the question as still unanswered and calls again: seen on
#: llmock 0.2.2, which answers in words only after a tool message).
AGENT_TOOL_COMPACTOR: Compactor = DigestCompactor(keep_turns=1, max_tokens=250)


class SlidingWindowMemory(WindowRules):
    """The agent's memory window; see the module docstring for the rules.

    Args:
        max_tokens: the budget for all messages, pinned and digest included.
        counter: a token counter or a name for :func:`~lcel_agent.memory.counters.resolve_counter`
            (default: the fast estimate).
        compactor: what turns that leave become (default: a digest of their facts;
            ``None``: they are forgotten).
    """

    def __init__(
        self,
        max_tokens: int = 800,
        counter: TokenCounter | str | None = None,
        compactor: Compactor | None = DEFAULT_COMPACTOR,
    ) -> None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
            raise TypeError(f"max_tokens must be an int, not {type(max_tokens).__name__}")
        if max_tokens < 1:
            raise ConfigurationError(f"max_tokens must be at least 1, got {max_tokens}")
        if compactor is not None and not isinstance(compactor, Compactor):
            raise TypeError(
                f"compactor must implement lcel_agent.memory.Compactor, not {type(compactor).__name__}"
            )
        self.max_tokens: int = max_tokens
        """The budget in tokens for the whole window, pinned messages included."""
        self.counter: TokenCounter = resolve_counter(counter)
        """The token counter every message is measured with (once, when added)."""
        self.compactor: Compactor | None = compactor
        """What turns that leave the window become (None: they are forgotten)."""
        self._system: BaseMessage | None = None
        self._system_cost = 0
        self._question: BaseMessage | None = None
        self._question_cost = 0
        self._digest = Digest()
        self._digest_cost = 0
        self._shown: BaseMessage | None = None  # the question as shown, with the digest
        self._turns: deque[_Entry] = deque()
        # How many of _turns are older than the pinned question (the history of
        # earlier questions of a conversation); the question sits between them and the rest.
        self._history = 0
        self._leaving: list[_Entry] = []  # resolved failures, folded by the next trim
        self._placing = False  # inside placing(): trim once, at the end
        self._total = 0
        self._evicted = 0
        self._truncated = 0
        self._compacted = 0

    # --- reading --------------------------------------------------------------------

    @property
    def messages(self) -> list[BaseMessage]:
        """Pinned system, then every other message oldest to newest, the pinned question in place.

        In one run that is ``[system, question (+ digest), turn …]``; after a later
        question (see :meth:`add_user`) the earlier exchange comes before it.
        """
        out = [self._system] if self._system is not None else []
        turns = iter(self._turns)
        for turn in itertools.islice(turns, self._history):
            out += turn.messages
        if self._shown is not None:
            out.append(self._shown)
        for turn in turns:
            out += turn.messages
        return out

    @property
    def token_count(self) -> int:
        """``sum(count_message(m, counter) for m in messages)``, kept up to date."""
        return self._total

    @property
    def pinned_tokens(self) -> int:
        """Tokens used by the pinned system prompt and question (the digest not included)."""
        return self._system_cost + self._question_cost

    @property
    def digest(self) -> Digest:
        """What the compacted turns left behind (empty until a turn is compacted)."""
        return self._digest

    @property
    def digest_tokens(self) -> int:
        """Tokens the digest adds to the window."""
        return self._digest_cost

    @property
    def evicted(self) -> int:
        """Messages that left the window so far (compacted or forgotten)."""
        return self._evicted

    @property
    def compacted(self) -> int:
        """Turns folded into the digest so far."""
        return self._compacted

    @property
    def truncated(self) -> int:
        """Messages shortened so far because they did not fit."""
        return self._truncated

    @property
    def turns(self) -> int:
        """Turns in the window (pinned messages and the digest are not turns)."""
        return len(self._turns)

    def __len__(self) -> int:
        return len(self.messages)

    def __repr__(self) -> str:
        return (
            f"SlidingWindowMemory(max_tokens={self.max_tokens}, messages={len(self)}, "
            f"token_count={self._total}, evicted={self._evicted}, compacted={self._compacted})"
        )

    # --- adding ---------------------------------------------------------------------

    def add(self, message: BaseMessage) -> None:
        """Add one message by its role, then trim.

        A SystemMessage replaces the pinned system prompt; the first HumanMessage
        (while none is pinned) becomes the pinned question; an AIMessage starts a
        new turn; anything else joins the newest turn (or starts one).
        """
        self._place(message)
        if not self._placing:
            self._trim()

    @contextlib.contextmanager
    def placing(self) -> Iterator[None]:
        """Add several messages and trim once, when the block ends.

        For a conversation given whole (earlier questions and answers, then the new
        question): its turns become history only when the new question arrives, and a
        compactor that folds the current turns at once (``keep_turns=0``) must not fold
        them before that::

            with window.placing():
                window.add_user("你是谁")
                window.add_assistant("我是天气助手")
                window.add_user("北京天气")
        """
        self._placing = True
        try:
            yield
        finally:
            self._placing = False
            self._trim()

    def add_system(self, content: str) -> None:
        """Set (or replace) the pinned system prompt."""
        self.add(SystemMessage(content=content))

    def add_user(self, content: str | list[str | dict[str, Any]]) -> None:
        """Add the user's question (text, or content blocks with images); it is pinned.

        The first question is pinned at once. A later one (the next run of a
        conversation, on a thread) is pinned in its place: the earlier question and its turns
        become history, still in order before it, and leave first. The earlier
        run's unresolved failures leave now (that run is over), and so do its last
        turns if they end with anything but the assistant's word, so the new
        question never follows another user message. (``add(HumanMessage(...))``
        instead joins the newest turn, as an observation would.)
        """
        if self._question is not None:
            self._resolve()
            history = _Entry()
            history.append(self._question, self._question_cost)
            self._turns.insert(self._history, history)
            self._history = len(self._turns)
            self._set_question(None)  # its tokens now belong to the history turn
            while self._history and not isinstance(
                self._turns[self._history - 1].messages[-1], AIMessage
            ):
                self._leaving.append(self._take(self._turns[self._history - 1]))
        self.add(HumanMessage(content=content))

    def add_assistant(self, content: str | AIMessage) -> None:
        """Start a new turn with an assistant message (text, or an AIMessage with tool calls)."""
        self.add(content if isinstance(content, AIMessage) else AIMessage(content=content))

    def add_observation(self, content: str, *, tool_call_id: str | None = None) -> None:
        """Add a tool result to the newest turn: a ToolMessage if ``tool_call_id`` is given,
        else a HumanMessage (never an assistant message, so roles keep alternating)."""
        if tool_call_id is None:
            message: BaseMessage = HumanMessage(content=content)
        else:
            message = ToolMessage(content=content, tool_call_id=tool_call_id)
        self._join(message)
        if not self._placing:
            self._trim()

    def add_turn(
        self,
        messages: Sequence[BaseMessage],
        *,
        facts: Sequence[Fact] = (),
        failed: bool = False,
    ) -> None:
        """Add ``messages`` as one turn, which leaves the window whole, whatever its roles.

        ``facts`` say what the turn established (the compactor keeps them when the
        turn leaves); ``failed=True`` marks a loop that failed: it leaves as soon as
        a later turn is added without ``failed``.
        """
        self._push_turn(messages, facts, failed)
        if not self._placing:
            self._trim()

    async def aadd_turn(
        self,
        messages: Sequence[BaseMessage],
        *,
        facts: Sequence[Fact] = (),
        failed: bool = False,
    ) -> None:
        """Async twin of :meth:`add_turn` (a model-written compaction runs asynchronously)."""
        self._push_turn(messages, facts, failed)
        steps = self._trim_steps()
        try:
            batch = next(steps)
            while True:
                assert self.compactor is not None
                digest = await self.compactor.acompact(
                    self._handed(), batch, self._digest_budget(), self.counter
                )
                batch = steps.send(digest)
        except StopIteration:
            pass

    def extend(self, messages: Iterable[BaseMessage]) -> None:
        """``add`` each message, trimming once at the end (same result, less work)."""
        for message in messages:
            self._place(message)
        if not self._placing:
            self._trim()

    def clear(self) -> None:
        """Remove every message, the digest and pinned ones included; counters are kept."""
        self._system = None
        self._system_cost = 0
        self._set_question(None)
        self._digest = Digest()
        self._refresh_shown()
        self._turns.clear()
        self._leaving.clear()
        self._history = 0
        self._total = 0

    def fresh(self) -> SlidingWindowMemory:
        """An empty window with the same budget, counter and compactor (a window as a template)."""
        return SlidingWindowMemory(self.max_tokens, self.counter, self.compactor)

    def copy(self) -> SlidingWindowMemory:
        """An independent window with the same contents (messages themselves are shared)."""
        twin = self.fresh()
        twin._system, twin._system_cost = self._system, self._system_cost
        twin._question, twin._question_cost = self._question, self._question_cost
        twin._digest, twin._digest_cost, twin._shown = self._digest, self._digest_cost, self._shown
        twin._turns = deque(turn.copy() for turn in self._turns)
        twin._history = self._history
        twin._leaving = [turn.copy() for turn in self._leaving]
        twin._total, twin._evicted, twin._truncated = self._total, self._evicted, self._truncated
        twin._compacted = self._compacted
        return twin

    # --- persistence ----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe snapshot (messages via langchain-core's ``messages_to_dict``)."""
        return persist.dump(self)

    @classmethod
    def from_dict(
        cls,
        data: dict[str, Any],
        counter: TokenCounter | str | None = None,
        *,
        max_tokens: int | None = None,
        compactor: Compactor | None = DEFAULT_COMPACTOR,
    ) -> SlidingWindowMemory:
        """Rebuild a window from :meth:`to_dict` (format 1 or 2); tokens are recounted.

        ``max_tokens`` overrides the stored budget (the window is trimmed to it).
        """
        return persist.load(cls, data, counter, max_tokens=max_tokens, compactor=compactor)

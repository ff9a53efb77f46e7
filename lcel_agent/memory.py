"""A token-bounded sliding window of chat messages that keeps roles alternating.

::

    from lcel_agent.memory import SlidingWindowMemory

    memory = SlidingWindowMemory(max_tokens=800)          # or counter="tiktoken"
    memory.add_system("Reply with one JSON action.")      # pinned
    memory.add_user("北京和上海今天天气如何？")              # pinned: the first question
    memory.add_assistant('{"action": "get_weather", "action_input": "北京"}')  # starts a turn
    memory.add_observation("北京天气：晴，温度25℃")          # joins that turn
    memory.messages, memory.token_count                    # what to send, what it costs

Rules (the same for :func:`trim_messages` on a plain list):

* The system prompt and the user's question are pinned and never evicted. In a
  session, the next run's question (``add_user``) is pinned in place of the
  previous one, which becomes ordinary history, evicted oldest first.
* Everything else is grouped into *turns*: an assistant message and what
  follows it (observations, tool results) until the next assistant message. A
  turn is evicted whole, oldest first, so an action never loses its
  observation and, after the pinned ``[system, user]``, roles keep alternating
  user/assistant (some OpenAI-compatible providers reject two in a row).
* ``token_count`` is kept up to date incrementally: each message is counted
  once when added; adding and trimming cost O(1) amortized per message.
* The newest turn is kept whenever possible. If it alone does not fit in the
  room the pinned messages leave, its largest messages are truncated, keeping
  head and tail around a visible ``…[truncated N chars]…`` marker. Only if even
  that cannot fit (the pinned messages use up the budget) is it evicted too;
  ``token_count`` exceeds ``max_tokens`` only when nothing but pinned messages
  remain. Trimming always terminates.

A window is not thread-safe; give each run its own (see :meth:`fresh`).
"""

from __future__ import annotations

import itertools
from collections import deque
from collections.abc import Iterable, Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda

from lcel_agent.errors import ConfigurationError
from lcel_agent.tokens import TokenCounter, count_message, resolve_counter

__all__ = ["SlidingWindowMemory", "trim_memory_runnable", "trim_messages", "truncate_text"]

_FORMAT_VERSION = 1


def truncate_text(text: str, keep: int) -> str:
    """Shorten ``text`` to ``keep`` of its characters (head and tail) around a visible marker."""
    if keep >= len(text):
        return text
    keep = max(keep, 0)
    tail = keep // 3
    head = keep - tail
    return f"{text[:head]}…[truncated {len(text) - keep} chars]…{text[len(text) - tail :]}"


def _text_of(message: BaseMessage) -> str:
    content = message.content
    if isinstance(content, str):
        return content
    return "\n".join(
        p if isinstance(p, str) else str(p.get("text", "")) if p.get("type") == "text" else ""
        for p in content
    )


def _shrink(message: BaseMessage, target: int, counter: TokenCounter) -> tuple[BaseMessage, int]:
    """The longest head+tail truncation of ``message`` costing at most ``target`` tokens.

    Binary search over the number of kept characters: O(log n) counter calls.
    If nothing fits (or the counter is not monotonic), the content becomes the
    marker alone, which is as small as the message can get.
    """
    text = _text_of(message)

    def variant(keep: int) -> tuple[BaseMessage, int]:
        candidate = message.model_copy(update={"content": truncate_text(text, keep)})
        return candidate, count_message(candidate, counter)

    lo, hi = 0, len(text) - 1  # keep == len(text) is the original, known to be too big
    best = variant(0)
    if best[1] > target:
        return best
    while lo < hi:
        mid = (lo + hi + 1) // 2
        candidate = variant(mid)
        if candidate[1] <= target:
            lo, best = mid, candidate
        else:
            hi = mid - 1
    return best


class _Turn:
    """An assistant message and what followed it: evicted together."""

    __slots__ = ("costs", "messages", "tokens")

    def __init__(self) -> None:
        self.messages: list[BaseMessage] = []
        self.costs: list[int] = []
        self.tokens = 0

    def append(self, message: BaseMessage, cost: int) -> None:
        self.messages.append(message)
        self.costs.append(cost)
        self.tokens += cost

    def replace(self, index: int, message: BaseMessage, cost: int) -> None:
        self.tokens += cost - self.costs[index]
        self.messages[index] = message
        self.costs[index] = cost

    def copy(self) -> _Turn:
        twin = _Turn()
        twin.messages, twin.costs, twin.tokens = list(self.messages), list(self.costs), self.tokens
        return twin


class SlidingWindowMemory:
    """The agent's memory window; see the module docstring for the eviction rules.

    ``max_tokens`` is the budget for all messages (pinned included);
    ``counter`` is a token counter or a name for :func:`~lcel_agent.tokens.resolve_counter`
    (default: the fast estimate).
    """

    def __init__(self, max_tokens: int = 800, counter: TokenCounter | str | None = None) -> None:
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
            raise TypeError(f"max_tokens must be an int, not {type(max_tokens).__name__}")
        if max_tokens < 1:
            raise ConfigurationError(f"max_tokens must be at least 1, got {max_tokens}")
        self.max_tokens: int = max_tokens
        """The budget in tokens for the whole window, pinned messages included."""
        self.counter: TokenCounter = resolve_counter(counter)
        """The token counter every message is measured with (once, when added)."""
        self._system: BaseMessage | None = None
        self._system_cost = 0
        self._question: BaseMessage | None = None
        self._question_cost = 0
        self._turns: deque[_Turn] = deque()
        # How many of _turns are older than the pinned question (the history of
        # earlier questions in a session); the question sits between them and the rest.
        self._history = 0
        self._total = 0
        self._evicted = 0
        self._truncated = 0

    # --- reading --------------------------------------------------------------------

    @property
    def messages(self) -> list[BaseMessage]:
        """Pinned system, then every other message oldest to newest, the pinned question in place.

        In one run that is ``[system, question, turn 1, turn 2, …]``; after a later
        question (see :meth:`add_user`) the earlier exchange comes before it.
        """
        out = [self._system] if self._system is not None else []
        turns = iter(self._turns)
        for turn in itertools.islice(turns, self._history):
            out += turn.messages
        if self._question is not None:
            out.append(self._question)
        for turn in turns:
            out += turn.messages
        return out

    @property
    def token_count(self) -> int:
        """``sum(count_message(m, counter) for m in messages)``, kept up to date."""
        return self._total

    @property
    def pinned_tokens(self) -> int:
        """Tokens used by the pinned system prompt and question."""
        return self._system_cost + self._question_cost

    @property
    def evicted(self) -> int:
        """Messages evicted so far."""
        return self._evicted

    @property
    def truncated(self) -> int:
        """Messages truncated so far because they did not fit."""
        return self._truncated

    @property
    def turns(self) -> int:
        """Turns in the window (pinned messages are not a turn)."""
        return len(self._turns)

    def __len__(self) -> int:
        pinned = (self._system is not None) + (self._question is not None)
        return pinned + sum(len(turn.messages) for turn in self._turns)

    def __repr__(self) -> str:
        return (
            f"SlidingWindowMemory(max_tokens={self.max_tokens}, messages={len(self)}, "
            f"token_count={self._total}, evicted={self._evicted})"
        )

    # --- adding ---------------------------------------------------------------------

    def add(self, message: BaseMessage) -> None:
        """Add one message by its role, then trim.

        A SystemMessage replaces the pinned system prompt; the first HumanMessage
        (while none is pinned) becomes the pinned question; an AIMessage starts a
        new turn; anything else joins the newest turn (or starts one).
        """
        self._place(message)
        self._trim()

    def add_system(self, content: str) -> None:
        """Set (or replace) the pinned system prompt."""
        self.add(SystemMessage(content=content))

    def add_user(self, content: str) -> None:
        """Add the user's question; it is pinned.

        The first question is pinned at once. A later one (the next run of a
        session) is pinned in its place: the earlier question and its turns
        become history, still in order before it, and are evicted first.
        (``add(HumanMessage(...))`` instead joins the newest turn, as an
        observation would.)
        """
        message = HumanMessage(content=content)
        if self._question is not None:
            history = _Turn()
            history.append(self._question, self._question_cost)
            self._turns.insert(self._history, history)
            self._history = len(self._turns)
            self._question = None
            self._question_cost = 0
        self.add(message)

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
        self._trim()

    def add_turn(self, messages: Sequence[BaseMessage]) -> None:
        """Add ``messages`` as one turn, evicted together, whatever their roles."""
        if not messages:
            raise ConfigurationError("add_turn needs at least one message")
        if any(isinstance(m, SystemMessage) for m in messages):
            raise ConfigurationError("a turn cannot hold a SystemMessage; use add_system")
        turn = _Turn()
        for message in messages:
            turn.append(message, count_message(message, self.counter))
        self._turns.append(turn)
        self._total += turn.tokens
        self._trim()

    def extend(self, messages: Iterable[BaseMessage]) -> None:
        """``add`` each message, trimming once at the end (same result, less work)."""
        for message in messages:
            self._place(message)
        self._trim()

    def clear(self) -> None:
        """Remove every message, pinned ones included; counters of evictions are kept."""
        self._system = self._question = None
        self._system_cost = self._question_cost = 0
        self._turns.clear()
        self._history = 0
        self._total = 0

    def fresh(self) -> SlidingWindowMemory:
        """An empty window with the same budget and counter (use a window as a template)."""
        return SlidingWindowMemory(self.max_tokens, self.counter)

    def copy(self) -> SlidingWindowMemory:
        """An independent window with the same contents (messages themselves are shared)."""
        twin = self.fresh()
        twin._system, twin._system_cost = self._system, self._system_cost
        twin._question, twin._question_cost = self._question, self._question_cost
        twin._turns = deque(turn.copy() for turn in self._turns)
        twin._history = self._history
        twin._total, twin._evicted, twin._truncated = self._total, self._evicted, self._truncated
        return twin

    # --- persistence ----------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """A JSON-safe snapshot (messages via langchain-core's ``messages_to_dict``)."""
        return {
            "version": _FORMAT_VERSION,
            "max_tokens": self.max_tokens,
            "system": messages_to_dict([self._system]) if self._system else [],
            "question": messages_to_dict([self._question]) if self._question else [],
            "turns": [messages_to_dict(turn.messages) for turn in self._turns],
            "history": self._history,
            "evicted": self._evicted,
            "truncated": self._truncated,
        }

    @classmethod
    def from_dict(
        cls,
        data: dict[str, Any],
        counter: TokenCounter | str | None = None,
        *,
        max_tokens: int | None = None,
    ) -> SlidingWindowMemory:
        """Rebuild a window from :meth:`to_dict`; tokens are recounted with ``counter``.

        ``max_tokens`` overrides the stored budget (the window is trimmed to it).
        """
        if data.get("version") != _FORMAT_VERSION:
            raise ConfigurationError(f"unsupported memory format {data.get('version')!r}")
        memory = cls(max_tokens if max_tokens is not None else int(data["max_tokens"]), counter)
        for key in ("system", "question"):
            for message in messages_from_dict(data[key]):
                cost = count_message(message, memory.counter)
                setattr(memory, f"_{key}", message)
                setattr(memory, f"_{key}_cost", cost)
                memory._total += cost
        for stored in data["turns"]:
            turn = _Turn()
            for message in messages_from_dict(stored):
                turn.append(message, count_message(message, memory.counter))
            memory._turns.append(turn)
            memory._total += turn.tokens
        memory._history = min(int(data.get("history", 0)), len(memory._turns))
        memory._evicted = int(data.get("evicted", 0))
        memory._truncated = int(data.get("truncated", 0))
        memory._trim()
        return memory

    # --- the rules ------------------------------------------------------------------

    def _place(self, message: BaseMessage) -> None:
        if isinstance(message, SystemMessage):
            cost = count_message(message, self.counter)
            self._total += cost - self._system_cost
            self._system, self._system_cost = message, cost
        elif isinstance(message, HumanMessage) and self._question is None:
            self._question_cost = count_message(message, self.counter)
            self._question = message
            self._total += self._question_cost
        elif isinstance(message, AIMessage):
            self._turns.append(_Turn())
            self._join(message)
        else:
            self._join(message)

    def _join(self, message: BaseMessage) -> None:
        if len(self._turns) == self._history:  # no turn since the question: start one
            self._turns.append(_Turn())
        cost = count_message(message, self.counter)
        self._turns[-1].append(message, cost)
        self._total += cost

    def _evict_oldest(self) -> None:
        turn = self._turns.popleft()
        self._history = max(self._history - 1, 0)
        self._total -= turn.tokens
        self._evicted += len(turn.messages)

    def _trim(self) -> None:
        # Each step removes a turn or shrinks a message for good, so this ends.
        while self._total > self.max_tokens and len(self._turns) > 1:
            self._evict_oldest()
        if self._total <= self.max_tokens or not self._turns:
            return
        newest = self._turns[-1]
        tried: set[int] = set()
        while self._total > self.max_tokens and len(tried) < len(newest.messages):
            index = max(
                (i for i in range(len(newest.messages)) if i not in tried),
                key=newest.costs.__getitem__,
            )
            tried.add(index)
            excess = self._total - self.max_tokens
            target = max(newest.costs[index] - excess, 0)
            smaller, cost = _shrink(newest.messages[index], target, self.counter)
            if cost < newest.costs[index]:
                self._truncated += 1
                self._total -= newest.costs[index] - cost
                newest.replace(index, smaller, cost)
        if self._total > self.max_tokens:
            # Not even markers fit: the pinned messages take the budget.
            self._evict_oldest()


def trim_messages(
    messages: Sequence[BaseMessage] | PromptValue,
    max_tokens: int,
    counter: TokenCounter | str | None = None,
) -> list[BaseMessage]:
    """Apply the window's rules to a plain list of messages and return what is kept.

    The first SystemMessage and the first HumanMessage are pinned (and returned
    first, in that order); each AIMessage groups with the messages after it
    until the next one. A PromptValue is accepted too (``prompt | trimmer``).
    """
    if isinstance(messages, PromptValue):
        messages = messages.to_messages()
    memory = SlidingWindowMemory(max_tokens, counter)
    pinned_system = False
    for message in messages:
        if isinstance(message, SystemMessage) and pinned_system:
            memory._join(message)  # only the first system message is pinned in a list
        else:
            pinned_system = pinned_system or isinstance(message, SystemMessage)
            memory._place(message)
    memory._trim()
    return memory.messages


def trim_memory_runnable(
    max_tokens: int = 800, counter: TokenCounter | str | None = None
) -> Runnable[Sequence[BaseMessage] | PromptValue, list[BaseMessage]]:
    """A Runnable named ``trim_memory`` for ordinary chains: ``prompt | trimmer | llm``."""
    SlidingWindowMemory(max_tokens, counter)  # validate the arguments now, not on first use
    resolved = resolve_counter(counter)

    def trim_memory(messages: Sequence[BaseMessage] | PromptValue) -> list[BaseMessage]:
        return trim_messages(messages, max_tokens, resolved)

    return RunnableLambda(trim_memory, name="trim_memory")

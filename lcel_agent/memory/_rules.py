"""The window's rules: where a message goes, which turns leave, how the rest is fitted.

:class:`WindowRules` is the private half of
:class:`~lcel_agent.memory.window.SlidingWindowMemory`: the window's public methods
change its state through these, and every rule of the window's docstring lives here
(pinning, turns, resolving failures, compaction, trimming, shrinking the newest turn).
It is a mixin with no public API; use :class:`~lcel_agent.memory.SlidingWindowMemory`.
"""

from __future__ import annotations

import itertools
import logging
from collections import deque
from collections.abc import Generator, Sequence
from dataclasses import replace

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from lcel_agent._shared.messages import has_media, message_text
from lcel_agent.errors import ConfigurationError

from .compaction import ANSWER_CALL, Compactor, Digest, Fact, Turn
from .counters import TokenCounter, count_message
from .cut import cut_message
from .shrink import shrink_message

logger = logging.getLogger("lcel_agent.memory")

# The digest is rendered a few tokens differently inside the question than alone.
_DIGEST_SLACK = 3


class _Entry:
    """A turn as the window stores it: its messages with their costs, its facts."""

    __slots__ = ("costs", "facts", "failed", "messages", "tokens")

    def __init__(self, facts: tuple[Fact, ...] = (), failed: bool = False) -> None:
        self.messages: list[BaseMessage] = []
        self.costs: list[int] = []
        self.tokens = 0
        self.facts = facts
        self.failed = failed

    def append(self, message: BaseMessage, cost: int) -> None:
        self.messages.append(message)
        self.costs.append(cost)
        self.tokens += cost

    def replace(self, index: int, message: BaseMessage, cost: int) -> None:
        self.tokens += cost - self.costs[index]
        self.messages[index] = message
        self.costs[index] = cost

    def copy(self) -> _Entry:
        twin = _Entry(self.facts, self.failed)
        twin.messages, twin.costs, twin.tokens = list(self.messages), list(self.costs), self.tokens
        return twin

    def view(self) -> Turn:
        return Turn(tuple(self.messages), self.facts, self.failed)


class WindowRules:
    """The rules of the window (see :mod:`lcel_agent.memory.window`); state is set by its ``__init__``."""

    max_tokens: int
    counter: TokenCounter
    compactor: Compactor | None
    _system: BaseMessage | None
    _system_cost: int
    _question: BaseMessage | None
    _question_cost: int
    _digest: Digest
    _digest_cost: int
    _shown: BaseMessage | None
    _turns: deque[_Entry]
    _history: int
    _leaving: list[_Entry]
    _total: int
    _evicted: int
    _truncated: int
    _compacted: int

    def _set_question(self, message: BaseMessage | None) -> int:
        """Pin ``message`` as the question; return its cost (the caller adjusts ``_total``)."""
        self._question = message
        self._question_cost = count_message(message, self.counter) if message is not None else 0
        # Little room: under a quarter of the window, and under 200 tokens (a quarter of the
        # default 800), so a window grown for many tools' descriptions warns only when
        # the conversation is left less than a few tools would leave it.
        room = self.max_tokens - (self._system_cost + self._question_cost)
        if message is not None and room * 4 < min(self.max_tokens, 800):
            logger.warning(
                "the system prompt and the question take %d of the window's %d tokens: "
                "tool results will have little room (raise max_tokens or shorten the question)",
                (self._system_cost + self._question_cost),
                self.max_tokens,
            )
        self._total -= self._digest_cost
        self._refresh_shown()
        self._total += self._digest_cost
        return self._question_cost

    def _set_digest(self, digest: Digest) -> None:
        self._total -= self._digest_cost
        self._digest = digest
        self._refresh_shown()
        self._total += self._digest_cost

    def _refresh_shown(self) -> None:
        """Render the question with the digest, and price the digest's share."""
        block, question = self._digest.block, self._question
        if not block:
            self._shown, self._digest_cost = question, 0
            return
        if question is None:
            self._shown = HumanMessage(content=block)
            self._digest_cost = count_message(self._shown, self.counter)
            return
        content = question.content
        if isinstance(content, str):
            shown = f"{content}\n\n{block}"
            self._shown = question.model_copy(update={"content": shown})
        else:
            parts = [*content, {"type": "text", "text": block}]
            self._shown = question.model_copy(update={"content": parts})
        self._digest_cost = count_message(self._shown, self.counter) - self._question_cost

    def _place(self, message: BaseMessage) -> None:
        if isinstance(message, SystemMessage):
            cost = count_message(message, self.counter)
            self._total += cost - self._system_cost
            self._system, self._system_cost = message, cost
        elif isinstance(message, HumanMessage) and self._question is None:
            cost = self._set_question(message)  # (it adjusts _total for the digest itself)
            self._total += cost
        elif isinstance(message, AIMessage):
            self._turns.append(_Entry())
            self._join(message)
        else:
            self._join(message)

    def _join(self, message: BaseMessage) -> None:
        if len(self._turns) == self._history:  # no turn since the question: start one
            self._turns.append(_Entry())
        cost = count_message(message, self.counter)
        self._turns[-1].append(message, cost)
        self._total += cost

    def _push_turn(
        self,
        messages: Sequence[BaseMessage],
        facts: Sequence[Fact],
        failed: bool,
        *,
        resolve: bool = True,
    ) -> None:
        if not messages:
            raise ConfigurationError("add_turn needs at least one message")
        if any(isinstance(m, SystemMessage) for m in messages):
            raise ConfigurationError("a turn cannot hold a SystemMessage; use add_system")
        if resolve and not failed:
            self._resolve()
        turn = _Entry(tuple(facts), failed)
        for message in messages:
            turn.append(message, count_message(message, self.counter))
        self._turns.append(turn)
        self._total += turn.tokens

    def _resolve(self) -> None:
        """Failed turns of this question leave: a success makes them worthless."""
        kept: deque[_Entry] = deque()
        for index, turn in enumerate(self._turns):
            if index >= self._history and turn.failed:
                self._leaving.append(turn)
                self._total -= turn.tokens
                self._evicted += len(turn.messages)
            else:
                kept.append(turn)
        self._turns = kept

    def _take(self, turn: _Entry) -> _Entry:
        """Remove ``turn`` from the window (its tokens and messages leave with it)."""
        index = self._turns.index(turn)
        del self._turns[index]
        if index < self._history:
            self._history -= 1
        self._total -= turn.tokens
        self._evicted += len(turn.messages)
        return turn

    def _pop_oldest(self) -> _Entry:
        return self._take(self._turns[0])

    def _pop_exchange(self) -> list[_Entry]:
        """The oldest turn, and the earlier exchange's answers that would lose their question."""
        gone = [self._pop_oldest()]
        # History must start with the user's word: an answer without its question goes too.
        while self._history and isinstance(self._turns[0].messages[0], AIMessage):
            gone.append(self._pop_oldest())
        return gone

    def _newest_unit(self) -> int:
        """How many of the last turns make the newest turn as the window keeps it: one, or,
        when it is an earlier exchange's answer, two (the answer and its question, which
        leave together so history never opens with the assistant's word)."""
        count = len(self._turns)
        if (
            count >= 2
            and count <= self._history
            and isinstance(self._turns[-1].messages[0], AIMessage)
            and isinstance(self._turns[-2].messages[0], HumanMessage)
        ):
            return 2
        return min(count, 1)

    def _handed(self) -> Digest:
        """The digest as the compactor is handed it: with the question it works on."""
        question = message_text(self._question) if self._question is not None else ""
        return replace(self._digest, focus=question)

    def _digest_budget(self) -> int:
        """What the digest may cost: the window less the pinned messages and the newest turn.

        The newest turn is never cut to make room for the digest, so it is priced whole.
        """
        newest = self._turns[-1].tokens if self._turns else 0
        return max(
            self.max_tokens - (self._system_cost + self._question_cost) - newest - _DIGEST_SLACK, 0
        )

    def _trim_steps(self) -> Generator[list[Turn], Digest, None]:
        """The trimming decisions; yields the turns to compact and is sent the new digest.

        The order is the window's promise: the oldest whole turns leave first (into the
        digest); then the digest shrinks (every line before any is dropped); only when
        the digest is gone is the newest turn shortened. Each step removes a turn, folds
        turns, or shrinks something for good, so this ends.
        """
        compactor = self.compactor
        batch, self._leaving = self._leaving, []
        if compactor is not None:
            # The earlier exchanges of a conversation stay word for word while there is room,
            # and so does a failure until it is resolved: the model needs to see it whole.
            # So does an answer: it is what the next question speaks to. And so
            # does a turn that holds an image a tool returned: no line can carry it.
            current = itertools.islice(self._turns, self._history, None)
            candidates = [
                turn for turn in current
                if not turn.failed and not _answers(turn)
                and not any(has_media(m) for m in turn.messages)
            ]  # fmt: skip
            keep = len(candidates) if compactor.keep_turns is None else compactor.keep_turns
            extra = len(candidates) - keep
            for turn in candidates:
                if extra > 0 or compactor.lossless(turn.view(), self.counter):
                    batch.append(self._take(turn))
                extra -= 1
        while True:
            if batch:
                if compactor is not None:
                    self._set_digest((yield [turn.view() for turn in batch]))
                    self._compacted += len(batch)
                batch = []
            if self._total <= self.max_tokens or len(self._turns) <= self._newest_unit():
                break
            while self._total > self.max_tokens and len(self._turns) > self._newest_unit():
                batch += self._pop_exchange()
        while self._total > self.max_tokens and compactor is not None and self._digest.text:
            room = self._digest_cost - (self._total - self.max_tokens) - _DIGEST_SLACK
            fitted = compactor.fit(self._handed(), max(room, 0), self.counter)
            if fitted.text == self._digest.text:
                # It cannot get smaller. Ledger lines stay (what was called is never
                # forgotten: see DigestCompactor); a digest of anything else goes.
                if any(not fact.result for fact in fitted.facts):
                    break
                fitted = replace(
                    fitted, text="", facts=(), dropped=fitted.dropped + len(fitted.facts)
                )
            self._set_digest(fitted)
        if self._total > self.max_tokens and self._turns:
            self._shrink_newest()
        while self._total > self.max_tokens and self._turns:
            # Not even markers fit: the pinned messages (and the ledger) take the budget.
            gone = [turn for turn in self._pop_exchange() if turn.facts]
            if compactor is not None and gone:  # the calls they made still go into the ledger
                self._set_digest((yield [turn.view() for turn in gone]))
                self._compacted += len(gone)

    def _trim(self) -> None:
        steps = self._trim_steps()
        try:
            batch = next(steps)
            while True:
                assert self.compactor is not None
                digest = self.compactor.compact(
                    self._handed(), batch, self._digest_budget(), self.counter
                )
                batch = steps.send(digest)
        except StopIteration:
            pass

    def _shrink_newest(self) -> None:
        """Cut the newest turn's largest messages until the window fits: a tool result by
        :func:`~lcel_agent.memory.cut.cut_message` (the lines naming the question's words,
        head and tail, a marker saying what is left out), the model's own words head and tail."""
        newest = self._turns[-1]
        question = message_text(self._question) if self._question is not None else ""
        tried: set[int] = set()
        while self._total > self.max_tokens and len(tried) < len(newest.messages):
            index = max(
                (i for i in range(len(newest.messages)) if i not in tried),
                key=newest.costs.__getitem__,
            )
            tried.add(index)
            excess = self._total - self.max_tokens
            target = max(newest.costs[index] - excess, 0)
            message = newest.messages[index]
            if isinstance(message, AIMessage):
                smaller, cost = shrink_message(message, target, self.counter)
            else:
                smaller, cost = cut_message(message, target, self.counter, question)
            if cost < newest.costs[index]:
                self._truncated += 1
                self._total -= newest.costs[index] - cost
                newest.replace(index, smaller, cost)


def _answers(turn: _Entry) -> bool:
    """Whether ``turn`` is a final answer (and nothing else)."""
    return bool(turn.facts) and all(fact.call == ANSWER_CALL for fact in turn.facts)

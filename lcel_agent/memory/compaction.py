"""Compaction: what turns leave behind when they leave the window.

A window with a compactor forgets text, not facts. With a window's default compactor
(``DEFAULT_COMPACTOR``, for a :class:`~lcel_agent.memory.SlidingWindowMemory` you build),
every turn stays word for word while the window has room: the model sees its own
actions and their results as turns. When it is full, the oldest whole turns leave first
(and a failed turn as soon as a later one succeeds) and are handed to the compactor,
which folds them into a :class:`Digest`: a bounded block of text the window shows with
the pinned question. The newest turn is never cut for the digest's sake (a newest result
larger than the window itself is cut where the window needs it:
:mod:`lcel_agent.memory.cut`).

An agent's own window (``create_agent`` without ``memory=``) folds sooner when its answer
stage keeps every result for the answer (the default): ``AGENT_COMPACTOR`` folds every
turn into its lines at once, the newest turn's results whole while there is room
(``AGENT_TOOL_COMPACTOR``, under tool calling, keeps the newest turn a turn); with
``answer="model"`` or an answer stage of the user's own it keeps the window's default
(:mod:`lcel_agent.memory.window` has the three).

:class:`DigestCompactor`, behind all three, needs no model call: one line per
tool call that established something, the head of its result (whole JSON items
first), with a newer result of the same call replacing the older one. When the
block outgrows its budget every line is shortened (to an equal share, down to
``min_line_tokens``); then the oldest lines lose their results and keep only what
was called and whether it worked: a *ledger* line, never dropped, so a model never
calls again what it already did because the result scrolled out (the run keeps
every result for the answer stage)::

    Done so far:
    get_weather(北京) ✓
    search_baidu(台风最新路径) → [{"title": "台风最新路径实时发布", "link": "..."}] …(+2 more)
    ✗ get_weather(火星): ERROR: Amap has no weather for '火星'

The ledger lines alone may outgrow the budget on a run of hundreds of calls: they
stay, and the window then holds more than its budget by them (it says so in
``token_count``).

A line names the call unless the result already names its input (``北京`` in
``北京市天气…``). ``DigestCompactor(keep_turns=1, eager=True)`` folds turns early
(fewer tokens a call, but a small model may repeat what it no longer sees).
:class:`~lcel_agent.memory.summary.SummaryCompactor` is the model-written
alternative. Write your own by implementing :class:`Compactor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Protocol, runtime_checkable

from langchain_core.messages import AIMessage

from lcel_agent._shared.messages import has_media, message_text

from .counters import TokenCounter
from .cut import cut_result
from .facts import ANSWER_CALL, HEADER, Digest, Fact, Turn
from .shrink import head_text

__all__ = ["ANSWER_CALL", "HEADER", "Compactor", "Digest", "DigestCompactor", "Fact", "Turn"]


@runtime_checkable
class Compactor(Protocol):
    """Folds turns that leave the window into the digest.

    ``budget`` is the most tokens ``digest.block`` may cost, as measured by
    ``counter``; a compactor must return a digest within it (dropping the
    oldest content if it must). ``fit`` shrinks a digest to a smaller budget
    without new input (no model call).
    """

    @property
    def keep_turns(self) -> int | None:
        """Turns the window keeps word for word; older ones are compacted (None: only for room)."""
        ...

    def lossless(self, turn: Turn, counter: TokenCounter) -> bool:
        """True when compacting ``turn`` would keep all it says: the window folds it at once."""
        ...

    def compact(
        self, digest: Digest, turns: Sequence[Turn], budget: int, counter: TokenCounter
    ) -> Digest: ...

    async def acompact(
        self, digest: Digest, turns: Sequence[Turn], budget: int, counter: TokenCounter
    ) -> Digest: ...

    def fit(self, digest: Digest, budget: int, counter: TokenCounter) -> Digest: ...


# How facts of plain messages (see fallback_facts) are labelled.
_ROLES = {"human": "user", "ai": "assistant", "tool": "tool", "system": "system"}


def _kept_every_fact(before: Digest, after: Digest) -> bool:
    """True when fitting kept every result of ``before`` (shortened, never a ledger line)."""
    held = sum(1 for e in before.facts if e.result)
    return after.dropped == before.dropped and sum(1 for e in after.facts if e.result) == held


def _first_line(text: str) -> str:
    return text.strip().split("\n", 1)[0]


def fallback_facts(turn: Turn) -> tuple[Fact, ...]:
    """Facts of a turn added as plain messages: what each side said, by role."""
    facts: list[Fact] = []
    for message in turn.messages:
        if isinstance(message, AIMessage) and message.tool_calls:
            said = ", ".join(f"{c['name']}({c.get('args')})" for c in message.tool_calls)
        else:
            said = _first_line(message_text(message))
        if said:
            facts.append(Fact(message.type, said, key=f"{message.type}\x00{said}"))
    return tuple(facts)


@dataclass(frozen=True, kw_only=True)
class DigestCompactor:
    """The default compactor: one line per fact, no model call (see the module docstring).

    Frozen, so one instance can serve every window (``DEFAULT_COMPACTOR`` does).
    """

    keep_turns: int | None = None
    """Turns kept word for word however much room there is; older ones become lines.
    ``None`` (the default): turns stay word for word until the window is full, so the
    model sees its own actions and their results as turns for as long as they fit."""
    line_tokens: int = 100
    """The most tokens one line's result may keep."""
    min_line_tokens: int = 12
    """The fewest tokens a line's result is shortened to before the oldest lines are dropped."""
    eager: bool = False
    """Fold a turn at once when its lines say all it said (see :meth:`lossless`), even
    while the window has room. Off by default: a small model that no longer sees its own
    turn tends to repeat it. True trades that for fewer tokens per call."""
    header: str = HEADER
    """The line shown before the digest."""
    max_tokens: int | None = None
    """The most the digest holds of results: past it, the oldest lines keep only their
    ledger line (the run keeps every result for the answer stage), however much room the
    window has left. None: as much as the window leaves it."""
    newest_whole: bool = False
    """The lines of the newest turn folded keep their results whole (past ``line_tokens``
    and ``max_tokens``) while the window has room for them: a listing, a page of search
    hits or an id the next call uses is in view when the model writes that call, in a
    line rather than a turn (a small model shown its results as turns copied them back).
    Newest lines larger than the window's room are cut to what the older lines leave them
    (at least half the room), keeping their ends and the lines naming the question's words
    (:func:`~lcel_agent.memory.cut.cut_result`, with :attr:`Digest.focus`)."""

    def __post_init__(self) -> None:
        if self.keep_turns is not None and self.keep_turns < 0:
            raise ValueError(f"keep_turns must be >= 0 or None, got {self.keep_turns}")
        if self.line_tokens < 8:
            raise ValueError(f"line_tokens must be >= 8, got {self.line_tokens}")
        if not 1 <= self.min_line_tokens <= self.line_tokens:
            raise ValueError(
                f"min_line_tokens must be between 1 and line_tokens ({self.line_tokens}), "
                f"got {self.min_line_tokens}"
            )

    # --- lines -------------------------------------------------------------------------
    def _short(self, fact: Fact, tokens: int, counter: TokenCounter) -> Fact:
        result = fact.result if fact.ok else _first_line(fact.result)
        # A line is shortened, never emptied of its fact: a result that is a JSON list keeps
        # its first item whole (a search line keeps its first hit, link and all).
        return replace(fact, result=head_text(result.strip(), tokens, counter, whole_item=True))

    @staticmethod
    def line(fact: Fact) -> str:
        """One fact as a digest line (a ledger line once its result is gone)."""
        if not fact.result:
            return f"{fact.call} ✓" if fact.ok else f"✗ {fact.call}"
        if not fact.ok:
            return f"✗ {fact.call}: {fact.result}"
        if fact.subject and fact.subject in fact.result:
            return fact.result
        if fact.call in _ROLES:
            return f"{_ROLES[fact.call]}: {fact.result}"
        return f"{fact.call} → {fact.result}"

    def render(self, facts: Sequence[Fact], dropped: int) -> str:
        """The digest's text for these entries."""
        lines = [f"({dropped} earlier steps dropped)"] if dropped else []
        return "\n".join([*lines, *(self.line(f) for f in facts)])

    def _digest(self, base: Digest, facts: Sequence[Fact], dropped: int) -> Digest:
        text = self.render(facts, dropped) if facts or dropped else ""
        return replace(base, text=text, facts=tuple(facts), dropped=dropped, header=self.header)

    # --- the protocol ---------------------------------------------------------------------
    def lossless(self, turn: Turn, counter: TokenCounter) -> bool:
        # A successful turn of calls whose results fit their lines whole says nothing its
        # lines do not: keeping it word for word too would only pay for it twice.
        # An image (or other media) a tool returned is not in any line: such a turn stays.
        return (
            self.eager
            and not turn.failed
            and bool(turn.facts)
            and not any(has_media(m) for m in turn.messages)
            and all(
                f.ok and f.subject and counter(f.result.strip()) <= self.line_tokens
                for f in turn.facts
            )
        )

    def compact(
        self, digest: Digest, turns: Sequence[Turn], budget: int, counter: TokenCounter
    ) -> Digest:
        # Lines that were the newest turn's are like any other once a newer turn folds.
        entries = [
            self._short(e, self.line_tokens, counter) if e.identity in digest.fresh else e
            for e in digest.facts
        ]
        fresh: tuple[str, ...] = () if turns else digest.fresh
        for index, turn in enumerate(turns):
            facts = turn.facts or (() if turn.failed else fallback_facts(turn))
            newest = self.newest_whole and index == len(turns) - 1 and bool(facts)
            for fact in facts:
                entries = [e for e in entries if e.identity != fact.identity]
                entries.append(fact if newest else self._short(fact, self.line_tokens, counter))
            if newest:
                fresh = tuple(f.identity for f in facts)
        folded = replace(self._digest(digest, entries, digest.dropped), fresh=fresh)
        return self.fit(folded, budget, counter)

    def _budget(self, budget: int) -> int:
        return budget if self.max_tokens is None else min(budget, self.max_tokens)

    async def acompact(
        self, digest: Digest, turns: Sequence[Turn], budget: int, counter: TokenCounter
    ) -> Digest:
        return self.compact(digest, turns, budget, counter)

    def fit(self, digest: Digest, budget: int, counter: TokenCounter) -> Digest:
        fresh = set(digest.fresh) & {e.identity for e in digest.facts}
        if fresh:
            # The newest turn's lines stay whole while the window has room for them; the
            # others fit what is left, within max_tokens. No room: everything shortens.
            whole = [e for e in digest.facts if e.identity in fresh]
            cost = counter(self._digest(digest, whole, 0).block)
            if cost <= budget:
                rest = replace(
                    digest, facts=tuple(e for e in digest.facts if e.identity not in fresh)
                )
                # The newest lines count toward max_tokens first: the older ones get what
                # they leave of it (the digest costs no more a call than without them).
                left = max(self._budget(budget) - cost, 0)
                fitted = self._fit(rest, left, counter)
                # Ledger lines never go: when with them the newest lines no longer fit the
                # window's room, the newest lines are shortened like the others. Nor does
                # an older fact give way to them: every line is shortened before any fact
                # is dropped (a model answering from the window needs the older results
                # too: keeping a search page whole at the cost of eight cities' weather
                # sent every such answer to the answer stage).
                if counter(fitted.block) + cost <= budget and _kept_every_fact(rest, fitted):
                    return replace(
                        self._digest(digest, [*fitted.facts, *whole], fitted.dropped),
                        fresh=digest.fresh,
                    )
            elif (cut := self._cut_newest(digest, fresh, budget, counter)) is not None:
                return cut
        return self._fit(replace(digest, fresh=()), budget, counter)

    def _cut_newest(
        self, digest: Digest, fresh: set[str], budget: int, counter: TokenCounter
    ) -> Digest | None:
        """The newest lines when they are larger than the window: cut to the room left them.

        The older lines keep what ``max_tokens`` gives them, at most half the room; the
        newest share the rest, each cut by :func:`~lcel_agent.memory.cut.cut_result` (the
        lines naming the question's words, head and tail, a marker saying what is left out).
        None when that leaves them less than a line's worth each.
        """
        rest = tuple(e for e in digest.facts if e.identity not in fresh)
        older = self._fit(
            replace(digest, facts=rest, fresh=()), min(self._budget(budget), budget // 2), counter
        )
        newest = [e for e in digest.facts if e.identity in fresh]
        base = self._digest(digest, older.facts, older.dropped).block or self.header
        room = budget - counter(base) - len(newest)  # and a line break before each
        for _ in range(3):  # a line's framing is priced after the cut: settle it in a few tries
            if room < self.line_tokens * len(newest):
                return None
            shares, left = {}, room
            for n, e in enumerate(sorted(newest, key=lambda e: counter(e.result)), 1):
                shares[e.identity] = left // (len(newest) - n + 1)
                left -= min(counter(e.result), shares[e.identity])
            lines = [
                replace(
                    e,
                    result=cut_result(e.result.strip(), shares[e.identity], counter, digest.focus),
                )
                if e.ok
                else self._short(e, shares[e.identity], counter)
                for e in newest
            ]
            cut = replace(
                self._digest(digest, [*older.facts, *lines], older.dropped), fresh=digest.fresh
            )
            over = counter(cut.block) - budget
            if over <= 0:
                return cut
            room -= over
        return None

    def _fit(self, digest: Digest, budget: int, counter: TokenCounter) -> Digest:
        budget = self._budget(budget)
        entries, dropped = list(digest.facts), digest.dropped
        fitted = self._digest(digest, entries, dropped)
        if counter(fitted.block) <= budget:
            return fitted
        # Every line shrinks before any fact is dropped: find the largest per-line cap at
        # which the whole block fits (a binary search over the cap, each try shortening
        # every line from what it holds now), then drop the oldest lines at the floor cap.
        low, high = self.min_line_tokens, self.line_tokens
        best: list[Fact] | None = None
        while low <= high:
            cap = (low + high) // 2
            shorter = [self._short(entry, cap, counter) for entry in entries]
            if counter(self._digest(digest, shorter, dropped).block) <= budget:
                best, low = shorter, cap + 1
            else:
                high = cap - 1
        if best is not None:
            return self._digest(digest, best, dropped)
        entries = [self._short(entry, self.min_line_tokens, counter) for entry in entries]
        fitted = self._digest(digest, entries, dropped)
        # Then the oldest lines become ledger lines, which stay whatever the budget (what a
        # plain message said is no call: such a line goes).
        index = 0
        while index < len(entries) and counter(fitted.block) > budget:
            if entries[index].call in _ROLES:
                del entries[index]
                dropped += 1
            else:
                entries[index] = replace(entries[index], result="")
                index += 1
            fitted = self._digest(digest, entries, dropped)
        return fitted

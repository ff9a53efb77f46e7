"""The dispatcher's plan of one reply, and the person who may refuse parts of it.

A reply's actions become a :class:`Batch`: per action either a :class:`Call` to
run or an :class:`~lcel_agent.state.Observation` answered at once (an unknown
tool, drift, bad arguments, a refusal). :func:`approved` / :func:`aapproved` ask
``approve`` about each call, in order, before anything runs, and turn the
refused ones into observations. Pure, apart from asking.

A durable run (``create_agent(checkpointer=...)``) puts a :class:`CallJournal`
in the run's config: then calls that finished before a restart are not run again
(their observations are recalled), decisions made before it are not asked again,
each new decision and each finished call is written down as it happens
(:func:`journaled`), and approvers that raise
:class:`~lcel_agent.approval.ApprovalPending` pause the run after every call of
the reply has been asked about.
"""

from __future__ import annotations

import asyncio
import inspect
import threading
import uuid
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass, field, replace
from functools import partial
from typing import Any, Protocol, TypeAlias

from langchain_core.messages import BaseMessage
from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool

from .. import texts
from .._redact import redact
from .._shared.timeout import call_async_with_timeout
from ..approval import ApprovalPending
from ..errors import ErrorClass
from ..state import Action, AgentState, Observation

__all__ = [
    "JOURNAL_KEY",
    "Approve",
    "Batch",
    "Budget",
    "Call",
    "CallJournal",
    "Outcome",
    "aapproved",
    "ajournaled",
    "approved",
    "journal_of",
    "journaled",
    "refused",
    "state_messages",
    "with_call_id",
]

#: ``approve=``: given each action before it runs; True runs it, False or a string refuses it.
Approve: TypeAlias = Callable[[Action], "bool | str | Awaitable[bool | str]"]

#: Where a durable run keeps its :class:`CallJournal`, in ``config["configurable"]``
#: (a leading double underscore keeps a configurable value out of run metadata).
JOURNAL_KEY = "__lcel_agent_journal"


class CallJournal(Protocol):
    """What a durable run remembers of one reply's calls (``lcel_agent.durable`` keeps it)."""

    def recalled(self, action: Action) -> Observation | None:
        """The observation of ``action`` if it finished before a restart."""

    def decision(self, action: Action) -> bool | str | None:
        """The decision already made about ``action``, if any."""

    def decided(self, action: Action, answer: bool | str) -> None:
        """Write down a new decision."""

    async def adecided(self, action: Action, answer: bool | str) -> None:
        """Async twin of :meth:`decided`."""

    def finished(self, observation: Observation) -> None:
        """Write down a finished call."""

    async def afinished(self, observation: Observation) -> None:
        """Async twin of :meth:`finished`."""


def journal_of(config: RunnableConfig | None) -> CallJournal | None:
    """The run's journal, or None for a run that is not checkpointed."""
    journal: CallJournal | None = ((config or {}).get("configurable") or {}).get(JOURNAL_KEY)
    return journal


Execute = Callable[["Call", "Budget", RunnableConfig], Observation]
AExecute = Callable[["Call", "Budget", RunnableConfig], Awaitable[Observation]]


def journaled(config: RunnableConfig, execute: Execute) -> Execute:
    """``execute``, writing each finished call into the run's journal (if it has one)."""
    journal = journal_of(config)
    if journal is None:
        return execute

    def run(call: Call, budget: Budget, config: RunnableConfig) -> Observation:
        observation = execute(call, budget, config)
        journal.finished(observation)
        return observation

    return run


def ajournaled(config: RunnableConfig, execute: AExecute) -> AExecute:
    """Async twin of :func:`journaled`."""
    journal = journal_of(config)
    if journal is None:
        return execute

    async def run(call: Call, budget: Budget, config: RunnableConfig) -> Observation:
        observation = await execute(call, budget, config)
        await journal.afinished(observation)
        return observation

    return run


def with_call_id(action: Action) -> Action:
    """The action with a call id: the model's own, or a new one."""
    return action if action.call_id else replace(action, call_id=f"call_{uuid.uuid4().hex[:24]}")


def refused(action: Action, error_class: ErrorClass, text: str) -> Observation:
    """An observation for an action that was not run."""
    return Observation(action, redact(text), False, error_class, tool=action.tool, attempts=0)


def state_messages(state: AgentState | None) -> list[BaseMessage]:
    """The conversation a tool's ``InjectedState`` sees: this loop's prompt, then the reply."""
    if state is None:
        return []
    reply = [state.reply] if state.reply is not None else []
    return [*state.prompt, *reply]


@dataclass(frozen=True, slots=True)
class Call:
    """An action that will run: its tool and its prepared input."""

    action: Action
    tool: BaseTool
    tool_input: Any
    state: Mapping[str, Any] = field(default_factory=dict)
    """The agent's state for ``InjectedState`` / ``ToolRuntime`` arguments."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What one execution of a tool came to."""

    ok: bool
    text: str
    error_class: ErrorClass | None = None
    transient: bool = False
    """A failure that may clear on a second try: retried like a timeout."""
    blocks: tuple[dict[str, Any], ...] = ()
    """Media blocks beside the text (images)."""
    artifact: Any = None
    """The tool's artifact."""


class Budget:
    """Calls left per tool in this run; shared by the concurrent calls of one batch."""

    def __init__(self, limits: Mapping[str, int], used: Mapping[str, int]) -> None:
        self._left = {name: limit - used.get(name, 0) for name, limit in limits.items()}
        self.taken: dict[str, int] = {}
        self._lock = threading.Lock()

    def take(self, name: str) -> bool:
        """Take one call of ``name`` from the budget; False when none is left."""
        with self._lock:
            if name in self._left:
                if self._left[name] <= 0:
                    return False
                self._left[name] -= 1
            self.taken[name] = self.taken.get(name, 0) + 1
            return True


@dataclass(frozen=True, slots=True)
class Batch:
    """One reply's dispatch: what was planned, what must run, under which budget."""

    planned: list[Observation | Call]
    calls: list[Call]
    budget: Budget
    started: float


def _verdict(action: Action, answer: Any) -> Observation | None:
    """None to run the action; else the refusal the model reads."""
    if answer is True:
        return None
    if answer is False:
        text = texts.NOT_APPROVED.format(name=action.tool)
    elif isinstance(answer, str):
        text = answer if answer.lstrip().startswith("ERROR:") else f"ERROR: {answer}"
    else:
        raise TypeError(f"approve must return True, False or a string, not {answer!r}")
    return refused(action, ErrorClass.REFUSED, text)


def _without(batch: Batch, refusals: dict[int, Observation]) -> Batch:
    if not refusals:
        return batch
    planned = [refusals.get(id(p), p) for p in batch.planned]
    calls = [c for c in batch.calls if id(c) not in refusals]
    return Batch(planned, calls, batch.budget, batch.started)


async def _awaited(value: Awaitable[Any]) -> Any:
    return await value


def _recalled(journal: CallJournal | None, batch: Batch) -> Batch:
    """The batch without the calls that finished before a restart (their results kept)."""
    if journal is None:
        return batch
    found = {id(c): seen for c in batch.calls if (seen := journal.recalled(c.action)) is not None}
    return _without(batch, found)


def _ask(approve: Approve, action: Action) -> Any:
    answer: Any = approve(action)
    if inspect.isawaitable(answer):  # an async approver, from sync code
        answer = call_async_with_timeout(partial(_awaited, answer), None, "approve")
    return answer


async def _aask(approve: Approve, action: Action) -> Any:
    if inspect.iscoroutinefunction(approve):
        return await approve(action)
    # A person at a terminal blocks: keep the event loop free meanwhile.
    answer: Any = await asyncio.to_thread(approve, action)
    return (await answer) if inspect.isawaitable(answer) else answer


class _Approvals:
    """One batch's approvals, gathered call by call: the two drivers below only ask.

    A durable run's journal answers first for a call decided before a restart, and keeps
    each new decision; the calls that finished before a restart are not asked about.
    """

    def __init__(self, batch: Batch, config: RunnableConfig | None) -> None:
        self.journal = journal_of(config)
        self.batch = _recalled(self.journal, batch)
        self._refusals: dict[int, Observation] = {}
        self._waiting: list[Action] = []

    def to_ask(self) -> Iterator[Call]:
        """The calls to ask the approver about, in order; a call the journal holds a
        decision for is decided by it instead."""
        for call in self.batch.calls:
            known = self.journal.decision(call.action) if self.journal is not None else None
            if known is None:
                yield call
            else:
                self.add(call, known)

    def keeping(self, answer: Any) -> CallJournal | None:
        """The journal that keeps the approver's ``answer`` (None: nothing to keep)."""
        return self.journal if isinstance(answer, bool | str) else None

    def wait(self, call: Call) -> None:
        """``call`` waits for a person (the approver raised ``ApprovalPending``)."""
        self._waiting.append(call.action)

    def add(self, call: Call, answer: Any) -> None:
        """Decide ``call`` by ``answer``: True runs it; False or a text refuses it."""
        if (verdict := _verdict(call.action, answer)) is not None:
            self._refusals[id(call)] = verdict

    def approved(self) -> Batch:
        """The batch without its refused calls (their refusals are its observations);
        :class:`ApprovalPending` with every call that waits for a person."""
        if self._waiting:
            raise ApprovalPending(tuple(self._waiting))
        return _without(self.batch, self._refusals)


def approved(approve: Approve | None, batch: Batch, config: RunnableConfig | None = None) -> Batch:
    """Ask ``approve`` about each call in order (sync code); refusals become observations.

    With a journal in ``config`` (a durable run), recalled calls are not asked about
    again, and every call waiting for a person raises one :class:`ApprovalPending`.
    """
    approvals = _Approvals(batch, config)
    if approve is None:
        return approvals.batch
    for call in approvals.to_ask():
        try:
            answer = _ask(approve, call.action)
        except ApprovalPending:
            approvals.wait(call)
            continue
        if (journal := approvals.keeping(answer)) is not None:
            journal.decided(call.action, answer)
        approvals.add(call, answer)
    return approvals.approved()


async def aapproved(
    approve: Approve | None, batch: Batch, config: RunnableConfig | None = None
) -> Batch:
    """Async twin of :func:`approved`; a sync approver runs on a thread."""
    approvals = _Approvals(batch, config)
    if approve is None:
        return approvals.batch
    for call in approvals.to_ask():
        try:
            answer = await _aask(approve, call.action)
        except ApprovalPending:
            approvals.wait(call)
            continue
        if (journal := approvals.keeping(answer)) is not None:
            await journal.adecided(call.action, answer)
        approvals.add(call, answer)
    return approvals.approved()

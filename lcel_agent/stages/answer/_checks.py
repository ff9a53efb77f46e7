"""Checks of a final answer: named functions of the answer and the run's record.

``create_agent(answer_checks=[...])`` takes a list of them; the built-in ones are the
default list, :data:`DEFAULT_CHECKS`, each a check a user can drop or replace::

    from lcel_agent.stages.answer import DEFAULT_CHECKS, answer_check

    @answer_check
    def cites_a_source(answer: str, record: Evidence) -> str | None:
        return None if "http" in answer else "name the page the figures come from"

    create_agent(llm, tools, answer_checks=[*DEFAULT_CHECKS, cites_a_source])
    create_agent(llm, tools, answer_checks=[c for c in DEFAULT_CHECKS if c.name != "omits"])

A check returns None (the answer passes) or a reason. What a reason does is the check's
``writes``:

* ``writes=False`` (a user's check, and ``plan``): the answer goes back to the model
  once, with the reason; if its next answer fails a check again, the answer stage writes
  the answer from the results (``result.answer.repair`` is the check's name);
* ``writes=True`` (``echo``, ``omits``): the answer stage writes the answer at once, in
  a fresh context, from every result (measured cheaper than a second try on small
  models: docs/answer.md).

Checks read only what :class:`Evidence` holds, and the built-in ones act on evidence they
can read: ``plan`` and the question-shape parts of ``echo`` and ``omits`` read the ten
languages of :mod:`._language`, and stand aside in any other.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from ...errors import ConfigurationError
from ...rules.gathered import Result
from ._echo import copies
from ._language import language_of
from ._omits import omitted
from ._plans import is_plan
from ._question import asks_verbatim

__all__ = [
    "DEFAULT_CHECKS",
    "AnswerCheck",
    "Check",
    "Evidence",
    "answer_check",
    "echo",
    "omits",
    "plan",
]


@dataclass(frozen=True, slots=True)
class Evidence:
    """What a check may read of the run: the question, the results, the tools."""

    question: str
    """The user's question (the run's task)."""
    results: tuple[Result, ...] = ()
    """Every successful tool call of the run, from its records (never the memory window)."""
    tools: frozenset[str] = frozenset()
    """The agent's tool names."""
    called: frozenset[str] = field(default=frozenset())
    """The tools called successfully so far."""

    @property
    def language(self) -> str | None:
        """The question's language, when it is one the built-in rules read (else None)."""
        return language_of(self.question)


@runtime_checkable
class AnswerCheck(Protocol):
    """What ``answer_checks`` takes: a named callable, ``(answer, record) -> reason | None``."""

    @property
    def name(self) -> str:
        """The check's name (what ``result.answer.repair`` says when it made the stage write)."""
        ...

    @property
    def writes(self) -> bool:
        """True: a reason makes the answer stage write at once; False: the answer goes back
        to the model once first."""
        ...

    def __call__(self, answer: str, record: Evidence) -> str | None: ...


@dataclass(frozen=True, slots=True)
class Check:
    """A check made from a function (see :func:`answer_check`)."""

    name: str
    """Its name: what ``result.answer.repair`` says when it made the stage write."""
    fn: Callable[[str, Evidence], str | None]
    """The check itself: None, or the reason the answer does not pass."""
    writes: bool = False
    """True: a reason makes the answer stage write at once; False: the answer goes back to
    the model once with the reason first."""

    def __call__(self, answer: str, record: Evidence) -> str | None:
        return self.fn(answer, record)


def answer_check(
    fn: Callable[[str, Evidence], str | None] | None = None,
    *,
    name: str | None = None,
    writes: bool = False,
) -> Check | Callable[[Callable[[str, Evidence], str | None]], Check]:
    """Make a function a check: ``@answer_check`` or ``@answer_check(name=..., writes=True)``."""

    def make(function: Callable[[str, Evidence], str | None]) -> Check:
        return Check(name or function.__name__, function, writes)

    return make(fn) if fn is not None else make


def _plan(answer: str, record: Evidence) -> str | None:
    if is_plan(answer, record.tools, record.called, question=record.question):
        return "it says what you will do, and makes no call"
    return None


def _echo(answer: str, record: Evidence) -> str | None:
    # Only where the question is read and asks for no quote (None: its language is not read).
    if asks_verbatim(record.question) is not False:
        return None
    texts = [r.text for r in record.results if not r.media]
    return "it copies the results out instead of answering" if copies(answer, texts) else None


class _Omits:
    """The built-in ``omits`` check, with the indexes of the results left out."""

    name = "omits"
    writes = True

    def __repr__(self) -> str:
        return "omits"

    def missing(self, answer: str, record: Evidence) -> list[int]:
        """The indexes of ``record.results`` the answer provably leaves out."""
        return omitted(answer, record.results, record.question)

    def __call__(self, answer: str, record: Evidence) -> str | None:
        left = self.missing(answer, record)
        if not left:
            return None
        calls = ", ".join(record.results[i].call for i in left)
        return f"it leaves out the results of {calls}"


plan = Check("plan", _plan)
"""The answer is plainly a plan: it says what the model will do (sent back once; given
again with no result in hand, a failed step for the circuit breaker)."""
echo = Check("echo", _echo, writes=True)
"""The answer is mostly the results copied out, where no quote was asked for."""
omits: AnswerCheck = _Omits()
"""The answer provably leaves out a result the question asks for (:mod:`._omits`)."""

#: The built-in checks, in the order they run.
DEFAULT_CHECKS: tuple[AnswerCheck, ...] = (plan, echo, omits)


def checks_of(value: Sequence[object] | None) -> tuple[AnswerCheck, ...]:
    """``create_agent(answer_checks=...)`` as checks: None is the default list; a plain
    function becomes a check named after it. Raises TypeError for anything else."""
    if value is None:
        return DEFAULT_CHECKS
    if isinstance(value, str | bytes) or not isinstance(value, Sequence | Collection):
        raise TypeError(f"answer_checks must be a list of checks, not {type(value).__name__}")
    found: list[AnswerCheck] = []
    names: set[str] = set()
    for item in value:
        if isinstance(item, AnswerCheck):
            check: AnswerCheck = item
        elif callable(item) and isinstance(name := getattr(item, "__name__", None), str):
            check = Check(name, item)
        else:
            raise TypeError(f"an answer check must be callable, not {type(item).__name__}")
        if check.name in names:
            raise ConfigurationError(f"two answer checks are named {check.name!r}")
        names.add(check.name)
        found.append(check)
    return tuple(found)

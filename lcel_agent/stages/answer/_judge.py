"""The one decision: does the model's own answer stand, or does the stage write one?

The stage writes the answer only when acting ended without a usable one, or, in
``"auto"`` mode, when the model's answer provably leaves out a fact the question asks
for. In order:

============  ============================================================  ===========
repair        what the model did                                            modes
============  ============================================================  ===========
``cut``       its answer was cut off at the length limit                    all
``echo``      it copied its results out instead of a call                   all
``drift``     it only repeated calls it had made, until drift stopped it    auto, compose
``empty``     it replied with nothing                                       all
``plan``      it said what it would do, was told once, and said it again    all
``form``      its answer is protocol JSON, not words (a tool call, a cut    all
              action); a ``final`` action written out is unwrapped instead
``compose``   (any answer)                                                  compose
``echo``      its answer is mostly the results copied (not asked verbatim)  auto
``omits``     its answer provably leaves out a result (:mod:`._omits`)      auto
============  ============================================================  ===========

Anything else stands, at no extra cost: a capable model's answer is never paid for twice.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from ...rules.gathered import Result
from ...state import AgentState
from ._echo import copies
from ._omits import omitted
from ._question import asks_verbatim
from ._reply import words_of_reply

__all__ = ["Verdict", "judge"]

#: Triggers whose state carries the model's own reply (the draft), whatever it is.
_DRAFTS = frozenset({"final", "forced", "plan", "empty"})
#: Triggers that leave no usable answer: the stage writes one from the results.
_UNUSABLE = frozenset({"cut", "echo", "drift", "empty", "plan"})


@dataclass(frozen=True, slots=True)
class Verdict:
    """What the stage makes of the model's answer."""

    draft: str | None
    """The model's own answer in words (a ``final`` written out, unwrapped), or None."""
    repair: str
    """Why the stage writes (see the module docstring); empty: the draft stands."""
    missing: tuple[int, ...] = ()
    """The results the draft provably leaves out (``repair == "omits"``)."""


def judge(
    state: AgentState, mode: str, results: Sequence[Result], tools: Collection[str]
) -> Verdict:
    """The verdict on the acting's end (``state.finished_by``) in ``mode``."""
    trigger = state.finished_by or ""
    raw = state.output if trigger in _DRAFTS and isinstance(state.output, str) else None
    draft = words_of_reply(raw, tools) if raw is not None and raw.strip() else None
    if trigger == "drift" and mode == "model":
        return Verdict(None, "")  # a stuck run's stop stands: no answer is second-guessed
    if trigger in _UNUSABLE:
        return Verdict(None, trigger)  # no answer in words to keep, even as a last resort
    if draft is None:
        return Verdict(None, "form")
    if mode == "compose":
        return Verdict(draft, "compose")
    if mode == "model" or not results:
        return Verdict(draft, "")
    texts = [r.text for r in results if not r.media]
    if not asks_verbatim(state.task) and copies(draft, texts):
        return Verdict(draft, "echo")
    missing = tuple(omitted(draft, results, state.task))
    return Verdict(draft, "omits" if missing else "", missing)

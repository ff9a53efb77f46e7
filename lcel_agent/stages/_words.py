"""Replies in words before they are answers: the JSON protocol's one notice.

Used by both protocols' parsers where a reply carries no call (:func:`judge_words`).
Whether an answer is a plan, or fails any other check, is decided where every answer is
judged (``classify_error``, with :mod:`lcel_agent.stages.answer`'s checks).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

from ..rules.gathered import gathered
from ..state import AgentState
from ..texts import PROSE_REPROMPT

__all__ = ["Words", "judge_words"]


@dataclass(frozen=True, slots=True)
class Words:
    """What a reply in words (no call, no action) does to the run before it is an answer."""

    notice: str | None = None
    """Send it back once with this notice (not an error: the breaker does not count it)."""


def judge_words(
    text: str, state: AgentState, tools: Collection[str], *, json_protocol: bool
) -> Words:
    """The rule for a reply in words before it is taken as an answer, in both protocols.

    In the JSON protocol, words before any call succeeded are sent back once
    (``PROSE_REPROMPT``): they may be an answer in the wrong form, or thinking aloud. One
    notice between two successful calls, and none on the loop reserved for an answer or in
    an agent with no tools. Whether an answer is a plan is a check of the answer
    (:data:`lcel_agent.stages.answer.plan`), made where every answer is judged.
    """
    if state.final_only or state.noticed or not tools:
        return Words()
    if json_protocol and not gathered(state):
        return Words(notice=PROSE_REPROMPT)
    return Words()

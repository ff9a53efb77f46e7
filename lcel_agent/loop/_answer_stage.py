"""What the loop asks of the answer stage in its chain, by duck typing.

The stage in the ``answer`` slot may be the built-in
:class:`~lcel_agent.stages.answer.WriteAnswer` or a user's own Runnable
(``stages={"answer": ...}``), so the loop asks for what it needs by name and falls back
when the stage cannot say:

* :func:`may_hold_answer`: may the acting model's answer this loop yet be replaced by
  the stage's? An answer stream then holds it until the stage lets it stand.
* :func:`delivered`: what a run the gate stopped delivers: no stage ran after that stop,
  so the stage's ``on_stop`` says (pure).
"""

from __future__ import annotations

from typing import Any

from ..rules.gathered import gathered
from ..state import AgentState

__all__ = ["delivered", "may_hold_answer"]


def may_hold_answer(stage: Any, state: AgentState) -> bool:
    """Whether ``stage`` may replace the acting model's answer of this loop. The stage says
    (``may_replace``); a stage that cannot say may replace any answer once tools have
    succeeded."""
    may_replace = getattr(stage, "may_replace", None)
    if callable(may_replace):
        return bool(may_replace(state))
    return bool(gathered(state))


def delivered(stage: Any, state: AgentState) -> AgentState:
    """The last state as ``stage`` leaves a run it did not see stop (its ``on_stop``); the
    state itself when the stage has none."""
    on_stop = getattr(stage, "on_stop", None)
    return on_stop(state) if callable(on_stop) else state  # type: ignore[no-any-return]

"""The run's gathered results: every successful tool call, read from the run's records.

The answer is written from these, never from the memory window: the window forgets
text to stay within its budget, the run's records keep every result whole (as the
model was shown it). A call made twice counts once, with its newest result, in the
order the calls were first made::

    for result in gathered(state):        # Result(tool, subject, text)
        print(result.call, result.text)
"""

from __future__ import annotations

from collections.abc import Iterable

from ..state import AgentState, StepRecord
from ._coverage import Result

__all__ = ["gathered", "gathered_from"]


def gathered_from(steps: Iterable[StepRecord]) -> list[Result]:
    """The successful calls of ``steps`` (acting loops only), each once, newest result kept."""
    found: dict[str, Result] = {}
    for step in steps:
        if step.kind != "act":
            continue
        for obs in step.observations:
            if obs.ok and not obs.action.is_final:
                key = obs.action.signature()
                result = Result(
                    obs.action.tool, obs.action.input_text, obs.output, bool(obs.blocks)
                )
                found[key] = result  # a dict keeps the first insertion's place
    return list(found.values())


def gathered(state: AgentState) -> list[Result]:
    """The successful calls of the run so far (see :func:`gathered_from`)."""
    return gathered_from(state.steps)

"""The run's gathered results: every successful tool call, read from the run's records.

The answer stage checks the answer against, and writes it from, these, never from the memory
window: the window forgets text to stay within its budget, the run's records keep
every result whole (as the model was shown it). A call made twice counts once, with
its newest result, in the order the calls were first made::

    for result in gathered(state):        # Result(tool, subject, text)
        print(result.call, result.text)
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from ..state import AgentState, StepRecord

__all__ = ["Result", "gathered", "gathered_from"]


@dataclass(frozen=True, slots=True)
class Result:
    """One successful tool call, as the answer rules read it."""

    tool: str
    """The tool's name: results of one tool are siblings."""
    subject: str
    """The call's input as text (``北京``): an answer names it where it speaks of this result."""
    text: str
    """What the tool returned."""
    media: bool = False
    """The result holds more than its text (an image): no text check can tell whether an
    answer used it, so none is made."""
    fed: bool = False
    """A later call's input holds one of its values: a step on the way (an id, a listing,
    a search hit the next call opened), not what the question asks for."""

    @property
    def call(self) -> str:
        """The call as the model would write it: ``get_weather(北京)``."""
        return f"{self.tool}({self.subject})"


def gathered_from(steps: Iterable[StepRecord]) -> list[Result]:
    """The successful calls of ``steps`` (acting loops only), each once, newest result kept."""
    found: dict[str, Result] = {}
    inputs: list[str] = []  # every call's input, in order, to tell which result fed which
    made: dict[str, int] = {}  # signature -> index of the call in ``inputs``
    for step in steps:
        if step.kind != "act":
            continue
        for obs in step.observations:
            if obs.action.is_final:
                continue
            inputs.append(obs.action.input_text)
            if obs.ok:
                key = obs.action.signature()
                made[key] = len(inputs) - 1
                found[key] = Result(  # a dict keeps the first insertion's place
                    obs.action.tool, obs.action.input_text, obs.output, bool(obs.blocks)
                )
    results = []
    for key, result in found.items():
        later = inputs[made[key] + 1 :]
        fed = bool(later) and _feeds(result.text, later)
        results.append(Result(result.tool, result.subject, result.text, result.media, fed))
    return results


def gathered(state: AgentState) -> list[Result]:
    """The successful calls of the run so far (see :func:`gathered_from`)."""
    return gathered_from(state.steps)


# A value a later input must hold whole to count as fed: an id, a name, a path, a link.
_TOKEN = re.compile(r"[\w./:@-]{3,}")


def _feeds(result: str, later_inputs: list[str]) -> bool:
    """Whether one of ``result``'s tokens that is no plain word (an id, a file name, a
    path, a link) is in a later call's input: the result was read to make that call."""
    later = " ".join(later_inputs)
    if not later.strip():
        return False
    return any(token in later for token in set(_TOKEN.findall(result)) if not token.isalpha())

"""The circuit breaker: stop a model that is stuck, not one that is unlucky.

A run makes *progress* when a tool call succeeds that had not succeeded before
in the run (or the model answers): a new call, not a new result, so a call whose
result changes every time (a clock, a poll) cannot keep a run alive. Between two
progresses the breaker watches the failures, and stops the run when either

1. the **same failure** happens ``max_errors`` times in a row: the model is
   ignoring what it was told (the same garbled reply, the same unknown tool,
   the same failing call, the same repeated action). A run that has already
   made progress gets one more try, ``max_errors + 1``: a model that has shown
   it can work is more likely unlucky than stuck after one repeat;
2. ``2 * max_errors`` loops pass **without progress**, whatever failed (a mix
   of different slips, or oscillating between two calls);
3. the model **drifts twice**: it repeats itself (see :mod:`lcel_agent.rules.drift`),
   is nudged, and drifts again before any progress. This one does not depend
   on ``max_errors``: the nudge says exactly what not to do.

So a model that never progresses is stopped within ``2 * max_errors`` model
calls, one repeating a single failure from the start within ``max_errors``, a
run's progress is bounded by the number of different calls it can make, and
a model that keeps progressing between slips is never stopped by chance pairs
of unrelated slips. Everything here is pure; ``classify_error`` applies it to
``AgentState.breaker`` (a :class:`~lcel_agent.state.BreakerState`, re-exported here),
with a loop's failure known by its :func:`fingerprint` and its progress by
:func:`progress_of`.

::

    state, why = advance(BreakerState(), failure="format|garbage", results=(), max_errors=2)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import replace
from typing import Literal

from .._shared.messages import message_text

# The breaker's memory is part of every run's state: defined there, on the floor below.
from ..state import AgentState, BreakerState, RunError

__all__ = ["BreakerState", "StopWhy", "advance", "fingerprint", "progress_of", "stop_error"]

StopWhy = Literal["repeated", "stalled", "drifted"]
"""Why the breaker trips: the same failure again, too long without progress, drift after a nudge."""


def advance(
    state: BreakerState,
    *,
    failure: str | None,
    results: Iterable[str],
    max_errors: int,
    drift: bool = False,
) -> tuple[BreakerState, StopWhy | None]:
    """The breaker after one loop, and why to stop (None: go on).

    Args:
        state: the breaker before the loop.
        failure: the loop's failure fingerprint (equal strings mean the same
            failure), or None when the loop did not fail.
        results: the signatures of the loop's successful calls.
        max_errors: the agent's ``max_errors``.
        drift: the loop's failure was drift.
    """
    new = frozenset(results) - state.known
    if new:
        return BreakerState(progressed=True, known=state.known | new), None
    stalled = state.stalled + 1
    if failure is None:
        calm = replace(state, stalled=stalled, streak=0, last=None)
        return calm, ("stalled" if stalled >= 2 * max_errors else None)
    streak = state.streak + 1 if failure == state.last else 1
    drifts = state.drifts + drift
    after = replace(state, stalled=stalled, streak=streak, last=failure, drifts=drifts)
    if drifts >= 2:
        return after, "drifted"
    if streak >= max_errors + state.progressed:
        return after, "repeated"
    if stalled >= 2 * max_errors:
        return after, "stalled"
    return after, None


def fingerprint(error: RunError, state: AgentState) -> str:
    """Equal for the same failure repeated, different for different slips.

    A failed action is known by its call: the same call failing again is the same
    failure, whether the tool failed again or the repeat was refused as drift. A reply
    that could not be read is known by what it said: its text and any tool calls
    that could not be read (native tool calls carry no text).
    """
    failed = sorted(o.action.signature() for o in state.observations if not o.ok)
    if failed:
        return "calls|" + "|".join(failed)
    reply = state.reply
    said = message_text(reply) if reply is not None else ""
    if reply is not None:
        said += "".join(f"|{c.get('name')}({c.get('args')})" for c in reply.invalid_tool_calls)
    return f"{error.error_class.value}|" + " ".join(said.split())[:500]


def progress_of(state: AgentState) -> list[str]:
    """The signatures of the loop's successful calls: what may count as progress."""
    # A call counts once: asking again (a result that changes, a fact the window lost)
    # is not progress, so only the number of different calls bounds a run's progress.
    return [o.action.signature() for o in state.observations if o.ok]


def stop_error(error: RunError, why: StopWhy, breaker: BreakerState) -> RunError:
    """The loop's error, saying why the breaker stopped the run."""
    reasons = {
        "repeated": f"the same failure {breaker.streak} times in a row",
        "stalled": f"{breaker.stalled} loops in a row without progress",
        "drifted": "the model repeated itself again after a nudge",
    }
    return dataclasses.replace(error, message=f"{error.message} (stopped: {reasons[why]})")

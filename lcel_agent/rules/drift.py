"""Drift detection: is the model going round in circles?

Pure functions over the run's action history, shared by the sync and async
dispatchers. An action *drifts* when

* the same tool with the same input already failed in this run (one repeat
  of a call that only timed out, or of a failed call to an idempotent tool, is
  a retry, not drift), or was refused without running;
* it already succeeded, its result is still in the memory window (word for word or in
  the window's digest: when the window no longer shows it, asking again is legitimate),
  and no call of *another* tool has succeeded since: nothing the model did since could
  have changed what it would return (a weather report, a search asked again). After
  another tool's success (``cd`` between two ``ls``, a ticket created between two
  listings) the same call is asked of a world that may have changed, and it runs;
* it completes an A, B, A, B oscillation between two actions;
* it appears twice in one reply.

The dispatcher does not run a drifting action: the model gets a nudge instead.
Drift is a failure like any other for the circuit breaker (:mod:`lcel_agent.rules.breaker`):
the same drift again stops the run with ``drift``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence

from ..state import Action

__all__ = ["REFUSED", "TIMED_OUT", "HistoryEntry", "detect_drift", "done_calls"]

#: The result prefix recorded for a call that failed only by running out of time.
TIMED_OUT = "\x00timed out"
#: The result prefix recorded for an action that was refused without running.
REFUSED = "\x00refused"

#: ``(action signature, succeeded, a prefix of the result)`` per dispatched action.
HistoryEntry = tuple[str, bool, str]


def _tool(signature: str) -> str:
    return signature.partition("\x00")[0]


def _changed_since(sig: str, history: Sequence[HistoryEntry]) -> bool:
    """Whether a call of another tool succeeded after ``sig``'s last success."""
    last = max(i for i, (s, ok, excerpt) in enumerate(history) if s == sig and ok)
    tool = _tool(sig)
    return any(
        ok and excerpt != REFUSED and _tool(s) != tool for s, ok, excerpt in history[last + 1 :]
    )


def detect_drift(
    action: Action,
    history: Sequence[HistoryEntry],
    window_texts: Iterable[str],
    batch: Sequence[Action] = (),
    *,
    may_retry: bool = False,
) -> str | None:
    """Return why ``action`` is drift, or None when it is not.

    Args:
        action: the action about to be dispatched.
        history: the run's earlier dispatches, oldest first.
        window_texts: the texts of the messages now in the memory window.
        batch: the actions before this one in the same reply.
        may_retry: the tool is idempotent, so one repeat after any failure is a retry.
    """
    sig = action.signature()
    if any(other.signature() == sig for other in batch):
        return "twice in one reply"
    earlier = [entry for entry in history if entry[0] == sig]
    ran = [entry for entry in earlier if entry[2] != REFUSED]
    succeeded = [excerpt for _, ok, excerpt in ran if ok]
    if succeeded:
        excerpt = succeeded[-1]
        shown = not excerpt or any(excerpt in text for text in window_texts)
        if shown and not _changed_since(sig, history):
            return "its result is already in the conversation"
    elif ran:
        # One repeat of a call that failed once is a retry, not a loop, when it only timed
        # out or when the tool says running it twice is safe (a transient failure may clear).
        if not (len(ran) == 1 and (ran[0][2] == TIMED_OUT or may_retry)):
            return "it already failed"
    elif earlier:
        return "it was refused before"
    sigs = [entry[0] for entry in history]
    if len(sigs) >= 3 and sigs[-2] == sig and sigs[-3] == sigs[-1] and sigs[-1] != sig:
        return "it oscillates with another call"
    return None


def done_calls(history: Sequence[HistoryEntry]) -> list[str]:
    """The calls that succeeded so far, each once, as the model would write them:
    ``search_baidu(台风最新路径)``."""
    done: list[str] = []
    for signature, ok, _ in history:
        if not ok:
            continue
        name, _, given = signature.partition("\x00")
        try:
            value = json.loads(given)
        except ValueError:
            value = given
        text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
        call = f"{name}({text})"
        if call not in done:
            done.append(call)
    return done

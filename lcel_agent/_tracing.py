"""Secrets out of LangSmith: every LangSmith tracer of a run masks what it sends.

LangChain's own callbacks trace each run's inputs and outputs as they are: a tool's
raw result, say, before the dispatcher masked its copy. LangSmith's client takes an
``anonymizer`` (``Client(anonymizer=...)``, in every release since 0.1) that it
applies to the inputs and outputs of every run it sends; :func:`mask_traces` gives
each LangSmith tracer listening to a run one that masks every secret the redactor
knows (kept in front of an anonymizer the client already had)::

    mask_traces(run_manager.handlers)    # the loop does this as a traced run starts
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable
from typing import Any

from ._redact import redact_value

__all__ = ["mask_traces", "masking"]

Anonymizer = Callable[[dict[str, Any]], dict[str, Any]]


def masking(data: dict[str, Any]) -> dict[str, Any]:
    """A LangSmith anonymizer: ``data`` with every known secret masked in every string."""
    masked: dict[str, Any] = redact_value(data)
    return masked


def _after(theirs: Anonymizer) -> Anonymizer:
    def masking_after(data: dict[str, Any]) -> dict[str, Any]:
        return masking(theirs(data))

    _OURS.add(masking_after)
    return masking_after


#: The anonymizers this module made: a client that has one is not wrapped twice.
_OURS: weakref.WeakSet[Any] = weakref.WeakSet([masking])


def mask_traces(handlers: Iterable[Any]) -> None:
    """Have every LangSmith tracer among ``handlers`` mask the redactor's secrets."""
    for handler in handlers:
        if type(handler).__name__ != "LangChainTracer":
            continue
        client = getattr(handler, "client", None)
        # The client keeps its anonymizer in a slot of the same name in every langsmith
        # release (0.1 to today); there is no public setter once a client exists.
        if client is None or not hasattr(client, "_anonymizer"):
            continue
        current = client._anonymizer
        if current not in _OURS:
            client._anonymizer = masking if current is None else _after(current)

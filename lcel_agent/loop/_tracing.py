"""Secrets out of LangSmith: every LangSmith tracer of a run masks what it sends.

LangChain's own callbacks trace each run's inputs and outputs as they are: a tool's
raw result, say, before the dispatcher masked its copy. LangSmith's hook for masking,
``Client(anonymizer=...)``, is given when a client is built; a client that exists
already (the one ``LANGSMITH_TRACING`` made, or the one a user passed to
``tracing_v2_enabled``) takes no new one through any public API. So
:func:`mask_traces` puts a :class:`MaskingClient` in front of each LangSmith tracer's
client: the tracer's public ``client`` attribute now holds the same client, wrapped.
Its ``create_run`` and ``update_run``, the two methods through which every langsmith
release from 0.1 to today receives a run (from the tracer, or from the ``RunTree`` it
posts), mask every secret the redactor knows in the run's inputs, outputs, error,
metadata, events and tags, then hand the run on. Everything else is the client's own:
its endpoint, batching, ``hide_inputs``/``hide_outputs``, and its anonymizer, which
runs after this masking, on text with no secret left in it::

    mask_traces([*manager.handlers, *manager.inheritable_handlers])  # as a traced run starts
"""

from __future__ import annotations

import dataclasses
import datetime
import enum
import uuid
from collections.abc import Iterable, Mapping
from typing import Any

from .._redact import redact

__all__ = ["MaskingClient", "mask_traces", "masked"]

# The parts of a run that carry text from outside; ids, times and names stay as they are.
_CONTENT = ("inputs", "outputs", "error", "extra", "events", "tags", "serialized")
# Deeper than any run's data; past it a value is sent as its masked text.
_MAX_DEPTH = 50


def masked(value: Any, depth: int = 0) -> Any:
    """``value`` as LangSmith would send it (plain JSON data), every string masked.

    Pydantic models become what LangSmith's serializer makes of them
    (``model_dump(mode="json", exclude_none=True)``), dataclasses the dict of their
    fields; numbers, times, ids and enums stay; anything else becomes its ``str()``, as
    LangSmith writes an object it cannot serialize, masked.
    """
    if isinstance(value, str):
        return redact(value)
    if value is None or isinstance(
        value, bool | int | float | enum.Enum | uuid.UUID | datetime.date | datetime.time
    ):
        return value
    if depth >= _MAX_DEPTH:
        return redact(str(value))
    if isinstance(value, Mapping):
        return {key: masked(item, depth + 1) for key, item in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [masked(item, depth + 1) for item in value]
    model_dump = getattr(value, "model_dump", None)
    if callable(model_dump) and not isinstance(value, type):
        try:
            return masked(model_dump(mode="json", exclude_none=True), depth + 1)
        except Exception:  # a model that cannot dump itself is sent as text
            return redact(str(value))
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = dataclasses.fields(value)
        return {f.name: masked(getattr(value, f.name, None), depth + 1) for f in fields}
    return redact(str(value))


def _masked_run(kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: masked(v) if k in _CONTENT and v is not None else v for k, v in kwargs.items()}


class MaskingClient:
    """A LangSmith client with every secret masked out of the runs it is given.

    Wraps the client a tracer already has (``MaskingClient(tracer.client)``); every
    attribute but :meth:`create_run` and :meth:`update_run` is the wrapped client's.
    """

    __slots__ = ("client",)

    def __init__(self, client: Any) -> None:
        self.client = client
        """The wrapped ``langsmith.Client``: it sends what this one hands it."""

    def create_run(self, *args: Any, **kwargs: Any) -> Any:
        """``Client.create_run``, with the run's text masked."""
        if len(args) > 1:  # create_run(name, inputs, run_type, ...)
            args = (args[0], masked(args[1]), *args[2:])
        return self.client.create_run(*args, **_masked_run(kwargs))

    def update_run(self, *args: Any, **kwargs: Any) -> Any:
        """``Client.update_run``, with the run's text masked."""
        return self.client.update_run(*args, **_masked_run(kwargs))

    def __getattr__(self, name: str) -> Any:
        return getattr(self.client, name)

    def __repr__(self) -> str:
        return f"MaskingClient({self.client!r})"


def mask_traces(handlers: Iterable[Any]) -> None:
    """Have every LangSmith tracer among ``handlers`` send its runs through a
    :class:`MaskingClient` (once: a tracer that has one keeps it)."""
    for handler in handlers:
        if type(handler).__name__ != "LangChainTracer":
            continue
        client = getattr(handler, "client", None)
        if client is not None and not isinstance(client, MaskingClient):
            handler.client = MaskingClient(client)

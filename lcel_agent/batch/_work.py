"""One run of a batch job, the same wherever it runs (this process or a Ray worker)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from langchain_core.callbacks.base import BaseCallbackHandler
from langchain_core.runnables import RunnableConfig

from .._redact import redact
from ..stages.llm_client import is_own_client
from ..state import AgentResult
from ._items import Item
from ._limiter import AsyncRateLimitCallback, RateLimitCallback
from .errors import BatchRunError

__all__ = ["Finished", "finished", "release", "run_item"]


@dataclass(frozen=True, slots=True)
class Finished:
    """A finished run as the job's driver needs it: the line to write, and its figures."""

    key: str
    """The item's id key."""
    line: str
    """The results line, JSON text without the newline, secrets redacted."""
    stop_reason: str
    """The run's stop reason."""
    input_tokens: int
    output_tokens: int
    elapsed_s: float
    """The run's own wall time (queueing before it started not included)."""


def finished(item: Item, result: Any) -> Finished:
    """The results line of ``item``'s run."""
    if not isinstance(result, AgentResult):
        raise BatchRunError(
            f"id {item.key}: the agent returned {type(result).__name__}, not an AgentResult; "
            "batch inputs are tasks (a string, or {'input': ...}) answered by an lcel_agent agent"
        )
    line = json.dumps(
        {"id": item.id, "input": item.input, "result": result.to_dict()}, ensure_ascii=False
    )
    return Finished(
        key=item.key,
        line=redact(line),
        stop_reason=result.stop_reason.value,
        input_tokens=result.usage.input_tokens,
        output_tokens=result.usage.output_tokens,
        elapsed_s=result.elapsed_s,
    )


async def _durable_run(agent: Any, item: Item, config: RunnableConfig) -> Any:
    """The item's run on its checkpoint thread: its stored result if it finished (its worker
    died before the driver heard), resumed if it did not, else a new run."""
    config["configurable"] = {"thread_id": item.thread}
    state = await agent.aget_state(config)
    if state is None:
        return await agent.ainvoke(item.input, config)
    if state.status == "finished":
        return state.result
    return await agent.ainvoke(None, config)


async def run_item(agent: Any, item: Item, callbacks: Sequence[BaseCallbackHandler]) -> Finished:
    """Run ``item`` on ``agent``; a run that raises is a :class:`BatchRunError` naming its id.

    With an agent that has a checkpointer, the run goes on the item's thread (see
    :func:`_durable_run`).
    """
    config = RunnableConfig(
        callbacks=list(callbacks),
        metadata={"batch_id": item.id},
        tags=["lcel-agent-batch"],
    )
    durable = item.thread is not None and getattr(agent, "checkpointer", None) is not None
    try:
        if durable:
            result = await _durable_run(agent, item, config)
        else:
            result = await agent.ainvoke(item.input, config)
    except Exception as exc:
        raise BatchRunError(
            redact(f"id {item.key}: the run raised {type(exc).__name__}: {exc}")
        ) from None
    limiter_failure = next(
        (
            h.ledger.failure
            for h in callbacks
            if isinstance(h, (RateLimitCallback, AsyncRateLimitCallback)) and h.ledger.failure
        ),
        None,
    )
    if limiter_failure is not None:
        # The run "finished" only because the rate limiter broke under it: not a result.
        raise BatchRunError(
            redact(f"the rate limiter failed: {type(limiter_failure).__name__}: {limiter_failure}")
        )
    return finished(item, result)


def _models(agent: Any) -> list[Any]:
    """The chat models inside an lcel_agent agent (through bindings and fallbacks)."""
    found: dict[int, Any] = {}
    stack = [getattr(stage, name, None) for stage in getattr(agent, "stages", {}).values()
             for name in ("llm", "final_llm")]  # fmt: skip
    while stack:
        model = stack.pop()
        if model is None or id(model) in found:
            continue
        found[id(model)] = model
        stack += [getattr(model, "bound", None), getattr(model, "runnable", None)]
        stack += list(getattr(model, "fallbacks", None) or ())
    return list(found.values())


async def release(agent: Any) -> None:
    """Close the HTTP connections the job's agent opened, where they are the agent's own.

    A model client left open holds sockets bound to the job's event loop, which leak
    (ResourceWarning) when the agent is dropped. Clients the user passed in
    (``http_async_client``) are theirs to close, and langchain-openai's default client,
    shared by every ChatOpenAI of an endpoint in the process, is left alone.
    """
    for model in _models(agent):
        client = getattr(model, "root_async_client", None)
        if getattr(model, "http_async_client", None) is not None or not is_own_client(client):
            continue
        try:
            await client.close()
        except (
            Exception
        ):  # closing is a courtesy: a client that cannot close is not the job's failure
            continue

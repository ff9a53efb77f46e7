"""The model's client as the loop calls it (retries off, timeout set) and as its owner closes it."""

from __future__ import annotations

from typing import Any, TypeGuard

from langchain_core.runnables import Runnable, RunnableBinding

from .._shared.lazy import is_chat_model
from .llm_profile import legacy_limit_body

__all__ = ["is_own_client", "without_client_retries"]


def without_client_retries(llm: Runnable[Any, Any], timeout: float | None) -> Runnable[Any, Any]:
    """Return ``llm`` with the openai client's own retries off and its HTTP timeout set,
    and its reply budget made to hold on servers that read only ``max_tokens``
    (:func:`~lcel_agent.stages.llm_profile.legacy_limit_body`).

    ``ChatOpenAI`` retries twice by itself and sets no HTTP timeout; stacked under
    the loop's retries that is up to nine HTTP attempts per loop, and a hung
    provider hangs the agent. The copy shares nothing mutable with ``llm``.
    Other models, and wrappers other than ``bind``/``bind_tools``, are returned
    as they are.
    """
    if isinstance(llm, RunnableBinding):
        inner = without_client_retries(llm.bound, timeout)
        if inner is llm.bound:
            return llm
        return llm.__class__(
            bound=inner,
            kwargs=llm.kwargs,
            config=llm.config,
            config_factories=llm.config_factories,
            custom_input_type=llm.custom_input_type,
            custom_output_type=llm.custom_output_type,
        )
    root = getattr(llm, "root_client", None)
    root_async = getattr(llm, "root_async_client", None)
    if root is None or root_async is None or not is_chat_model(llm):
        return llm
    options: dict[str, Any] = {"max_retries": 0}
    if timeout is not None:
        options["timeout"] = timeout
    copy = llm.model_copy()
    fields: dict[str, Any] = {
        "root_client": root.with_options(**options),
        "root_async_client": root_async.with_options(**options),
    }
    fields["client"] = fields["root_client"].chat.completions
    fields["async_client"] = fields["root_async_client"].chat.completions
    for name, value in fields.items():
        object.__setattr__(copy, name, value)
    if hasattr(copy, "max_retries"):
        object.__setattr__(copy, "max_retries", 0)
    # The reply budget must hold on the server too (llama-cpp-python reads only max_tokens).
    if (body := legacy_limit_body(copy)) is not None:
        object.__setattr__(copy, "extra_body", body)
    return copy


def is_own_client(client: object) -> TypeGuard[Any]:
    """Whether closing ``client`` (an openai client) closes only connections it opened.

    langchain-openai 1.x hands every ``ChatOpenAI`` of one endpoint (base URL and timeout)
    the same cached HTTP client for the life of the process. Closing that one breaks the
    next model built for the endpoint ("the client has been closed"), so whoever owns a
    model closes its client only when this says so. (langchain-openai 0.2 lets the openai
    client open its own: that one is the model's to close.)
    """
    if client is None:
        return False
    return not type(getattr(client, "_client", None)).__module__.startswith("langchain_openai")

"""Is a model's reply whole, and what may be asked of the next call? Pure helpers of ``call_llm``.

A reply is complete only when the provider says so. :func:`cut_off` reads the
finish reason every provider family reports (``finish_reason`` for OpenAI and
its look-alikes, ``status`` for OpenAI's Responses API, ``stop_reason`` for
Anthropic, ``done_reason`` for Ollama, ``stopReason`` for Bedrock): a length
stop (or an "incomplete" status) is a cut-off reply, and so is a reply
from an OpenAI-compatible model that carries no finish reason at all, which is
what a stream that ended early leaves behind (langchain repairs the partial
tool-call JSON of such a stream, so its arguments look whole; they are not)::

    why = cut_off(reply, expects_finish=reports_finish(llm))
    if why is not None: ...          # never parse, dispatch or accept it

:func:`token_limit` finds the ``max_tokens`` a model was given, so the call after
a cut-off reply can ask for more (:func:`with_token_limit`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from langchain_core.messages import AIMessage
from langchain_core.runnables import Runnable
from langchain_core.runnables.base import RunnableBindingBase

from .._redact import redact_value
from .._shared.lazy import is_chat_model

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

__all__ = [
    "TOKEN_LIMIT_KEYS",
    "chat_models",
    "cut_off",
    "redact_reply",
    "reports_finish",
    "token_limit",
    "with_token_limit",
]

#: Finish-reason keys of ``response_metadata``, per provider family (``status`` is what
#: OpenAI's Responses API reports instead: "completed" or "incomplete").
_FINISH_KEYS = ("finish_reason", "stop_reason", "done_reason", "stopReason", "status")
#: Their values for "stopped at the length limit".
_LENGTH_REASONS = frozenset({"length", "max_tokens", "MAX_TOKENS", "model_length"})
#: Model classes (by name, anywhere in the MRO) whose replies always carry a finish reason.
_REPORTING = frozenset({"BaseChatOpenAI"})
#: Where chat models keep their output limit, in order of preference.
TOKEN_LIMIT_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens", "num_predict")


def _children(runnable: Any) -> Iterator[Any]:
    if isinstance(runnable, RunnableBindingBase):  # bind, bind_tools, with_retry, ...
        yield runnable.bound
    for name in ("runnable", "fallbacks"):  # RunnableWithFallbacks
        value = getattr(runnable, name, None)
        if isinstance(value, Runnable):
            yield value
        elif isinstance(value, list | tuple):
            yield from (v for v in value if isinstance(v, Runnable))


def chat_models(runnable: Any, depth: int = 0) -> list[BaseChatModel]:
    """The chat models inside ``runnable`` (itself, bindings, retries, fallbacks)."""
    if is_chat_model(runnable):
        return [runnable]
    if depth > 8:
        return []
    return [m for child in _children(runnable) for m in chat_models(child, depth + 1)]


def reports_finish(runnable: Any) -> bool:
    """True when every chat model in ``runnable`` always reports a finish reason."""
    models = chat_models(runnable)
    return bool(models) and all(
        any(cls.__name__ in _REPORTING for cls in type(m).__mro__) for m in models
    )


def cut_off(reply: AIMessage, expects_finish: bool) -> str | None:
    """Why ``reply`` is incomplete, or None when the provider says it is whole."""
    meta: Mapping[str, Any] = reply.response_metadata or {}
    if meta.get("status") == "incomplete":  # OpenAI's Responses API
        details = meta.get("incomplete_details")
        why = details.get("reason") if isinstance(details, Mapping) else None
        return f"the provider marked the reply incomplete ({why or 'no reason given'})"
    reasons = [meta[key] for key in _FINISH_KEYS if meta.get(key) is not None]
    for reason in reasons:
        if str(reason) in _LENGTH_REASONS:
            return f"the provider cut the reply off at its length limit (finish reason {reason!r})"
    if expects_finish and not reasons:
        return "the reply ended without a finish reason (a stream cut short)"
    return None


def token_limit(runnable: Any) -> tuple[str, int] | None:
    """``(keyword, value)`` of the output limit ``runnable`` calls its model with, if any.

    Bound keywords (``llm.bind(max_tokens=...)``) win over the model's own field; with
    fallbacks, the primary model's limit is the one that counts.
    """
    for _ in range(16):
        if isinstance(runnable, RunnableBindingBase):
            for key in TOKEN_LIMIT_KEYS:
                value = runnable.kwargs.get(key)
                if isinstance(value, int) and not isinstance(value, bool):
                    return key, value
            runnable = runnable.bound
        elif is_chat_model(runnable):
            fields = type(runnable).model_fields
            for key in TOKEN_LIMIT_KEYS:
                value = getattr(runnable, key, None) if key in fields else None
                if isinstance(value, int) and not isinstance(value, bool):
                    return key, value
            return None
        else:
            runnable = getattr(runnable, "runnable", None)  # RunnableWithFallbacks
            if runnable is None:
                return None
    return None


def with_token_limit(runnable: Runnable[Any, Any], key: str, value: int) -> Runnable[Any, Any]:
    """``runnable`` calling its model with ``key=value`` (e.g. ``max_tokens=512``)."""
    return runnable.bind(**{key: value})


def redact_reply(reply: AIMessage) -> AIMessage:
    """``reply`` with every known secret masked in its text and its tool calls' arguments.

    The reply feeds the step records, the answer, the memory window and so the
    model's next prompt: masking it once here keeps a secret the model repeats out
    of all of them. Returns ``reply`` itself when there was nothing to mask.
    """
    content = redact_value(reply.content)
    calls = [{**c, "args": redact_value(c["args"])} for c in reply.tool_calls]
    # An unreadable call keeps its raw arguments twice: as ``args`` and quoted in ``error``.
    invalid = [redact_value(dict(c)) for c in reply.invalid_tool_calls]
    # The provider's raw tool calls (langchain-openai 0.2 keeps them here): the reply itself
    # is kept whole in the step records and the messages output.
    extra = redact_value(reply.additional_kwargs)
    if (
        content == reply.content
        and calls == reply.tool_calls
        and invalid == reply.invalid_tool_calls
        and extra == reply.additional_kwargs
    ):
        return reply
    return reply.model_copy(
        update={
            "content": content,
            "tool_calls": calls,
            "invalid_tool_calls": invalid,
            "additional_kwargs": extra,
        }
    )

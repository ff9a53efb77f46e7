"""What a model's server can do, said in one place: schema-held replies and output limits.

The answer stage asks a server to hold its reply to a JSON schema where the server
can (the provider decodes under a grammar, so the reply is always JSON with the
keys asked for). Servers ask for it in different words:

* ``"json_schema"``: OpenAI's ``response_format`` ``{"type": "json_schema", ...}`` with
  ``"strict": true``; vLLM, llama.cpp's own ``llama-server`` and LM Studio take it too;
* ``"json_object_schema"``: ``{"type": "json_object", "schema": ...}``, what
  llama-cpp-python's server reads (it refuses ``json_schema`` with an HTTP 500 naming the types it takes);
* ``"ollama_format"``: Ollama's ``format`` field, a schema.

:func:`profile_of` says, for a chat model (or a Runnable around one), which of these to
try and in what order; :func:`with_schema` binds one to the model::

    profile = profile_of(llm)                       # ModelProfile(schema_forms=(...))
    held = with_schema(llm, profile.schema_forms[0], {"type": "object", ...})

A server that refuses the form costs one failed request: the answer stage then tries the
next form the refusal leaves open (:func:`still_open`), and plain text after the last. The request goes through ``extra_body`` for
OpenAI-compatible clients, so the client sends it as it is and never takes its
structured-output path (which raises on a reply cut at the length limit instead of
returning it).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlparse

from langchain_core.messages import HumanMessage
from langchain_core.runnables import Runnable
from langchain_core.runnables.base import RunnableBindingBase

from .llm_reply import chat_models, token_limit, with_token_limit

__all__ = [
    "SCHEMA_FORMS",
    "ModelProfile",
    "SchemaForm",
    "legacy_limit_body",
    "profile_of",
    "with_output_limit",
    "with_schema",
]

SchemaForm = Literal["json_schema", "json_object_schema", "ollama_format"]
"""How a server is asked for a reply held to a JSON schema (see the module docstring)."""
SCHEMA_FORMS: tuple[SchemaForm, ...] = ("json_schema", "json_object_schema", "ollama_format")

_OPENAI_HOSTS = ("api.openai.com",)


@dataclass(frozen=True, slots=True)
class ModelProfile:
    """What lcel_agent knows of a model's server."""

    schema_forms: tuple[SchemaForm, ...] = ()
    """The ways to ask for a schema-held reply, in the order to try; () when the server
    is not known to hold replies to a schema (the answer is then asked for as text)."""
    extra_body: bool = False
    """The client sends ``extra_body`` as part of the request (OpenAI-compatible clients)."""
    endpoint: str = ""
    """The server's address (its base URL), when known: what a server refused is
    remembered by it, for every agent of the process (:func:`refused_forms`)."""

    def open_forms(self) -> list[SchemaForm]:
        """The schema forms worth trying now: those the server has not refused."""
        shut = refused_forms(self.endpoint)
        return [f for f in self.schema_forms if f not in shut]

    def refuse(self, form: SchemaForm, message: str = "") -> None:
        """Remember that the server refused ``form`` (and what the refusal rules out)."""
        left = still_open(form, message, self.schema_forms)
        with _LOCK:
            _REFUSED.setdefault(self.endpoint, set()).update(
                f for f in self.schema_forms if f not in left
            )


# What each server refused, by endpoint: a capability of the server, learned once per
# process (an agent built per run would otherwise pay the refusal on every run).
_REFUSED: dict[str, set[SchemaForm]] = {}
_LOCK = threading.Lock()


def refused_forms(endpoint: str) -> frozenset[SchemaForm]:
    """The schema forms the server at ``endpoint`` has refused in this process."""
    with _LOCK:
        return frozenset(_REFUSED.get(endpoint, ()))


def _is_openai_client(model: Any) -> bool:
    return any(cls.__name__ == "BaseChatOpenAI" for cls in type(model).__mro__)


def profile_of(model: Runnable[Any, Any]) -> ModelProfile:
    """The profile of the (first) chat model inside ``model``."""
    found = chat_models(model)
    if not found:
        return ModelProfile()
    chat = found[0]
    if _is_openai_client(chat):
        base = getattr(chat, "openai_api_base", None) or ""
        if _is_openai_host(base):
            host = urlparse(base).hostname if base else "api.openai.com"
            return ModelProfile(("json_schema",), extra_body=True, endpoint=base or host or "")
        # Another OpenAI-compatible server: the standard form first, llama-cpp-python's next.
        forms: tuple[SchemaForm, ...] = ("json_schema", "json_object_schema")
        return ModelProfile(forms, extra_body=True, endpoint=base)
    if type(chat).__name__ == "ChatOllama":
        return ModelProfile(("ollama_format",), endpoint=str(getattr(chat, "base_url", "") or ""))
    return ModelProfile()


def refuses_schema(error: BaseException | str) -> bool:
    """Whether a failed request's error is the server turning its schema down.

    Servers say so in different ways (llama-cpp-python answers HTTP 500 with its
    validation error), but they name the field.
    """
    text = str(error).lower()
    return "response_format" in text or "json_schema" in text or "'format'" in text


def still_open(refused: SchemaForm, message: str, forms: Sequence[SchemaForm]) -> list[SchemaForm]:
    """The forms worth trying after a server refused ``refused`` with ``message``.

    llama-cpp-python refuses ``json_schema`` naming what it takes ("Input should be
    'text' or 'json_object'"): then its own form is next. A refusal that does not name
    ``json_object`` leaves no schema form open, so such a server costs one refusal.
    """
    rest = [f for f in forms if f != refused]
    if refused == "json_schema" and "json_object" not in message:
        rest = [f for f in rest if f != "json_object_schema"]
    return rest


def _extra_body(model: Runnable[Any, Any]) -> dict[str, Any]:
    """The ``extra_body`` the model is called with: a bound one, else the model's own."""
    runnable: Any = model
    for _ in range(16):
        if not isinstance(runnable, RunnableBindingBase):
            break
        body = runnable.kwargs.get("extra_body")
        if isinstance(body, Mapping):
            return dict(body)
        runnable = runnable.bound
    found = chat_models(model)
    body = getattr(found[0], "extra_body", None) if found else None
    return dict(body) if isinstance(body, Mapping) else {}


def with_schema(
    model: Runnable[Any, Any], form: SchemaForm, schema: dict[str, Any]
) -> Runnable[Any, Any]:
    """``model`` asking its server to hold the reply to ``schema``, in the words of ``form``."""
    if form == "ollama_format":
        return model.bind(format=schema)
    if form == "json_schema":
        fmt: dict[str, Any] = {
            "type": "json_schema",
            "json_schema": {"name": "answer", "schema": schema, "strict": True},
        }
    else:
        fmt = {"type": "json_object", "schema": schema}
    return model.bind(extra_body={**_extra_body(model), "response_format": fmt})


def with_output_limit(model: Runnable[Any, Any], tokens: int) -> Runnable[Any, Any]:
    """``model`` allowed ``tokens`` of reply.

    Where the model's ``extra_body`` already carries ``max_tokens`` (a server that reads
    ``max_tokens`` but not the ``max_completion_tokens`` newer clients send, such as
    llama-cpp-python's: see :func:`legacy_limit_body`), the limit is set there too, or
    the server would not see it.
    """
    key = (token_limit(model) or ("max_tokens", 0))[0]
    limited = with_token_limit(model, key, tokens)
    body = _extra_body(model)
    if "max_tokens" in body:
        limited = limited.bind(extra_body={**body, "max_tokens": tokens})
    return limited


def _is_openai_host(base: str) -> bool:
    host = (urlparse(base).hostname or "") if base else "api.openai.com"
    return host in _OPENAI_HOSTS or host.endswith(".openai.azure.com")


def legacy_limit_body(chat: Any) -> dict[str, Any] | None:
    """The ``extra_body`` that makes ``chat``'s reply budget hold on its server, or None.

    langchain-openai 1.x sends a ``ChatOpenAI(max_tokens=N)``'s limit as
    ``max_completion_tokens``, which OpenAI reads and some OpenAI-compatible servers
    do not: llama-cpp-python 0.3.36 ignores it (checked: ``max_completion_tokens=5``
    gave 80 tokens, and one request with 18 tools generated for over 15 minutes).
    For a server other than OpenAI's (whose newer models refuse ``max_tokens``) the
    same limit then also goes as ``max_tokens`` in ``extra_body``; a server that reads
    both sees one limit. None where nothing needs adding: no limit, OpenAI itself, a
    client that already sends ``max_tokens``, or a body that already carries it.
    """
    if not _is_openai_client(chat) or _is_openai_host(getattr(chat, "openai_api_base", None) or ""):
        return None
    limit = getattr(chat, "max_tokens", None)
    body = getattr(chat, "extra_body", None) or {}
    if not isinstance(limit, int) or isinstance(limit, bool) or "max_tokens" in body:
        return None
    try:
        payload = chat._get_request_payload([HumanMessage(content="")])
    except Exception:  # an old or a custom client: judged by its parameters instead
        payload = dict(getattr(chat, "_default_params", {}) or {})
    if "max_completion_tokens" not in payload or "max_tokens" in payload:
        return None
    return {**body, "max_tokens": limit}

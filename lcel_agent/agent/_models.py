"""A chat model named by a string: ``"openai:gpt-4o-mini"``.

``init_chat_model`` (in the ``langchain`` package) builds any provider's model
from such a name. ``langchain`` is not a dependency of lcel_agent, so without
it the ``openai`` provider (whose package is one) is built here directly, and
any other provider fails with a message naming the package to install.
"""

from __future__ import annotations

from typing import Any

from ..errors import ConfigurationError

__all__ = ["chat_model_from_string"]

# Model names init_chat_model would give to OpenAI without a "provider:" prefix.
_OPENAI_PREFIXES = ("gpt-", "o1", "o3", "o4", "chatgpt")


def _init_chat_model() -> Any:
    try:
        from langchain.chat_models import init_chat_model
    except ImportError:
        return None
    return init_chat_model


def chat_model_from_string(spec: str) -> Any:
    """Build the chat model ``spec`` names (``"provider:model"``, or an OpenAI model name).

    Raises:
        ConfigurationError: the name is empty, or names a provider that cannot be built here.
    """
    name = spec.strip()
    provider, _, model = name.partition(":") if ":" in name else ("", "", name)
    if not model:
        raise ConfigurationError(f"llm={spec!r} names no model; use e.g. 'openai:gpt-4o-mini'")
    init = _init_chat_model()
    if init is not None:
        try:
            return init(model, model_provider=provider or None)
        except (ValueError, ImportError) as exc:
            raise ConfigurationError(f"llm={spec!r}: {exc}") from None
    if provider == "openai" or (not provider and model.startswith(_OPENAI_PREFIXES)):
        from langchain_openai import ChatOpenAI

        return ChatOpenAI(model=model)
    raise ConfigurationError(
        f"llm={spec!r}: building a model from a name needs the langchain package "
        "(pip install langchain, plus the provider's package, e.g. langchain-anthropic); "
        "without it only 'openai:<model>' is built here. Or pass a chat model object."
    )

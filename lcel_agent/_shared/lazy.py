"""Importing on first use: lazy package names (PEP 562) and class checks that import nothing.

A package lists where each name lives and hands its ``__getattr__``/``__dir__``
to :func:`lazy_exports`; ``import`` of the package then costs nothing beyond the
package itself, and a name's module is imported when the name is first read::

    __getattr__, __dir__ = lazy_exports(__name__, globals(), {"get_weather": "weather"}, __all__)

:func:`is_chat_model` and :func:`is_completion_model` answer ``isinstance`` for
langchain-core's model classes without importing their modules (about 70 ms of
output parsers and protocol types): an instance of a class implies its module
has been imported, so when the module is not loaded the answer is no.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel, BaseLLM

__all__ = ["is_chat_model", "is_completion_model", "lazy_exports"]


def lazy_exports(
    package: str,
    namespace: MutableMapping[str, Any],
    exports: Mapping[str, str],
    public: Sequence[str],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, given ``{name: module}``: a module
    of the package (relative, ``"_args"``), or another package by its full name
    (``"lcel_agent.calling"``), whose door the name is taken through."""

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        absolute = module.startswith("lcel_agent.")
        found = importlib.import_module(module if absolute else f".{module}", package)
        value = getattr(found, name)
        namespace[name] = value  # later look-ups are plain attribute reads
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(public))

    return getattr_, dir_


def _instance(value: object, module: str, name: str) -> bool:
    # A module another thread is still importing may not define the class yet.
    cls = getattr(sys.modules.get(module), name, None)
    return cls is not None and isinstance(value, cls)


def is_chat_model(value: object) -> TypeGuard[BaseChatModel]:
    """``isinstance(value, BaseChatModel)``, importing nothing."""
    return _instance(value, "langchain_core.language_models.chat_models", "BaseChatModel")


def is_completion_model(value: object) -> TypeGuard[BaseLLM]:
    """``isinstance(value, BaseLLM)`` (a completion-only model), importing nothing."""
    return _instance(value, "langchain_core.language_models.llms", "BaseLLM")

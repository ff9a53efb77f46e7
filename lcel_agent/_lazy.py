"""Packages whose public names are imported on first use (PEP 562).

A package lists where each name lives and hands its ``__getattr__``/``__dir__``
to :func:`lazy_exports`; ``import`` of the package then costs nothing beyond the
package itself, and a name's module is imported when the name is first read::

    __getattr__, __dir__ = lazy_exports(__name__, globals(), {"get_weather": "weather"}, __all__)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping, Sequence
from typing import Any

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    namespace: MutableMapping[str, Any],
    exports: Mapping[str, str],
    public: Sequence[str],
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, given ``{name: module}`` (relative)."""

    def getattr_(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value  # later look-ups are plain attribute reads
        return value

    def dir_() -> list[str]:
        return sorted(set(namespace) | set(public))

    return getattr_, dir_

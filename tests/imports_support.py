"""Reading a package's imports from its source, for the layering tests."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "lcel_agent"


def import_statements(path: Path, package: Path = PACKAGE) -> Iterator[tuple[str, list[str]]]:
    """Each import in ``path`` (TYPE_CHECKING blocks and functions included), as
    ``(module, names)`` with absolute names: ``import a.b`` is ``("a.b", [])``,
    ``from .x import y`` in ``pkg/m.py`` is ``("pkg.x", ["pkg.x.y"])``."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    base_package = parts[:-1]  # the package a relative import starts from (for __init__ too)
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            base = list(base_package[: len(base_package) - node.level + 1]) if node.level else []
            module = ".".join([*base, *(node.module.split(".") if node.module else [])])
            yield module, [f"{module}.{alias.name}" for alias in node.names]


def imported(path: Path, package: Path = PACKAGE) -> set[str]:
    """Every module ``path`` imports (TYPE_CHECKING blocks included), as absolute names."""
    names: set[str] = set()
    for module, named in import_statements(path, package):
        names.add(module)
        names.update(named)
    return names


def module_name(path: Path, package: Path = PACKAGE) -> str:
    """``lcel_agent.memory.window`` for ``lcel_agent/memory/window.py`` (a package's
    ``__init__.py`` is the package itself)."""
    parts = path.relative_to(package.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _edges(path: Path, package: Path, modules: set[str]) -> set[str]:
    """The modules of the package that ``path`` imports."""
    edges: set[str] = set()
    for module, named in import_statements(path, package):
        edges.update(n for n in named if n in modules)
        # `import m` and `from m import f` use m; `from pkg import mod` uses only mod.
        if module in modules and not (named and all(n in modules for n in named)):
            edges.add(module)
    return edges


def import_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each module of ``package`` -> the modules of the package it imports.

    ``from . import texts`` is an import of ``texts``, not of the package's ``__init__``
    (which runs first, but is not what the module uses); ``from .memory import X`` of a
    name that is not a module is an import of the package's ``__init__``, its facade.
    """
    files = {module_name(p, package): p for p in package.rglob("*.py")}
    return {name: _edges(path, package, set(files)) - {name} for name, path in files.items()}


def room_of(module: str, package: Path = PACKAGE) -> str:
    """The entry of the package root a module belongs to: ``loop`` for
    ``lcel_agent.loop._driver``, ``state`` for ``lcel_agent.state``, ``__init__`` for the
    package itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def room_graph(package: Path = PACKAGE) -> dict[str, set[str]]:
    """Each entry of the package root (a module or a package: a room) -> the rooms it imports."""
    rooms: dict[str, set[str]] = {}
    for module, edges in import_graph(package).items():
        room = room_of(module, package)
        rooms.setdefault(room, set()).update(room_of(e, package) for e in edges)
    return {room: edges - {room} for room, edges in rooms.items()}

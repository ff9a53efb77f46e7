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
